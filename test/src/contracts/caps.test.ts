import { describe, expect, it } from 'vitest';
import { buildContract, MAX_NOTE_HEADINGS, MAX_NOTE_INPUT_CHARS } from '../../../src/contracts';
import { expectNoteTooLarge } from './expect-contract-error';

const PATH = 'inbox/big.md';
const headingBody = (count: number): string => Array.from({ length: count }, (_, i) => `## H${i + 1}`).join('\n') + '\n';

describe('heading cap (openapi.yaml NoteOutline: caps and ids)', () => {
  it('exports the reference caps', () => {
    expect(MAX_NOTE_HEADINGS).toBe(500);
    expect(MAX_NOTE_INPUT_CHARS).toBe(1_000_000);
  });

  it('returns all 500 headings of a 500-heading note, not truncated', () => {
    const body = headingBody(500);
    const outline = buildContract('note_outline', PATH, {}, body);
    expect(outline.headings).toHaveLength(500);
    expect(outline.truncated).toBe(false);
    expect(outline.headings[499].id).toBe('h2-h500-0500');
    const tree = buildContract('document_tree', PATH, {}, body);
    expect(tree.root.children).toHaveLength(500);
    expect(tree.truncated).toBe(false);
    const source = buildContract('section_source', PATH, {}, body);
    expect(source.sections).toHaveLength(500);
    expect(source.truncated).toBe(false);
  });

  it('returns the first 500 headings of a 501-heading note and sets truncated', () => {
    const body = headingBody(501);
    const outline = buildContract('note_outline', PATH, {}, body);
    expect(outline.headings).toHaveLength(500);
    expect(outline.truncated).toBe(true);
    expect(outline.headings[0].id).toBe('h2-h1-0001');
    expect(outline.headings[499].id).toBe('h2-h500-0500');
    expect(outline.headings.some((h) => h.text === 'H501')).toBe(false);

    const tree = buildContract('document_tree', PATH, {}, body);
    expect(tree.root.children).toHaveLength(500);
    expect(tree.truncated).toBe(true);

    const source = buildContract('section_source', PATH, {}, body);
    expect(source.sections).toHaveLength(500);
    expect(source.sections[499].section_id).toBe('inbox-big-md:h2-h500-0500');
    expect(source.truncated).toBe(true);
  });

  it('ends the last returned section at the first heading past the cap, which is not returned', () => {
    // Section 500's window closes at heading 501 (same level) even though heading 501 is cut.
    const cut = buildContract('section_source', PATH, {}, headingBody(501) + 'text after the last heading\n');
    expect(cut.sections[499].body_available).toBe(false);
    const kept = buildContract('section_source', PATH, {}, headingBody(500) + 'text after the last heading\n');
    expect(kept.sections[499].body_available).toBe(true);
  });

  it('counts nested headings towards the cap', () => {
    const body = '> ## quoted\n\n' + headingBody(500);
    const outline = buildContract('note_outline', PATH, {}, body);
    expect(outline.truncated).toBe(true);
    expect(outline.headings[0].id).toBe('h2-quoted-0001');
    expect(outline.headings[499].id).toBe('h2-h499-0500');
  });
});

describe('input size cap (openapi.yaml NoteOutline: caps and ids)', () => {
  const exact = '# Big\n\n' + 'x'.repeat(MAX_NOTE_INPUT_CHARS - '# Big\n\n'.length);
  const over = exact + 'x';

  it('accepts a body of exactly 1,000,000 characters', () => {
    expect(exact.length).toBe(1_000_000);
    expect(buildContract('note_outline', PATH, {}, exact).headings).toEqual([{ level: 1, text: 'Big', id: 'h1-big-0001' }]);
    expect(buildContract('document_tree', PATH, {}, exact).root.children).toHaveLength(1);
    expect(buildContract('section_source', PATH, {}, exact).sections.map((s) => s.body_available)).toEqual([true]);
  });

  it('refuses a body of 1,000,001 characters for outline, tree and section source', () => {
    expect(over.length).toBe(1_000_001);
    expectNoteTooLarge(() => buildContract('note_outline', PATH, {}, over));
    expectNoteTooLarge(() => buildContract('document_tree', PATH, {}, over));
    expectNoteTooLarge(() => buildContract('section_source', PATH, {}, over));
  });

  it('measures the body in UTF-16 code units, not code points', () => {
    const astral = '😀'.repeat(500_001);
    expect(Array.from(astral).length).toBeLessThan(MAX_NOTE_INPUT_CHARS);
    expectNoteTooLarge(() => buildContract('note_outline', PATH, {}, astral));
  });

  it('still answers metadata facets for an over-cap note, because the body is never read', () => {
    const facets = buildContract('metadata_facets', PATH, { tags: 'a' }, over);
    expect(facets.facets.tags).toEqual(['a']);
    expect(facets.truncated).toBe(false);
  });
});
