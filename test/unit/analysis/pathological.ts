/**
 * The pathological inline inputs of cmark and md4c (their test/pathological_tests.py) and a
 * few more of the same family for the lookahead scanners, each as a function of a target
 * size in characters. One line each, so they fit ATX, setext and paragraph positions alike.
 */
export interface Shape {
  name: string;
  labels: string[];
  make: (size: number) => string;
}

function repeat(unit: string, size: number): string {
  return unit.repeat(Math.max(1, Math.floor(size / unit.length)));
}

function nested(open: string, middle: string, close: string, size: number): string {
  const k = Math.max(1, Math.floor((size - middle.length) / (open.length + close.length)));
  return open.repeat(k) + middle + close.repeat(k);
}

export const SHAPES: Shape[] = [
  { name: 'nested strong emph', labels: [], make: (n) => nested('*a **a ', 'b', ' a** a*', n) },
  { name: 'emph closers, no openers', labels: [], make: (n) => repeat('a_ ', n) },
  { name: 'emph openers, no closers', labels: [], make: (n) => repeat('_a ', n) },
  { name: 'mismatched openers and closers', labels: [], make: (n) => repeat('*a_ ', n) },
  { name: 'openers and closers multiple of 3', labels: [], make: (n) => 'a**b' + repeat('c* ', n - 4) },
  { name: '3-emph openers', labels: [], make: (n) => repeat('a***', n) },
  { name: 'link closers, no openers', labels: [], make: (n) => repeat('a]', n) },
  { name: 'link openers, no closers', labels: [], make: (n) => repeat('[a', n) },
  { name: 'link openers and emph closers', labels: [], make: (n) => repeat('[ a_', n) },
  { name: 'nested brackets', labels: [], make: (n) => nested('[', 'a', ']', n) },
  { name: 'nested brackets, defined label', labels: ['a'], make: (n) => nested('[', 'a', ']', n) },
  // Reference-label chains: nested brackets whose spans are as long as the longest definition
  // and match none (so every closer looks its label up).
  { name: 'label chains, 990-char definition', labels: ['a'.repeat(990)], make: (n) => repeat('['.repeat(240) + 'b'.repeat(510) + ']'.repeat(240) + ' ', n) },
  {
    name: 'label chains, escaped brackets',
    labels: ['\\[b\\] '.repeat(150).trim(), '\\[b\\] '.repeat(100) + '\\\\\\\\', 'b\\\\'],
    make: (n) => repeat('\\\\['.repeat(60) + '\\[b\\] '.repeat(100) + '\\\\]'.repeat(60) + ' ', n),
  },
  {
    name: 'label chains, folded whitespace and case',
    labels: [...Array.from({ length: 20 }, (_, i) => 'ß '.repeat(20 + 20 * i).trim()), 'İσ ΣΑΣ', 'ǅ\tx'],
    make: (n) => repeat('['.repeat(100) + 'SS\t '.repeat(90) + ']'.repeat(50) + '[' + 'iΣ σας '.repeat(40) + ']'.repeat(51) + ' ' + '[İσ \t ΣΑΣ] ', n),
  },
  { name: 'nested images', labels: [], make: (n) => nested('![', 'a', '](b)', n) },
  { name: 'shortcut references', labels: ['a'], make: (n) => repeat('[a] ', n) },
  { name: 'hard link/emph case', labels: [], make: (n) => repeat('**x [a*b**c*](d)', n) },
  { name: 'unclosed links A', labels: [], make: (n) => repeat('[a](<b', n) },
  { name: 'unclosed links B', labels: [], make: (n) => repeat('[a](b', n) },
  { name: 'broken link titles', labels: [], make: (n) => repeat('[ (](', n) },
  { name: 'images and empty links', labels: [], make: (n) => repeat('![[]()', n) },
  { name: 'images', labels: [], make: (n) => repeat('![](x) ', n) },
  { name: 'unclosed paren titles', labels: [], make: (n) => repeat('[a](b (', n / 2) + ')' + ' '.repeat(n / 2) + 'x' },
  { name: 'deep destination parens', labels: [], make: (n) => '[a](' + repeat('b(', n / 2) + repeat(')', n / 2) },
  { name: 'backticks', labels: [], make: (n) => { let s = ''; for (let i = 1; s.length < n; i++) s += 'e' + '`'.repeat(i); return s; } },
  { name: 'backticks and escapes', labels: [], make: (n) => repeat('\\``', n) },
  { name: 'unclosed <!--', labels: [], make: (n) => '</' + repeat('<!--', n - 2) },
  { name: '<? run', labels: [], make: (n) => repeat('a <?', n) },
  { name: '<!A run', labels: [], make: (n) => repeat('a <!A', n) },
  { name: 'CDATA openers', labels: [], make: (n) => repeat('a <![CDATA[', n) },
  { name: 'open tags with quoted attributes', labels: [], make: (n) => repeat('<a x="<b y=\'" z=\'', n) },
  { name: 'autolink openers', labels: [], make: (n) => repeat('<a:b <c@d ', n) },
  { name: 'entities', labels: [], make: (n) => repeat('&amp&#1234567&#x1F6000;&bogus;', n) },
  { name: 'U+0000 in input', labels: [], make: (n) => repeat('abc\u0000de\u0000', n) },
  { name: 'trailing spaces', labels: [], make: (n) => repeat('a *b*  ', n) },
];
