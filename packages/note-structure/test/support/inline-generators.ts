/**
 * fast-check generators for the inline differential tests: token soups biased toward every
 * character that can start or end inline syntax, with defined and undefined reference labels,
 * entities, raw HTML pieces, Unicode punctuation and whitespace, and line breaks.
 */
import fc from 'fast-check';

export const LABEL_POOL = ['x', 'y', 'Foo', 'a b', 'ẞ', '*x*', 'x\\]'];

const SYNTAX = [
  '*', '*', '**', '***', '_', '_', '__', '[', '[', ']', ']', '![', '](', '(', ')', '`', '`', '``', '<', '>', '&', ';',
  '#', '\\', '\\', '"', "'", '!', '=', '/', ':', '@', '.', '-', '?',
];
const WORDS = ['a', 'b', 'foo', 'x', 'y', 'Foo', 'a b', '1', 'ẞ', 'é', 'http', 'mailto'];
const SPACES = [' ', ' ', '  ', '   ', '\t', '\n', '\n', '  \n', '\\\n', ' \n  '];
const PIECES = [
  '&amp;', '&copy;', '&#35;', '&#x41;', '&#0;', '&#X1F600;', '&bogus;', '&#12345678;', '&nbsp;', '&ngE;', '&amp',
  '<a>', '</a>', '<a href="x">', "<b c='d'/>", '<a b=c>', '<!-- c -->', '<!-->', '<!--->', '<?p?>', '<!X y>',
  '<![CDATA[x]]>', '-->', '?>', ']]>', '<http://a.b/c>', '<a@b.c>', '<foo:bar>', '<a\nb>',
  '[x]', '[y]', '[x][y]', '[y][]', '[Foo]', '[a  b]', '(/u)', '(/u "t")', "(<a b> 't')", '(x (y) z)', '[]',
  '“', '”', '¡', '€', '—', '·', '\u00a0', '\u2003', '\u3000', '😀', '𝐀', '\u0301', '\0', 'ß',
];

const token = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SYNTAX) },
  { weight: 4, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 3, arbitrary: fc.constantFrom(...SPACES) },
  { weight: 3, arbitrary: fc.constantFrom(...PIECES) },
);

export interface InlineCase {
  lines: string[];
  labels: string[];
}

/** Splits generated text into non-blank content lines. */
export function toLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

export const inlineCase: fc.Arbitrary<InlineCase> = fc
  .record({
    tokens: fc.array(token, { minLength: 1, maxLength: 40 }),
    labels: fc.subarray(LABEL_POOL),
  })
  .map(({ tokens, labels }) => ({ lines: toLines(tokens.join('')), labels }))
  .filter((c) => c.lines.length > 0);
