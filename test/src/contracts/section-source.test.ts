import { describe, expect, it } from 'vitest';
import { buildContract } from '../../../src/contracts';

const PATH = 'notes/s.md';
const availability = (body: string): boolean[] => buildContract('section_source', PATH, {}, body).sections.map((s) => s.body_available);

describe('SectionSource ids and structure (openapi.yaml SectionSource)', () => {
  it('prefixes heading ids with the path slug', () => {
    const source = buildContract('section_source', 'projects/My Project/Meeting_notes-2026.md', {}, '# Hello\n');
    expect(source.sections[0].section_id).toBe('projects-my-project-meeting-notes-2026-md:h1-hello-0001');
    expect(buildContract('section_source', 'safe.md', {}, '# Hello\n').sections[0].section_id).toBe('safe-md:h1-hello-0001');
  });

  it('falls back to the path slug "note" when the path slugs to empty', () => {
    expect(buildContract('section_source', '日本語/ノート', {}, '# Hello\n').sections[0].section_id).toBe('note:h1-hello-0001');
  });

  it('slugs the tree path, not the raw input', () => {
    expect(buildContract('section_source', ' \\A\\B.md ', {}, '# X\n').sections[0].section_id).toBe('a-b-md:h1-x-0001');
  });

  it('lists sections in pre-order with heading_path, direct child ids and constant false flags', () => {
    const source = buildContract('section_source', PATH, {}, '# A\n### B\n## C\n# D\n');
    expect(source.sections).toEqual([
      {
        section_id: 'notes-s-md:h1-a-0001',
        heading_id: 'h1-a-0001',
        level: 1,
        heading_path: ['A'],
        heading_text: 'A',
        child_section_ids: ['notes-s-md:h3-b-0002', 'notes-s-md:h2-c-0003'],
        body_available: false,
        body_returned: false,
        snippet_returned: false,
      },
      {
        section_id: 'notes-s-md:h3-b-0002',
        heading_id: 'h3-b-0002',
        level: 3,
        heading_path: ['A', 'B'],
        heading_text: 'B',
        child_section_ids: [],
        body_available: false,
        body_returned: false,
        snippet_returned: false,
      },
      {
        section_id: 'notes-s-md:h2-c-0003',
        heading_id: 'h2-c-0003',
        level: 2,
        heading_path: ['A', 'C'],
        heading_text: 'C',
        child_section_ids: [],
        body_available: false,
        body_returned: false,
        snippet_returned: false,
      },
      {
        section_id: 'notes-s-md:h1-d-0004',
        heading_id: 'h1-d-0004',
        level: 1,
        heading_path: ['D'],
        heading_text: 'D',
        child_section_ids: [],
        body_available: false,
        body_returned: false,
        snippet_returned: false,
      },
    ]);
  });

  it('takes path, title and truncated from the document tree', () => {
    const body = '# A\ntext\n';
    const tree = buildContract('document_tree', 'a//b.md', { title: ' T ' }, body);
    const source = buildContract('section_source', 'a//b.md', { title: ' T ' }, body);
    expect(source.path).toBe(tree.path);
    expect(source.title).toBe('T');
    expect(source.truncated).toBe(false);
    expect(Object.keys(source)).toEqual(['schema', 'path', 'title', 'sections', 'truncated']);
  });

  it('has no sections for a heading-less note', () => {
    expect(buildContract('section_source', PATH, {}, 'text only\n').sections).toEqual([]);
  });

  it('carries empty heading texts into heading_path', () => {
    const [parent, child] = buildContract('section_source', PATH, {}, '#\n## 日本語\n').sections;
    expect(parent.heading_path).toEqual(['']);
    expect(child.heading_path).toEqual(['', '日本語']);
    expect(child.section_id).toBe('notes-s-md:h2-heading-0002');
  });
});

describe('SectionSource body_available (openapi.yaml SectionSource)', () => {
  it('is true for a paragraph and false for a heading with nothing after it', () => {
    expect(availability('# A\ntext\n# B\n')).toEqual([true, false]);
  });

  it('ignores content before the first heading', () => {
    expect(availability('preamble\n\n# A\n')).toEqual([false]);
  });

  it('counts HTML comments and HTML blocks', () => {
    expect(availability('# A\n<!-- note to self -->\n# B\n')).toEqual([true, false]);
    expect(availability('# A\n<div></div>\n\n# B\n')).toEqual([true, false]);
  });

  it('counts a thematic break', () => {
    expect(availability('# A\n\n***\n\n# B\n')).toEqual([true, false]);
  });

  it('counts code with content, but not an empty or blank fenced code block', () => {
    expect(availability('# A\n```\ncode\n```\n# B\n```\n```\n# C\n```\n   \n```\n')).toEqual([true, false, false]);
  });

  it('does not count link reference definitions', () => {
    expect(availability('# A\n[ref]: https://example.com "Title"\n# B\n')).toEqual([false, false]);
  });

  it('does not count an image with empty alt or an empty link, but counts alt text and link text', () => {
    expect(availability('# A\n![](i.png)\n# B\n[](u)\n# C\n![alt](i.png)\n# D\n[x](u)\n')).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it('does not count whitespace-only text (NBSP included)', () => {
    expect(availability('# A\n&nbsp;\n# B\n')).toEqual([false, false]);
  });

  it('makes a parent available when only a child section has content', () => {
    expect(availability('# P\n## C\ntext\n')).toEqual([true, true]);
    expect(availability('# P\n## C\n# Q\ntext\n')).toEqual([false, false, true]);
  });

  it('ends a window at the next heading of the same or a shallower level', () => {
    expect(availability('## A\n### A1\n## B\ntext\n')).toEqual([false, false, true]);
    expect(availability('### A\n# B\ntext\n')).toEqual([false, true]);
  });

  it('counts a top-level list or blockquote containing a heading for the heading before it, not for the nested heading', () => {
    expect(availability('# A\n- ## L\n# B\n')).toEqual([true, false, false]);
    expect(availability('# A\n\n> ## Q\n')).toEqual([true, false]);
  });

  it('ends a window at a nested heading of the same level, and examines only top-level blocks', () => {
    // The list starts inside A's window (before L); the paragraph after the list starts after L.
    expect(availability('# A\n- # L\n\npara\n')).toEqual([true, true]);
    // The text under the nested heading is inside the list, which began before that heading.
    expect(availability('# A\n> ## Q\n> quoted text\n')).toEqual([true, false]);
  });

  it('matches the frontmatter-in-body case: the thematic break precedes the Setext heading', () => {
    expect(availability('---\ntitle: X\n---\n# H\ntext')).toEqual([false, true]);
  });
});
