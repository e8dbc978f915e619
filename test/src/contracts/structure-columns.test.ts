/**
 * buildContract builds from the engine's StructureColumns with the heading
 * text limit (the request path); the payloads must be the ones built from
 * the full NoteStructure, and body_available must follow its definition
 * window by window.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeNote, type NoteStructure } from '@knowtation/note-structure';
import { CONTRACT_NAMES, buildAllContracts, buildContract, structureAnalyzer } from '../../../src/contracts';

const PATH = 'notes/columns.md';
const FRONTMATTER = { title: 'Columns' };

function payloadsAgree(body: string): void {
  const fromStructure = buildAllContracts(PATH, FRONTMATTER, body, { analyze: structureAnalyzer(analyzeNote) });
  for (const name of CONTRACT_NAMES) {
    expect(JSON.stringify(buildContract(name, PATH, FRONTMATTER, body)), name).toBe(JSON.stringify(fromStructure[name]));
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

describe('payloads from StructureColumns on the request path', () => {
  it('give body_available by its definition for every window of a generated heading sequence', () => {
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
        expect(sections.map((each) => each.body_available)).toEqual(referenceBodyAvailable(analyzeNote(body)).slice(0, sections.length));
      }),
      { numRuns: 300, seed: 20261124 },
    );
  }, 60_000);

  it('are the full structure\'s past the heading cap and for headings whose text decides a quote or item bit', () => {
    const headings = Array.from({ length: 520 }, (_, index) => `${'#'.repeat((index % 4) + 1)} h${index}\n\n${index % 3 === 0 ? '' : `w${index}\n\n`}`).join('');
    payloadsAgree(headings);
    payloadsAgree('> # *\n\n# a\n\n- # b\n- # `x`\n\n> # &amp;\n\n## c\n\n> ## [r]\n\n[r]: /u\n');
  });
});
