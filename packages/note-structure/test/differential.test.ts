/**
 * Differential tests: the linear analysis must return exactly the
 * NoteStructure the micromark oracle (analyzeWithMdast) returns: on every
 * CommonMark 0.31.2 example, the shared corpus, fixed-seed generated notes,
 * every pathological shape of cmark and md4c at a size micromark still
 * finishes, and every input that once diverged (test/regressions.md).
 * The offline run of the same generators is `npm run differential` (test/offline/differential.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NoteTooLargeError, analyzeNote } from '../src';
import { analyzeWithMdast } from '../dev/oracle';
import {
  deepNestingNote, emphasisNote, grammarNote, inlineFloodNote, inlineNote, nestedNote, preprocessNote, rawNote,
} from './support/arbitraries';
import { differential } from './support/differential';
import { pathologicalCases, pathologicalNote } from '../src/pathological';
import { readRegressions } from './support/regressions';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The project's shared corpus, beside the repository that holds this package.
const sharedRoot = path.resolve(packageRoot, '../../../shared');
const notesFile = path.join(sharedRoot, 'corpus', 'knowtation-notes.json');
const corpusPresent = existsSync(notesFile);
if (!corpusPresent) console.warn(`differential: shared corpus not found under ${sharedRoot}; corpus tests skipped`);

describe.skipIf(!corpusPresent)('linear analysis on the shared corpus', () => {
  const notes: { path: string; body: string }[] = corpusPresent ? JSON.parse(readFileSync(notesFile, 'utf8')) : [];

  it('gives the oracle structure for every note body', () => {
    expect(notes.length).toBeGreaterThan(100);
    for (const note of notes) expect(differential(note.body), note.path).toBeNull();
  }, 60_000);
});

describe('linear analysis on the CommonMark 0.31.2 examples', () => {
  const tests = (createRequire(import.meta.url)('commonmark-spec') as { tests: { markdown: string; number: number }[] }).tests;

  it('gives the oracle structure for every example', () => {
    expect(tests.length).toBe(652);
    for (const example of tests) {
      expect(differential(example.markdown.replace(/→/g, '\t')), `example ${example.number}`).toBeNull();
    }
  }, 60_000);
});

function expectParity(arbitrary: fc.Arbitrary<string>, numRuns: number, seed: number): void {
  fc.assert(
    fc.property(arbitrary, (markdown) => {
      expect(differential(markdown)).toBeNull();
    }),
    { numRuns, seed },
  );
}

describe('linear analysis on generated notes (fast-check, fixed seeds)', () => {
  it('block grammar: containers, indentation and tabs, fences, html kinds, setext, definitions, lazy lines', () => {
    expectParity(grammarNote, 1500, 20261121);
  }, 60_000);

  it('inline-heavy notes: references, definitions across lines, empty links and images, entities', () => {
    expectParity(inlineNote, 600, 20261122);
  }, 60_000);

  it('inline floods: delimiters, brackets, code spans, html, entities, escapes, references', () => {
    expectParity(inlineFloodNote, 1500, 20261126);
  }, 60_000);

  it('headings decided by emphasis and code-span rules', () => {
    expectParity(emphasisNote, 800, 20261123);
  }, 60_000);

  it('character soup', () => {
    expectParity(rawNote, 1000, 20261124);
  }, 60_000);

  it('list and quote nesting with item indentation, siblings and lazy lines', () => {
    expectParity(nestedNote, 600, 20261125);
  }, 60_000);

  it('containers nested deeper than 32, then continued, lazy and blank lines', () => {
    expectParity(deepNestingNote, 100, 20261127);
  }, 60_000);

  it('a leading BOM, NUL, CR and CRLF, tabs in prefixes and labels', () => {
    expectParity(preprocessNote, 600, 20261128);
  }, 60_000);
});

describe('pathological shapes of cmark and md4c at 2 KB (block shapes 1 KB), in every position', () => {
  it.each(pathologicalCases().map(({ shape, position }) => [shape.name, position, shape] as const))(
    '%s (%s)',
    (_name, position, shape) => {
      expect(differential(pathologicalNote(shape, position, shape.kind === 'block' ? 1_000 : 2_000))).toBeNull();
    },
  );
});

describe('regressions: every example of test/regressions.md', () => {
  const regressions = readRegressions();

  it('reads the examples', () => {
    expect(regressions.length).toBeGreaterThanOrEqual(25);
  });

  it.each(regressions.map(({ title, line, markdown }) => [title, line, markdown] as const))('%s (line %i)', (_title, _line, markdown) => {
    expect(differential(markdown)).toBeNull();
  });
});

describe('inputs too long to write out as regressions, and the input cap', () => {
  const cases: [string, string][] = [
    ['a label of 999 codes', `[${'x'.repeat(999)}]: /url\n\n# [${'x'.repeat(999)}]\n`],
    ['a label of 1,000 codes', `[${'x'.repeat(1000)}]: /url\n\n# [${'x'.repeat(1000)}]\n`],
    ['a label whose tab makes it 1,000 codes', `[\t${'x'.repeat(996)}]: /url\n\n# x\n`],
    ['4,200 link openers in one paragraph', `# Title\n\ntext ${'[x '.repeat(4200)}\n`],
  ];

  it.each(cases)('%s', (_what, body) => {
    expect(differential(body)).toBeNull();
  });

  it('refuses a body over the input cap exactly as the oracle does', () => {
    const body = 'x'.repeat(1_000_001);
    expect(() => analyzeNote(body)).toThrow(NoteTooLargeError);
    expect(() => analyzeNote(body)).toThrow('Note too large');
    expect(() => analyzeWithMdast(body)).toThrow(NoteTooLargeError);
    expect(analyzeNote('x'.repeat(1_000_000)).blocks).toHaveLength(1);
  });
});

describe('portability', () => {
  it('uses no Node API, does no I/O and imports no micromark or mdast (it runs in workerd)', () => {
    const dir = path.join(packageRoot, 'src');
    const sources = readdirSync(dir).filter((file) => file.endsWith('.ts'));
    expect(sources).toContain('index.ts');
    for (const file of sources) {
      const source = readFileSync(path.join(dir, file), 'utf8');
      expect(source, file).not.toMatch(/from ['"]node:|require\(|\bprocess\.|\bBuffer\b|\bfetch\(|globalThis/);
      // No parser in the engine: not micromark itself, not mdast (micromark's character-class util is a table).
      for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        expect(specifier, file).not.toMatch(/^(micromark|mdast|mdast-util-[a-z-]+)$/);
        expect(specifier, `${file} imports only its own folder and its dependencies`).not.toMatch(/^\.\.\//);
      }
      expect(source.split('\n').length, `${file} stays under ~600 lines`).toBeLessThanOrEqual(650);
    }
  });
});
