/**
 * The pathological inputs of cmark's and md4c's test/pathological_tests.py
 * (plus floods of the inline constructs read with lookahead or matched
 * again: label chains, link titles and destinations, raw HTML, character
 * references, emphasis; and many short paragraphs that each hold inline
 * syntax), rebuilt from their descriptions and
 * scaled to a target size, and placed where a note can hold them: an ATX
 * heading, a setext heading or a paragraph (inline shapes), or as the
 * whole note (block shapes). The one list of pathological shapes: used by
 * the differential tests at sizes micromark still finishes (whole notes in
 * test/differential.test.ts, the inline pass alone in test/inline.test.ts),
 * by the bench (bench/) at 100 KB and 1M chars, and, through the entry
 * point, by the Worker's tests and bench, which hold the Worker's bound to
 * the same inputs.
 */

export type PathologicalPosition = 'atx' | 'setext' | 'paragraph' | 'block';

export interface PathologicalShape {
  name: string;
  /** Inline shapes go in every inline position; block shapes are the note. */
  kind: 'inline' | 'block';
  /** A run of about `chars` chars (never more than one repeated unit over), on one line for inline shapes. */
  build(chars: number): string;
  /**
   * Labels the run refers to, defined before the note as `[label]: u` lines: at most a tenth of
   * the size, except the label-chain shapes, whose few labels are long by design.
   */
  labels?(chars: number): string[];
}

const repeatTo = (unit: string, chars: number): string => unit.repeat(Math.max(1, Math.floor(chars / unit.length)));
const run = (unit: string) => (chars: number) => repeatTo(unit, chars);
const nested = (open: string, middle: string, close: string) => (chars: number) => {
  const depth = Math.max(1, Math.floor((chars - middle.length) / (open.length + close.length)));
  return open.repeat(depth) + middle + close.repeat(depth);
};
const labels = (...values: string[]) => () => values;

