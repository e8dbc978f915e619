/**
 * The contracts publish the texts of the first MAX_NOTE_HEADINGS headings
 * only, so they ask analyzeNote for those texts alone; every later heading
 * keeps its level and offsets (truncation and body_available windows) with
 * text ''. The payloads must be the ones the full analysis gives.
 */
import { describe, expect, it } from 'vitest';
import { analyzeNote } from '../../../src/contracts/analysis/analyze';
import { CONTRACT_NAMES, MAX_NOTE_HEADINGS, buildAllContracts, structureAnalyzer } from '../../../src/contracts';

function noteWithHeadings(count: number): string {
  const lines: string[] = ['[r]: /u', ''];
  for (let index = 0; index < count; index++) {
    lines.push(`${'#'.repeat((index % 3) + 1)} *h${index}* [r] \`c\` &amp;`, '', index % 4 === 0 ? '' : `body ${index}`, '');
  }
  return lines.join('\n');
}

describe('analyzeNote with a heading text limit', () => {
  it('differs from the full analysis only in the texts past the limit', () => {
    const body = noteWithHeadings(MAX_NOTE_HEADINGS + 40);
    const full = analyzeNote(body);
    const limited = analyzeNote(body, MAX_NOTE_HEADINGS);
    expect(limited.blocks).toEqual(full.blocks);
    expect(limited.headings.map(({ level, start, end }) => ({ level, start, end }))).toEqual(full.headings.map(({ level, start, end }) => ({ level, start, end })));
    expect(limited.headings.slice(0, MAX_NOTE_HEADINGS)).toEqual(full.headings.slice(0, MAX_NOTE_HEADINGS));
    expect(limited.headings.slice(MAX_NOTE_HEADINGS).every((heading) => heading.text === '')).toBe(true);
    expect(full.headings[MAX_NOTE_HEADINGS]?.text).toBe(`h${MAX_NOTE_HEADINGS} r c &`);
  });

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
