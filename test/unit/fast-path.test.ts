/**
 * The fast analyzer must return exactly what the reference pipeline
 * (analyzeWithMdast) returns: on the shared corpus (structures and the four
 * payloads), on every CommonMark 0.31.2 example, and on generated notes.
 * Equality alone could be met by always falling back, so the tests also
 * require that the fast path is the one taken.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTRACTS, CONTRACT_NAMES, ContractError, decodeWireFrontmatter } from '../../src/contracts';
import { analyzeWithMdast, type NoteStructure } from '../../src/contracts/markdown';
import { analyzeFast, analyzeFastTraced, runContractsWith } from '../../src/contracts/fast';
import type { Frontmatter } from '../../src/contracts/types';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedRoot = path.resolve(repoRoot, '../shared');
const notesFile = path.join(sharedRoot, 'corpus', 'knowtation-notes.json');
const expectedFile = path.join(sharedRoot, 'corpus', 'knowtation-expected.json');
const corpusPresent = existsSync(notesFile) && existsSync(expectedFile);
if (!corpusPresent) console.warn(`fast-path: shared corpus not found under ${sharedRoot}; corpus parity tests skipped`);

interface CorpusNote {
  path: string;
  frontmatter: Record<string, unknown>;
  body: string;
}

type ExpectedEntry = Record<string, unknown>;

/** The structure both pipelines produce, or the first difference found. */
function compare(body: string): { fast: NoteStructure; reference: NoteStructure; path: string } {
  const traced = analyzeFastTraced(body);
  return { fast: traced.structure, reference: analyzeWithMdast(body), path: traced.path };
}

describe.skipIf(!corpusPresent)('fast path on the shared corpus', () => {
  const notes: CorpusNote[] = corpusPresent ? JSON.parse(readFileSync(notesFile, 'utf8')) : [];
  const expected: ExpectedEntry[] = corpusPresent ? JSON.parse(readFileSync(expectedFile, 'utf8')) : [];

  it('gives the reference structure for every note body, without falling back', () => {
    expect(notes.length).toBeGreaterThan(100);
    const fallbacks: string[] = [];
    for (const note of notes) {
      const { fast, reference, path: taken } = compare(note.body);
      expect(fast, note.path).toStrictEqual(reference);
      if (taken !== 'fast') fallbacks.push(note.path);
    }
    expect(fallbacks).toEqual([]);
  }, 60_000);

  it('yields the four reference payloads, through the helper and through CONTRACTS', () => {
    expect(expected.length).toBe(notes.length);
    notes.forEach((note, index) => {
      const frontmatter = decodeWireFrontmatter(JSON.stringify(note.frontmatter)) as Frontmatter;
      const payloads = runContractsWith(analyzeFast, note.path, frontmatter, note.body);
      for (const name of CONTRACT_NAMES) {
        const want = JSON.stringify(expected[index][`get_${name}`]);
        expect(JSON.stringify(payloads[name]), `${note.path} ${name}`).toBe(want);
        expect(JSON.stringify(CONTRACTS[name](note.path, frontmatter, note.body)), `${note.path} ${name} (CONTRACTS)`).toBe(want);
      }
    });
  }, 60_000);
});

describe('fast path on the CommonMark 0.31.2 examples', () => {
  const tests = (createRequire(import.meta.url)('commonmark-spec') as { tests: { markdown: string; number: number }[] }).tests;

  it('gives the reference structure for every example, without falling back', () => {
    expect(tests.length).toBe(652);
    const fallbacks: number[] = [];
    for (const example of tests) {
      const markdown = example.markdown.replace(/→/g, '\t');
      const { fast, reference, path: taken } = compare(markdown);
      expect(fast, `example ${example.number}`).toStrictEqual(reference);
      if (taken !== 'fast') fallbacks.push(example.number);
    }
    expect(fallbacks).toEqual([]);
  }, 60_000);
});

// ---------------------------------------------------------------- generated notes

