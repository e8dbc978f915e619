// The contract limits a user reads in openapi.yaml and docs/MCP.md (ids of non-Latin text, the
// frontmatter keys facets read), held against the payload builders: each documented example is
// built here and must give what the docs say, in both places.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildContract } from '../../src/contracts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const spec = parse(readFileSync(path.join(root, 'openapi.yaml'), 'utf8'));
const mcpDoc = readFileSync(path.join(root, 'docs/MCP.md'), 'utf8');
/** docs/MCP.md from a heading to the next heading of any level. */
const mcpSection = (heading: string): string => {
  const start = mcpDoc.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`docs/MCP.md has no section ${heading}`);
  const end = mcpDoc.indexOf('\n#', start + heading.length + 2);
  return mcpDoc.slice(start, end === -1 ? undefined : end);
};
const operation = (route: string): string => spec.paths[route].get.description;
/** Markdown and YAML block text wrap lines; claims are compared on single-spaced text. */
const flat = (text: string): string => text.replace(/\s+/g, ' ');

const limitsInMcpDoc = flat(mcpSection('### What ids and facets can tell apart'));
const SEVEN_KEYS = ['project', 'tags', 'date', 'updated', 'causal_chain_id', 'entity', 'episode_id'];

describe('ids of non-Latin text (openapi.yaml: heading ids and SectionSource)', () => {
  const firstSectionId = (notePath: string, body: string): string => buildContract('section_source', notePath, {}, body).sections[0].section_id;

  it('two notes with non-Latin names in one folder share a section id, as both docs say', () => {
    expect(firstSectionId('zh/笔记.md', '## 标题\n')).toBe('zh-md:h2-heading-0001');
    expect(firstSectionId('zh/日记.md', '## 标题\n')).toBe('zh-md:h2-heading-0001');
    for (const doc of [flat(operation('/api/v1/section-source')), limitsInMcpDoc]) {
      expect(doc).toContain('`zh/笔记.md` and `zh/日记.md` both');
      expect(doc).toContain('`zh-md:h2-heading-0001`');
      expect(doc).toContain('(`path`, `section_id`)');
    }
  });

  it('within one note the ordinal keeps ids apart, however the headings slug', () => {
    const ids = buildContract('section_source', 'zh/笔记.md', {}, '## 标题\n## 目录\n### 标题\n').sections.map((section) => section.section_id);
    expect(ids).toEqual(['zh-md:h2-heading-0001', 'zh-md:h2-heading-0002', 'zh-md:h3-heading-0003']);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps ASCII letters and digits only, without transliteration; one ASCII letter is enough to avoid `heading`', () => {
    const headings = buildContract('note_outline', 'a.md', {}, '## 标题\n## Café\n## 标题 2\n').headings.map((heading) => heading.id);
    expect(headings).toEqual(['h2-heading-0001', 'h2-caf-0002', 'h2-2-0003']);
    expect(flat(operation('/api/v1/note-outline'))).toContain('(`## 标题` as the first heading is `h2-heading-0001`)');
  });

  it('a path with no ASCII letter or digit left slugs to `note`', () => {
    expect(firstSectionId('笔记', '## A\n')).toBe('note:h2-a-0001');
    expect(limitsInMcpDoc).toContain('(`note` when none are left)');
  });
});

describe('facets read seven frontmatter keys (openapi.yaml MetadataFacets)', () => {
  const facets = (frontmatter: Record<string, unknown>, notePath = 'notes/n.md', body = '') =>
    buildContract('metadata_facets', notePath, frontmatter, body).facets;

  it('the keys both docs name are the facets the builder answers with', () => {
    expect(Object.keys(facets({}))).toEqual(SEVEN_KEYS);
    const named = SEVEN_KEYS.map((key) => `\`${key}\``).join(', ');
    expect(flat(operation('/api/v1/metadata-facets'))).toContain(`(${named})`);
    expect(limitsInMcpDoc).toContain(`exact names: ${named}.`);
  });

  it('a typical Obsidian note gets null and empty facets except its tags', () => {
    const obsidian = { aliases: ['Roadmap'], cssclasses: ['wide'], created: '2026-01-02', Tags: ['Upper'], Project: 'Aurora' };
    expect(facets(obsidian, 'notes/n.md', 'Text with #inline and #tags\n')).toEqual({
      project: null,
      tags: [],
      date: null,
      updated: null,
      causal_chain_id: null,
      entity: [],
      episode_id: null,
    });
    // Exactly `tags`, as Obsidian spells it, is read (nested tags slug with a dash).
    expect(facets({ ...obsidian, tags: ['planning', 'area/work'] }).tags).toEqual(['planning', 'area-work']);
    for (const doc of [flat(operation('/api/v1/metadata-facets')), limitsInMcpDoc]) {
      expect(doc).toMatch(/only `tags` is read, not `aliases`, `cssclasses`, `created` or (the body's )?inline `#tags`/);
    }
  });

  it('a value without an ASCII letter or digit is dropped, or null; project falls back to the projects/ folder', () => {
    expect(facets({ tags: ['读书', 'books'], project: '读书', episode_id: '第一' })).toMatchObject({ tags: ['books'], project: null, episode_id: null });
    expect(facets({}, 'projects/Tidal Garden/x.md').project).toBe('tidal-garden');
    expect(facets({}, 'projects/读书/x.md').project).toBeNull();
    // date and updated are kept as written, not slugged.
    expect(facets({ date: '二〇二六年' }).date).toBe('二〇二六年');
    expect(limitsInMcpDoc).toContain('Values other than `date` and `updated` are slugged');
  });
});

describe('where paths come from', () => {
  it('both docs say the path is exact with .md and comes from the Hub', () => {
    const pathParameter = flat(spec.components.parameters.NotePath.description);
    for (const doc of [pathParameter, flat(mcpSection('### Paths'))]) {
      expect(doc).toContain('`.md` included');
      expect(doc).toContain('`projects/Aurora/roadmap` names another note');
      expect(doc).toMatch(/Knowtation Hub, whose own MCP tools list and search notes/);
    }
  });
});
