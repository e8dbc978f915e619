/**
 * The pathological inputs of cmark's and md4c's test/pathological_tests.py
 * (plus the shapes issue 10 measured), rebuilt from their descriptions and
 * scaled to a target size, and placed where a note can hold them: an ATX
 * heading, a setext heading or a paragraph (inline shapes), or as the
 * whole note (block shapes). Used by the differential tests at sizes
 * micromark still finishes and by `npm run bench` at 100 KB and 1M chars.
 */

export type Position = 'atx' | 'setext' | 'paragraph' | 'block';

export interface Shape {
  name: string;
  /** Inline shapes go in every inline position; block shapes are the note. */
  kind: 'inline' | 'block';
  /** A run of about `chars` chars (never more), on one line for inline shapes. */
  build(chars: number): string;
  /** Lines placed before the note (definitions the run refers to), at most a tenth of the size. */
  preamble?(chars: number): string;
}

const repeatTo = (unit: string, chars: number): string => unit.repeat(Math.max(1, Math.floor(chars / unit.length)));
const run = (unit: string) => (chars: number) => repeatTo(unit, chars);

export const SHAPES: Shape[] = [
  {
    name: 'nested strong emph',
    kind: 'inline',
    build: (chars) => {
      const half = Math.max(1, Math.floor((chars - 1) / 14));
      return '*a **a '.repeat(half) + 'b' + ' a** a*'.repeat(half);
    },
  },
  { name: 'emph closers, no openers `a_ `', kind: 'inline', build: run('a_ ') },
  { name: 'emph openers, no closers `_a `', kind: 'inline', build: run('_a ') },
  { name: '3-emph openers `a***`', kind: 'inline', build: run('a***') },
  { name: 'link closers, no openers `a]`', kind: 'inline', build: run('a]') },
  { name: 'link openers, no closers `[a`', kind: 'inline', build: run('[a') },
  { name: 'mismatched openers and closers `*a_ `', kind: 'inline', build: run('*a_ ') },
  { name: 'openers and closers multiple of 3', kind: 'inline', build: (chars) => 'a**b' + repeatTo('c* ', chars - 4) },
  { name: 'link openers and emph closers `[ a_`', kind: 'inline', build: run('[ a_') },
  { name: 'hard link/emph case', kind: 'inline', build: run('**x [a*b**c*](d) ') },
  {
    name: 'nested brackets',
    kind: 'inline',
    build: (chars) => {
      const half = Math.max(1, Math.floor((chars - 1) / 2));
      return '['.repeat(half) + 'a' + ']'.repeat(half);
    },
  },
  {
    name: 'nested invalid link references',
    kind: 'inline',
    build: (chars) => '['.repeat(Math.floor(chars / 2)) + ']'.repeat(Math.floor(chars / 2)),
    preamble: () => '[a]: /b\n\n',
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
  { name: 'broken link titles `[ (](`', kind: 'inline', build: run('[ (](') },
  {
    name: 'many references `[0] `',
    kind: 'inline',
    build: run('[0] '),
    preamble: (chars) => {
      let out = '';
      for (let index = 0; out.length < chars / 10; index++) out += `[${index}]: u\n`;
      return out + '\n';
    },
  },
  { name: 'html openers and closers `<>`', kind: 'inline', build: run('<>') },
  { name: 'processing instruction openers `<?`', kind: 'inline', build: (chars) => 'x' + repeatTo('<?', chars - 1) },
  { name: 'CDATA openers', kind: 'inline', build: (chars) => 'x' + repeatTo('<![CDATA[', chars - 1) },
  { name: 'declaration openers `<!A`', kind: 'inline', build: (chars) => 'x' + repeatTo('<!A', chars - 1) },
  { name: 'comment openers `<!--`', kind: 'inline', build: (chars) => 'x' + repeatTo('<!--', chars - 1) },
  { name: 'entity-like runs `&#3;&x`', kind: 'inline', build: run('&#3;&amp&x') },
  { name: 'autolink openers `<a:`', kind: 'inline', build: run('<a:b ') },
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
];

export const INLINE_POSITIONS: Position[] = ['atx', 'setext', 'paragraph'];

/** The note for `shape` at `position`, about `chars` chars long and never over it. */
export function pathologicalNote(shape: Shape, position: Position, chars: number): string {
  if (shape.kind === 'block') return shape.build(chars).slice(0, chars);
  const preamble = shape.preamble?.(chars) ?? '';
  const head = position === 'atx' ? '# ' : position === 'paragraph' ? '# Title\n\n' : '';
  const tail = position === 'setext' ? '\n===' : '';
  const body = shape.build(chars - preamble.length - head.length - tail.length);
  return preamble + head + body + tail;
}

/** Every (shape, position) pair. */
export function pathologicalCases(): { shape: Shape; position: Position }[] {
  const cases: { shape: Shape; position: Position }[] = [];
  for (const shape of SHAPES) {
    if (shape.kind === 'block') cases.push({ shape, position: 'block' });
    else for (const position of INLINE_POSITIONS) cases.push({ shape, position });
  }
  return cases;
}