const indent = fc.constantFrom('', '', '', ' ', '  ', '   ', '    ', '     ', '\t', ' \t', '  \t', '\t\t');
const containerPrefix = fc.constantFrom(
  '>', '> ', '>  ', '>\t', '- ', '-', '-\t', '-   ', '-     ', '* ', '+ ', '1. ', '1.\t', '2) ', '1) ', '10. ', '0. ',
);
const blockStart = fc.constantFrom(
  // headings (ATX, setext underlines), thematic breaks
  '# ', '## ', '###### ', '####### ', '#', '#\t', '#5', '===', '=', '--', '-', '---', '***', '___', '- - -', '* * *',
  // fences
  '```', '````', '~~~', '```js', '``` a`b', '~~~ x`y',
  // html blocks of the seven kinds and their ends
  '<script>', '</style>', '<pre>', '</pre>', '<!-- ', '-->', '<!-->', '<?', '?>', '<!A', '<![CDATA[', ']]>', '<div>',
  '</div>', '<div/>', '<a href="x">', '<a b=c=d>', '<a>', '</a>', '<span', '<x-y z>',
  // link reference definitions, whole and split over lines
  '[foo]: /url', '[foo]: /url "title"', '[foo]:', '[Foo]:\t<a b>', '/url', '"title"', "'t'", '(t)', '[bar]: (x) y',
  '[a\\]]: x', '[ ]: x', '\\[foo]: x',
  // inline content
  '[foo]', '[Foo]', '![img](x)', '![](x)', '[](x)', '&nbsp;', '&amp;', '`code`', '*em*', '_em_', '**strong**', '\\', '\\#',
  '<http://a.b>', '[x][foo]', '[x](y "t")', 'text', 'foo bar', 'a', '1.', '2.', ' ', '', '\u00a0', 'é',
);
const lineTail = fc.constantFrom('', '', '', 'x', ' text', ' #', ' ##', '  ', '\t', ' *a*', ' [foo]', ' `c`', ']', ' -->', ' ?>', ' >', ' </pre>', ' ]]>', '"');
const grammarLine = fc
  .tuple(indent, fc.array(fc.tuple(containerPrefix, indent), { maxLength: 3 }), blockStart, lineTail)
  .map(([lead, prefixes, start, tail]) => lead + prefixes.map(([prefix, gap]) => prefix + gap).join('') + start + tail);
const lineEnding = fc.constantFrom('\n', '\n', '\n', '\n', '\r\n', '\r');
/** Lines from a grammar of block starts: indentation, container markers, leaf starts, lazy and blank lines. */
const grammarNote = fc
  .tuple(fc.array(grammarLine, { minLength: 1, maxLength: 14 }), lineEnding)
  .map(([lines, ending]) => lines.join(ending));