export const PATHOLOGICAL_SHAPES: PathologicalShape[] = [
  { name: 'nested strong emph', kind: 'inline', build: nested('*a **a ', 'b', ' a** a*') },
  { name: 'emph closers, no openers `a_ `', kind: 'inline', build: run('a_ ') },
  { name: 'emph openers, no closers `_a `', kind: 'inline', build: run('_a ') },
  { name: '3-emph openers `a***`', kind: 'inline', build: run('a***') },
  { name: 'link closers, no openers `a]`', kind: 'inline', build: run('a]') },
  { name: 'link openers, no closers `[a`', kind: 'inline', build: run('[a') },
  { name: 'mismatched openers and closers `*a_ `', kind: 'inline', build: run('*a_ ') },
  { name: 'openers and closers multiple of 3', kind: 'inline', build: (chars) => 'a**b' + repeatTo('c* ', chars - 4) },
  { name: 'link openers and emph closers `[ a_`', kind: 'inline', build: run('[ a_') },
  { name: 'hard link/emph case', kind: 'inline', build: run('**x [a*b**c*](d) ') },
  // micromark matches again the runs inside each new emphasis (inline-emphasis.ts): flat and nested.
  { name: 'emphasis matched again `_a **b****c*d_ `', kind: 'inline', build: run('_a **b****c*d_ ') },
  { name: 'nested emphasis matched again', kind: 'inline', build: nested('_a **b', 'x', 'b****c*d_') },
  { name: 'nested brackets', kind: 'inline', build: nested('[', 'a', ']') },
  { name: 'nested brackets, defined label', kind: 'inline', build: nested('[', 'a', ']'), labels: labels('a') },
  {
    name: 'nested invalid link references',
    kind: 'inline',
    build: (chars) => '['.repeat(Math.floor(chars / 2)) + ']'.repeat(Math.floor(chars / 2)),
    labels: labels('a'),
  },
  // Reference-label chains: nested brackets whose spans are as long as the longest definition
  // and match none (so every closer looks its label up).
  {
    name: 'label chains, 990-char definition',
    kind: 'inline',
    build: run('['.repeat(240) + 'b'.repeat(510) + ']'.repeat(240) + ' '),
    labels: labels('a'.repeat(990)),
  },
  {
    name: 'label chains, escaped brackets',
    kind: 'inline',
    build: run('\\\\['.repeat(60) + '\\[b\\] '.repeat(100) + '\\\\]'.repeat(60) + ' '),
    labels: labels('\\[b\\] '.repeat(150).trim(), '\\[b\\] '.repeat(100) + '\\\\\\\\', 'b\\\\'),
  },
  {
    name: 'label chains, folded whitespace and case',
    kind: 'inline',
    build: run('['.repeat(100) + 'SS\t '.repeat(90) + ']'.repeat(50) + '[' + 'iΣ σας '.repeat(40) + ']'.repeat(51) + ' ' + '[İσ \t ΣΑΣ] '),
    labels: labels(...Array.from({ length: 20 }, (_, i) => 'ß '.repeat(20 + 20 * i).trim()), 'İσ ΣΑΣ', 'ǅ\tx'),
  },
  {
    name: 'backtick runs `e` `e``` ...',
    kind: 'inline',
    build: (chars) => {
      let out = '';
      for (let size = 1; out.length + size + 1 <= chars; size++) out += 'e' + '`'.repeat(size);
      return out || 'e`';
    },
  },
  { name: 'backticks and escapes `\\``', kind: 'inline', build: run('\\``') },
  { name: 'unclosed links `[a](<b`', kind: 'inline', build: run('[a](<b') },
  { name: 'unclosed links `[a](b`', kind: 'inline', build: run('[a](b') },
  { name: 'many links `[t](/u) `', kind: 'inline', build: run('[t](/u) ') },
  { name: 'images `![](x) `', kind: 'inline', build: run('![](x) ') },
  { name: 'nested images `![![a](b)](b)`', kind: 'inline', build: nested('![', 'a', '](b)') },
  { name: 'images and empty links `![[]()`', kind: 'inline', build: run('![[]()') },
  { name: 'broken link titles `[ (](`', kind: 'inline', build: run('[ (](') },
  {
    name: 'unclosed paren titles `[a](b (`',
    kind: 'inline',
    build: (chars) => {
      const half = Math.max(1, Math.floor((chars - 2) / 2));
      return repeatTo('[a](b (', half) + ')' + ' '.repeat(half) + 'x';
    },
  },
  {
    name: 'deep destination parens `[a](b(b(`',
    kind: 'inline',
    build: (chars) => {
      const half = Math.max(2, Math.floor((chars - 4) / 2));
      return '[a](' + repeatTo('b(', half) + repeatTo(')', half);
    },
  },
  {
    name: 'many references `[0] `',
    kind: 'inline',
    build: run('[0] '),
    labels: (chars) => {
      const out: string[] = [];
      for (let size = 0; size < chars / 10; size += String(out.length).length + 6) out.push(String(out.length));
      return out;
    },
  },
  { name: 'shortcut references `[a] `', kind: 'inline', build: run('[a] '), labels: labels('a') },
  { name: 'html openers and closers `<>`', kind: 'inline', build: run('<>') },
  { name: 'processing instruction openers `<?`', kind: 'inline', build: (chars) => 'x' + repeatTo('<?', chars - 1) },
  { name: 'CDATA openers', kind: 'inline', build: (chars) => 'x' + repeatTo('<![CDATA[', chars - 1) },
  { name: 'declaration openers `<!A`', kind: 'inline', build: (chars) => 'x' + repeatTo('<!A', chars - 1) },
  { name: 'comment openers `<!--`', kind: 'inline', build: (chars) => 'x' + repeatTo('<!--', chars - 1) },
  { name: 'open tags with quoted attributes', kind: 'inline', build: run('<a x="<b y=\'" z=\'') },
  { name: 'entity-like runs `&#3;&x`', kind: 'inline', build: run('&#3;&amp&x') },
  { name: 'numeric and named entities `&amp&#1234567`', kind: 'inline', build: run('&amp&#1234567&#x1F6000;&bogus;') },
  { name: 'autolink openers `<a:`', kind: 'inline', build: run('<a:b ') },
  { name: 'autolinks and emails `<a:b <c@d `', kind: 'inline', build: run('<a:b <c@d ') },
  { name: 'emphasis and trailing spaces `a *b*  `', kind: 'inline', build: run('a *b*  ') },
  { name: 'U+0000 in a heading `abc\\0de\\0`', kind: 'inline', build: run('abc\u0000de\u0000') },
  { name: 'combining marks `e\\u0301...`', kind: 'inline', build: (chars) => 'e' + '\u0301\u0327\u0323'.repeat(Math.floor((chars - 1) / 3)) },
  { name: 'U+0000 and BOM', kind: 'block', build: (chars) => '\uFEFF' + repeatTo('abc\u0000de\u0000 ', chars - 1) },
  { name: 'nested block quotes `> `', kind: 'block', build: (chars) => repeatTo('> ', chars - 1) + 'a' },
  {
    name: 'deeply nested lists',
    kind: 'block',
    build: (chars) => {
      let out = '';
      for (let depth = 0; out.length + 2 * depth + 4 <= chars; depth++) out += '  '.repeat(depth) + '* a\n';
      return out;
    },
  },
  { name: 'broken thematic break `* `', kind: 'block', build: (chars) => repeatTo('* ', chars - 1) + 'a' },
  {
    name: 'nested list items, then blank lines',
    kind: 'block',
    build: (chars) => '- '.repeat(Math.floor(chars / 4)) + 'a\n' + '\n'.repeat(Math.floor(chars / 2) - 2),
  },
  { name: 'link reference definitions `[n]: u`', kind: 'block', build: (chars) => numbered(chars, (index) => `[${index}]: u\n`) },
  { name: 'definitions with titles over two lines', kind: 'block', build: (chars) => numbered(chars, (index) => `[l${index}]:\n/u "t"\n`) },
  { name: 'one-word paragraphs `wN` + blank line', kind: 'block', build: (chars) => numbered(chars, (index) => `w${index}\n\n`) },
  // Many short paragraphs that each hold inline syntax: the fixed cost of deciding each one, by
  // the block scan's proof (content.ts) or by an inline pass (`&nbsp;`, `![](img.png)`, `` ` ` ``, `[]`).
  { name: 'paragraphs of `&amp;`', kind: 'block', build: run('&amp;\n\n') },
  { name: 'paragraphs of `&nbsp;`', kind: 'block', build: run('&nbsp;\n\n') },
  { name: 'paragraphs of `![](img.png)`', kind: 'block', build: run('![](img.png)\n\n') },
  { name: 'paragraphs of `*a*`', kind: 'block', build: run('*a*\n\n') },
  { name: 'paragraphs of `` `c` ``', kind: 'block', build: run('`c`\n\n') },
  { name: 'paragraphs of `` ` ` ``', kind: 'block', build: run('` `\n\n') },
  { name: 'paragraphs of `[a](b)`', kind: 'block', build: run('[a](b)\n\n') },
  { name: 'paragraphs of `[]`', kind: 'block', build: run('[]\n\n') },
  { name: 'one-line paragraph of 10,000+ lines', kind: 'block', build: (chars) => numbered(chars, (index) => `w${index}\n`) },
  { name: 'headings `# hN` (capped at 500 in the outline)', kind: 'block', build: (chars) => numbered(chars, (index) => `# h${index}\n`) },
];

