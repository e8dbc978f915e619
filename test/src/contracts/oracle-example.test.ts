import { describe, expect, it } from 'vitest';
import { buildContract, decodeWireFrontmatter } from '../../../src/contracts';

// The reference's oracle-verified example, sent as the canister sends it (frontmatter as JSON text).
const PATH = 'projects/My Project/Meeting_notes-2026.md';
const WIRE_FRONTMATTER = JSON.stringify({
  title: '  Weekly Sync  ',
  tags: ['Research', 'AI Safety', 'research'],
  date: '2026-05-24',
  entity: 'Alice B, Core API',
  causal_chain_id: 'Chain #7',
  episode_id: 'Episode 1',
});
const BODY =
  '# Weekly Sync\n\nIntro paragraph.\n\n## Agenda **items** `code`\n\n### Deep ![alt text](x.png) dive\n\n- item\n\n' +
  '## Empty\n\n## Café déjà vu\ntext\n\n#### Skipped level\n\nSetext H1\n=========\n\n> ## Quoted heading\n\n---\n';
const frontmatter = decodeWireFrontmatter(WIRE_FRONTMATTER);
const PATH_SLUG = 'projects-my-project-meeting-notes-2026-md';

const HEADINGS = [
  { level: 1, text: 'Weekly Sync', id: 'h1-weekly-sync-0001' },
  { level: 2, text: 'Agenda items code', id: 'h2-agenda-items-code-0002' },
  { level: 3, text: 'Deep alt text dive', id: 'h3-deep-alt-text-dive-0003' },
  { level: 2, text: 'Empty', id: 'h2-empty-0004' },
  { level: 2, text: 'Café déjà vu', id: 'h2-caf-d-j-vu-0005' },
  { level: 4, text: 'Skipped level', id: 'h4-skipped-level-0006' },
  { level: 1, text: 'Setext H1', id: 'h1-setext-h1-0007' },
  { level: 2, text: 'Quoted heading', id: 'h2-quoted-heading-0008' },
];

describe('the oracle-verified example', () => {
  it('outline: title, ids and texts', () => {
    expect(buildContract('note_outline', PATH, frontmatter, BODY)).toEqual({
      schema: 'knowtation.note_outline/v1',
      path: PATH,
      title: 'Weekly Sync',
      headings: HEADINGS,
      truncated: false,
    });
  });

  it('tree: Skipped level under Café déjà vu, Quoted heading under Setext H1', () => {
    const node = (i: number, children: unknown[] = []) => ({
      id: HEADINGS[i].id,
      level: HEADINGS[i].level,
      text: HEADINGS[i].text,
      children,
    });
    expect(buildContract('document_tree', PATH, frontmatter, BODY)).toEqual({
      schema: 'knowtation.document_tree/v0',
      path: PATH,
      title: 'Weekly Sync',
      root: {
        children: [node(0, [node(1, [node(2)]), node(3), node(4, [node(5)])]), node(6, [node(7)])],
      },
      truncated: false,
    });
  });

  it('facets: inferred project, tags not de-duplicated, entity split, slugged ids, folder', () => {
    expect(buildContract('metadata_facets', PATH, frontmatter, BODY)).toEqual({
      schema: 'knowtation.metadata_facets/v0',
      path: PATH,
      facets: {
        project: 'my-project',
        tags: ['research', 'ai-safety', 'research'],
        date: '2026-05-24',
        updated: null,
        causal_chain_id: 'chain-7',
        entity: ['alice-b', 'core-api'],
        episode_id: 'episode-1',
      },
      inferred: { folder: 'projects/My Project', source_type: null },
      truncated: false,
    });
  });

  it('section source: ids, heading paths, children and body_available', () => {
    const source = buildContract('section_source', PATH, frontmatter, BODY);
    const sid = (i: number) => `${PATH_SLUG}:${HEADINGS[i].id}`;
    expect(source.schema).toBe('knowtation.section_source/v0');
    expect(source.path).toBe(PATH);
    expect(source.title).toBe('Weekly Sync');
    expect(source.truncated).toBe(false);
    expect(source.sections.map((s) => s.section_id)).toEqual(HEADINGS.map((_, i) => sid(i)));
    expect(source.sections.map((s) => s.heading_id)).toEqual(HEADINGS.map((h) => h.id));
    expect(source.sections.map((s) => s.level)).toEqual(HEADINGS.map((h) => h.level));
    expect(source.sections.map((s) => s.heading_text)).toEqual(HEADINGS.map((h) => h.text));
    expect(source.sections.map((s) => s.heading_path)).toEqual([
      ['Weekly Sync'],
      ['Weekly Sync', 'Agenda items code'],
      ['Weekly Sync', 'Agenda items code', 'Deep alt text dive'],
      ['Weekly Sync', 'Empty'],
      ['Weekly Sync', 'Café déjà vu'],
      ['Weekly Sync', 'Café déjà vu', 'Skipped level'],
      ['Setext H1'],
      ['Setext H1', 'Quoted heading'],
    ]);
    expect(source.sections.map((s) => s.child_section_ids)).toEqual([
      [sid(1), sid(3), sid(4)],
      [sid(2)],
      [],
      [],
      [sid(5)],
      [],
      [sid(7)],
      [],
    ]);
    expect(source.sections.map((s) => s.body_available)).toEqual([true, true, true, false, true, false, true, true]);
    expect(source.sections.every((s) => s.body_returned === false && s.snippet_returned === false)).toBe(true);
  });

  it('never returns body text in any payload', () => {
    for (const payload of [
      buildContract('note_outline', PATH, frontmatter, BODY),
      buildContract('document_tree', PATH, frontmatter, BODY),
      buildContract('metadata_facets', PATH, frontmatter, BODY),
      buildContract('section_source', PATH, frontmatter, BODY),
    ]) {
      const json = JSON.stringify(payload);
      expect(json).not.toContain('Intro paragraph');
      expect(json).not.toContain('x.png');
      expect(json).not.toContain('item"');
    }
  });
});
