/**
 * The contracts publish the texts of the first MAX_NOTE_HEADINGS headings
 * only, so buildContract asks the analysis for those texts alone; every later
 * heading keeps its level and offsets (truncation and body_available
 * windows) with text ''. The payloads must be the ones the full analysis gives.
 */
import { describe, expect, it } from 'vitest';
import { analyzeNote } from '@knowtation/note-structure';
import { CONTRACT_NAMES, MAX_NOTE_HEADINGS, buildAllContracts, structureAnalyzer } from '../../../src/contracts';

/** A note of `count` headings whose texts each take an inline pass (emphasis, a reference, code, an entity). */
const noteWithHeadings = (count: number): string =>
  ['[r]: /u\n', ...Array.from({ length: count }, (_, index) => `${'#'.repeat((index % 3) + 1)} *h${index}* [r] \`c\` &amp;\n\n${index % 4 === 0 ? '' : `body ${index}\n`}`)].join('\n');

describe('buildContract with the heading text limit', () => {
  it('leaves every payload as the full analysis makes it, below, at and past the cap', () => {
    for (const count of [3, MAX_NOTE_HEADINGS, MAX_NOTE_HEADINGS + 1, MAX_NOTE_HEADINGS + 40]) {
      const body = noteWithHeadings(count);
      const limited = buildAllContracts('notes/a.md', {}, body);
      // structureAnalyzer asks for every heading text: the full analysis.
      const full = buildAllContracts('notes/a.md', {}, body, { analyze: structureAnalyzer(analyzeNote) });
      for (const name of CONTRACT_NAMES) expect(JSON.stringify(limited[name]), `${name}, ${count} headings`).toBe(JSON.stringify(full[name]));
    }
  });
});
