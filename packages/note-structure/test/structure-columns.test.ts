/**
 * The request path hands the builders StructureColumns (analyzeNoteColumns:
 * int32 columns, no object per heading or block), while the oracle side
 * builds from a NoteStructure. The payloads must be the oracle's either way,
 * and the two forms must convert into each other without loss.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTRACT_NAMES, buildAllContracts, buildContract, structureAnalyzer } from '../../../src/contracts';
import { analyzeNote, analyzeNoteColumns, columnsOf, structureOf, type NoteStructure } from '../../../src/contracts/analysis';
import { analyzeWithMdast } from '../../../scripts/lib/markdown/oracle';
import { grammarNote, nestedNote } from '../../support/markdown/arbitraries';

const PATH = 'notes/columns.md';
const FRONTMATTER = { title: 'Columns' };

function payloadsAgree(body: string): void {
  const oracle = buildAllContracts(PATH, FRONTMATTER, body, { analyze: structureAnalyzer(analyzeWithMdast) });
  for (const name of CONTRACT_NAMES) {
    expect(JSON.stringify(buildContract(name, PATH, FRONTMATTER, body)), name).toBe(JSON.stringify(oracle[name]));
  }
}

/** The definition, quadratic and direct: a substantive block starts between the heading's end and the next heading of the same or a shallower level. */
function referenceBodyAvailable({ headings, blocks }: NoteStructure): boolean[] {
  return headings.map((heading, index) => {
    const next = headings.slice(index + 1).find((candidate) => candidate.level <= heading.level);
    const windowEnd = next?.start ?? Number.POSITIVE_INFINITY;
    return blocks.some((block) => block.substantive && block.start !== null && block.start >= (heading.end ?? 0) && block.start < windowEnd);
  });
}

describe('StructureColumns on the request path', () => {
  it('gives the oracle payloads on generated block grammar and nesting (headings in containers, definitions, floods)', () => {
    fc.assert(fc.property(fc.oneof(grammarNote, nestedNote), payloadsAgree), { numRuns: 400, seed: 20261123 });
  }, 60_000);

  it('gives the oracle body_available for every window of a generated heading sequence', () => {
    const section = fc.record({
      level: fc.integer({ min: 1, max: 6 }),
      setext: fc.boolean(),
      body: fc.constantFrom('', 'w\n\n', '> q\n\n', '> # n\n\n', '- `c`\n\n', '*\n\n', '[r]: /u\n\n', '    code\n\n', '<!-- c -->\n\n'),
    });
    const note = fc.array(section, { minLength: 1, maxLength: 40 }).map((sections) =>
      sections.map(({ level, setext, body }, index) => (setext && level <= 2 ? `s${index}\n${level === 1 ? '===' : '---'}\n\n` : `${'#'.repeat(level)} h${index}\n\n`) + body).join(''),
    );
    fc.assert(
      fc.property(note, (body) => {
        payloadsAgree(body);
        const sections = buildContract('section_source', PATH, FRONTMATTER, body).sections;
        expect(sections.map((each) => each.body_available)).toEqual(referenceBodyAvailable(analyzeWithMdast(body)).slice(0, sections.length));
      }),
      { numRuns: 300, seed: 20261124 },
    );
  }, 60_000);

  it('gives the oracle payloads past the heading cap and for headings whose text decides a quote or item bit', () => {
    const headings = Array.from({ length: 520 }, (_, index) => `${'#'.repeat((index % 4) + 1)} h${index}\n\n${index % 3 === 0 ? '' : `w${index}\n\n`}`).join('');
    payloadsAgree(headings);
    payloadsAgree('> # *\n\n# a\n\n- # b\n- # `x`\n\n> # &amp;\n\n## c\n\n> ## [r]\n\n[r]: /u\n');
    payloadsAgree('[a]: /u\n[b]:\n/v "t"\n\n# x\n\nw\n\n# y\n\n[c]: /w\n');
  });

  it('converts to and from NoteStructure without loss (null offsets included)', () => {
    for (const body of ['# a\n\nb\n\n> # c\n', '[a]: /u\n\n## [a]\n\n- x\n', '']) {
      expect(structureOf(analyzeNoteColumns(body))).toEqual(analyzeNote(body));
      expect(structureOf(columnsOf(analyzeNote(body)))).toEqual(analyzeNote(body));
    }
    const withNulls = {
      headings: [{ level: 2, text: 't', start: null, end: null }, { level: 1, text: 'u', start: 4, end: 7 }],
      blocks: [{ start: null, substantive: true }, { start: 9, substantive: false }],
    };
    expect(structureOf(columnsOf(withNulls))).toEqual(withNulls);
  });
});