const inlinePiece = fc.constantFrom(
  '[foo]', '[Foo]', '[FOO ]', '[bar]', '![foo]', '![](x)', '[](x)', '![]', '[![](a)](b)', '&nbsp;', '&#32;', '&#x2003;', '&amp;',
  '&bogus;', '` `', '``a``', '<!-- -->', '<b>', '</b>', '<http://a.b>', '<a@b.c>', '*', '**', '_', '__', '\\', '\\*', ' ',
  '\t', 'a', 'é', '\u00a0', '\u3000', '[x][foo]', '[x][]', '[x](y "t")', '[x](<y z>)', '![a *b*](c)', '\\[foo]', '[foo]:',
  '"t"', '(', ')', ']', '#', 'e\u0301', '\u2028',
);
const inlineText = fc.array(inlinePiece, { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(''));
const definitionText = fc.constantFrom(
  '[foo]: /url', '[Foo]: /url "t"', '[foo]:\n/url', '[foo]: /url\n"title"', '[foo\nbar]: /u', '[bar]: <x y>', "[bar]: /u 'a\nb'",
  '[foo]: /u (x(y)', '[ foo ]: x', '[foo]: x "t" junk', '[foo]: <>', '[foo]: a(b)c', '[foo]: a(b', '[\\]]: x',
  '[foo]: /url\n===', '[foo]: /url\nbar\n===', '[foo]: /url\n---',
);
const inlineLeaf = fc.oneof(
  inlineText,
  inlineText.map((text) => `# ${text}`),
  inlineText.map((text) => `## ${text} ##`),
  fc.tuple(inlineText, inlineText).map(([first, second]) => `${first}\n${second}\n===`),
  fc.tuple(inlineText, fc.constantFrom('---', '-', '=', '  ===  ')).map(([text, underline]) => `${text}\n${underline}`),
  definitionText,
  fc.constantFrom('', '```', '~~~', '<div>', '---', '    code', '\u00a0'),
);
/** Inline-heavy notes: references with and without definitions, empty links and images, entities, code spans. */
const inlineNote = fc
  .tuple(
    fc.array(
      fc.tuple(fc.constantFrom('', ' ', '   ', '    ', '\t'), fc.array(fc.constantFrom('> ', '>', '- ', '* ', '1. ', '2) ', '  '), { maxLength: 3 }), inlineLeaf)
        .map(([lead, prefixes, leaf]) => lead + prefixes.join('') + leaf),
      { minLength: 1, maxLength: 12 },
    ),
    fc.constantFrom('\n', '\n', '\r\n'),
  )
  .map(([lines, ending]) => lines.join('\n').replace(/\n/g, ending));

const headingChar = fc.constantFrom('*', '*', '*', '_', '_', '_', '`', '`', 'a', 'b', ' ', ' ', '.', '!', ']', '(', '"', 'é', '—', '\u00a0', '\t', '1', '¡', '$', '💡', '\u3000', '#', '-');
const headingContent = fc.array(headingChar, { minLength: 1, maxLength: 18 }).map((chars) => chars.join(''));
/** Headings whose text is decided by emphasis and code-span rules (flanking, rule of 3, backtick runs). */
const emphasisNote = fc.oneof(
  headingContent.map((content) => `# ${content}`),
  fc.tuple(headingContent, headingContent).map(([first, second]) => `${first}\n${second}\n===`),
  fc.tuple(headingContent, headingContent).map(([first, second]) => `> ${first}\n> ${second}\n> ---`),
  fc.tuple(headingContent, headingContent).map(([first, second]) => `- ## ${first}\n\n${second}`),
);

const rawChar = fc.constantFrom(
  '#', '>', '-', '*', '+', '1', '2', '.', ')', ' ', ' ', ' ', '\t', '`', '~', '<', '[', ']', ':', '=', '_', 'a', 'b', '!', '(', '"',
  "'", '\\', '&', ';', '/', '\n', '\n', '\u00a0', 'x',
);
const rawChunk = fc.constantFrom(
  '<div>', '<!--', '-->', '<pre>', '</pre>', '<a b="c">', '```', '~~~', '[a]: b', '[a]', '&nbsp;', '<?', '?>', '<!X', ']]>', '<![CDATA[',
  '    ', '\n\n', '</a>', '- ', '1. ', '> ',
);
/** Character soup over Markdown-significant characters, for what the grammars do not think of. */
const rawNote = fc
  .array(fc.oneof({ weight: 4, arbitrary: rawChar }, { weight: 1, arbitrary: rawChunk }), { maxLength: 60 })
  .map((pieces) => pieces.join(''));

const nestingMarker = fc.constantFrom('- ', '* ', '+ ', '1. ', '2. ', '1) ', '> ', '>', '-\t', '10. ', '-    ', '- ');
const nestingContent = fc.constantFrom(
  'text', '# h *a*', '## h `c`', '```', '~~~', 'code x', '    indented', '<div>', '<b>', '<!-- c -->', '---', '===', '[foo]: /u',
  '[foo]', '', '', '  ', '\u00a0', '![](x)', 'a\\', '2. x', '- ', '-', '> q', '   | a | b |',
);
const nestingStep = fc.record({
  depth: fc.nat(4),
  newMarker: fc.boolean(),
  marker: nestingMarker,
  dropOne: fc.nat(3),
  content: nestingContent,
  gap: fc.constantFrom('', '', ' ', '  ', '\t', '     '),
});
/**
 * Deep list/quote nesting: each line re-enters the open containers with the
 * indentation their items need (or drops the innermost one, for lazy lines),
 * then maybe opens another, so items, siblings and nested lists really form.
 */
const nestedNote = fc.array(nestingStep, { minLength: 1, maxLength: 16 }).map((steps) => {
  const open: string[] = [];
  const lines: string[] = [];
  for (const step of steps) {
    while (open.length > step.depth) open.pop();
    let prefix = '';
    const kept = Math.max(0, open.length - (step.dropOne === 0 ? 1 : 0));
    for (let index = 0; index < kept; index++) {
      prefix += open[index].startsWith('>') ? '> ' : ' '.repeat(open[index].replace('\t', '   ').length);
    }
    if (step.newMarker || open.length === 0) {
      prefix += step.marker;
      open.push(step.marker);
    }
    lines.push(prefix + step.gap + step.content);
  }
  return lines.join('\n');
});

function expectParity(arbitrary: fc.Arbitrary<string>, numRuns: number, seed: number): void {
  let fast = 0;
  fc.assert(
    fc.property(arbitrary, (markdown) => {
      const { fast: got, reference, path: taken } = compare(markdown);
      if (taken === 'fast') fast++;
      expect(got).toStrictEqual(reference);
    }),
    { numRuns, seed },
  );
  // The scanner must prove (not decline) nearly every generated note.
  expect(fast / numRuns).toBeGreaterThan(0.99);
}

describe('fast path on generated notes (fast-check, 14,000 runs)', () => {
  it('block grammar: containers, indentation and tabs, fences, html kinds, setext, definitions, lazy lines', () => {
    expectParity(grammarNote, 6000, 20261121);
  }, 60_000);

  it('inline-heavy notes: references, definitions across lines, empty links and images, entities', () => {
    expectParity(inlineNote, 2000, 20261122);
  }, 60_000);

  it('headings decided by emphasis and code-span rules', () => {
    expectParity(emphasisNote, 2000, 20261123);
  }, 60_000);

  it('character soup', () => {
    expectParity(rawNote, 2000, 20261124);
  }, 60_000);

  it('deep list and quote nesting with item indentation, siblings and lazy lines', () => {
    expectParity(nestedNote, 2000, 20261125);
  }, 60_000);
});

describe('fallback and limits', () => {
  const declined: [string, string][] = [
    ['a NUL character', '# Title\n\nbody\0text\n'],
    ['a byte order mark', '\uFEFF# Title\n\ntext\n'],
    ['containers nested deeper than the scanner follows', `${'> '.repeat(40)}# Deep\n\ntext\n`],
    ['a definition label longer than the scanner measures', `[${'x'.repeat(600)}]: /url\n\n# [${'x'.repeat(600)}]\n`],
    ['a paragraph with more nesting delimiters than the inline budget', `# Title\n\ntext ${'[x '.repeat(4200)}\n`],
  ];

  it.each(declined)('declines %s and answers with the reference pipeline', (_what, body) => {
    const traced = analyzeFastTraced(body);
    expect(traced.path).toBe('fallback');
    expect(traced.reason).toBeTruthy();
    expect(traced.structure).toStrictEqual(analyzeWithMdast(body));
  });

  it('refuses a body over the input cap exactly as the reference does', () => {
    const body = 'x'.repeat(1_000_001);
    expect(() => analyzeFast(body)).toThrow(ContractError);
    expect(() => analyzeFast(body)).toThrow('Note too large');
    expect(() => analyzeWithMdast(body)).toThrow('Note too large');
    expect(analyzeFastTraced('x'.repeat(1_000_000)).path).toBe('fast');
  });

  it('matches the reference on the cases micromark and commonmark.js disagree on', () => {
    const micromarkQuirks = [
      '> foo\n<a href="x">\n# h', // lazy condition-7 html stays inside the quote
      '> foo\n<a href="x">', // ...unless it ends the note without a line ending
      '- a\n<b>\n  c', // and it continues on the item's next line
      '    code\n\n2. x', // the interrupt flag survives indented code's blank-line lookahead
      'a\n> -', // and a nested container start on the same line
      '># \n \t# \n    # ', // indented code begun on a lazy line is one line
      '[a]: /b\nFoo\n===', // a setext heading starts at its definitions
      '[a]: /b\n===', // definitions only: the underline is a paragraph
    ];
    for (const body of micromarkQuirks) {
      const traced = analyzeFastTraced(body);
      expect(traced.path, JSON.stringify(body)).toBe('fast');
      expect(traced.structure, JSON.stringify(body)).toStrictEqual(analyzeWithMdast(body));
    }
  });
});

describe('fast analyzer portability', () => {
  it('uses no Node API and does no I/O (it runs in workerd)', () => {
    const dir = path.join(repoRoot, 'src/contracts/fast');
    const sources = readdirSync(dir).filter((file) => file.endsWith('.ts'));
    expect(sources.length).toBeGreaterThan(0);
    for (const file of sources) {
      const source = readFileSync(path.join(dir, file), 'utf8');
      expect(source, file).not.toMatch(/from ['"]node:|require\(|\bprocess\.|\bBuffer\b|\bfetch\(|globalThis/);
    }
  });
});