/** Numbered units `unit(0) unit(1) ...` up to `chars` chars (never more). */
function numbered(chars: number, unit: (index: number) => string): string {
  const parts: string[] = [];
  let length = 0;
  for (let index = 0; ; index++) {
    const next = unit(index);
    if (length + next.length > chars) break;
    parts.push(next);
    length += next.length;
  }
  return parts.join('');
}

export const INLINE_POSITIONS: PathologicalPosition[] = ['atx', 'setext', 'paragraph'];

/** The definitions of `shape`'s labels for a note of `chars` chars, with the blank line after them. */
export function definitionLines(shape: PathologicalShape, chars: number): string {
  const defined = shape.labels?.(chars) ?? [];
  return defined.length === 0 ? '' : defined.map((label) => `[${label}]: u\n`).join('') + '\n';
}

/**
 * The note for `shape` at `position`, about `chars` chars long: never over it, except by the run's
 * one unit or the definitions when those alone are near the size (label chains at a few KB).
 */
export function pathologicalNote(shape: PathologicalShape, position: PathologicalPosition, chars: number): string {
  if (shape.kind === 'block') return shape.build(chars).slice(0, chars);
  const preamble = definitionLines(shape, chars);
  const head = position === 'atx' ? '# ' : position === 'paragraph' ? '# Title\n\n' : '';
  const tail = position === 'setext' ? '\n===' : '';
  const body = shape.build(chars - preamble.length - head.length - tail.length);
  return preamble + head + body + tail;
}

/** Every (shape, position) pair. */
export function pathologicalCases(): { shape: PathologicalShape; position: PathologicalPosition }[] {
  const cases: { shape: PathologicalShape; position: PathologicalPosition }[] = [];
  for (const shape of PATHOLOGICAL_SHAPES) {
    if (shape.kind === 'block') cases.push({ shape, position: 'block' });
    else for (const position of INLINE_POSITIONS) cases.push({ shape, position });
  }
  return cases;
}
