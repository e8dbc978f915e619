/**
 * A caller that publishes the texts of its first headings only asks for
 * those texts alone (analyzeNote's `textLimit`); every later heading keeps
 * its level and offsets with text '' and costs no inline work.
 */
import { describe, expect, it } from 'vitest';
import { analyzeNote } from '../src/analyze';

/** The limit the Worker asks for (its outline publishes 500 headings); any limit behaves alike. */
const LIMIT = 500;

function noteWithHeadings(count: number): string {
  const lines: string[] = ['[r]: /u', ''];
  for (let index = 0; index < count; index++) {
    lines.push(`${'#'.repeat((index % 3) + 1)} *h${index}* [r] \`c\` &amp;`, '', index % 4 === 0 ? '' : `body ${index}`, '');
  }
  return lines.join('\n');
}

describe('analyzeNote with a heading text limit', () => {
  it('differs from the full analysis only in the texts past the limit', () => {
    const body = noteWithHeadings(LIMIT + 40);
    const full = analyzeNote(body);
    const limited = analyzeNote(body, LIMIT);
    expect(limited.blocks).toEqual(full.blocks);
    expect(limited.headings.map(({ level, start, end }) => ({ level, start, end }))).toEqual(full.headings.map(({ level, start, end }) => ({ level, start, end })));
    expect(limited.headings.slice(0, LIMIT)).toEqual(full.headings.slice(0, LIMIT));
    expect(limited.headings.slice(LIMIT).every((heading) => heading.text === '')).toBe(true);
    expect(full.headings[LIMIT]?.text).toBe(`h${LIMIT} r c &`);
  });
});
