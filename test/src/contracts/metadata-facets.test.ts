import { describe, expect, it } from 'vitest';
import { buildContract, decodeWireFrontmatter, type Frontmatter } from '../../../src/contracts';

const facetsOf = (frontmatter: Frontmatter, path = 'inbox/x.md') => buildContract('metadata_facets', path, frontmatter, '');

describe('MetadataFacets project (openapi.yaml MetadataFacets)', () => {
  it('slugs the frontmatter project', () => {
    expect(facetsOf({ project: 'My Project' }).facets.project).toBe('my-project');
    expect(facetsOf({ project: 42 }).facets.project).toBe('42');
  });

  it('prefers the frontmatter project over the path', () => {
    expect(facetsOf({ project: 'Beta' }, 'projects/alpha/x.md').facets.project).toBe('beta');
  });

  it('does not fall back to the path when the frontmatter project slugs to empty', () => {
    expect(facetsOf({ project: '!!!' }, 'projects/alpha/x.md').facets.project).toBeNull();
    expect(facetsOf({ project: '' }, 'projects/alpha/x.md').facets.project).toBeNull();
    expect(facetsOf({ project: '日本' }).facets.project).toBeNull();
  });

  it('infers the project from a leading projects/<name>/ segment when the key is absent or null', () => {
    expect(facetsOf({}, 'projects/My Project/x.md').facets.project).toBe('my-project');
    expect(facetsOf({ project: null }, 'projects/alpha/x.md').facets.project).toBe('alpha');
    expect(facetsOf({}, 'projects/x.md').facets.project).toBe('x-md');
  });

  it('infers nothing outside a leading, lower-case projects/ folder', () => {
    expect(facetsOf({}, 'Projects/alpha/x.md').facets.project).toBeNull();
    expect(facetsOf({}, 'inbox/projects/alpha/x.md').facets.project).toBeNull();
    expect(facetsOf({}, 'projects/日本/x.md').facets.project).toBeNull();
  });

  it('infers from the normalized path', () => {
    expect(facetsOf({}, './projects/./alpha/x.md').facets.project).toBe('alpha');
  });

  it('caps the project slug at 256 characters and sets truncated', () => {
    const facets = facetsOf({ project: 'p'.repeat(300) });
    expect(facets.facets.project).toBe('p'.repeat(256));
    expect(facets.truncated).toBe(true);
  });
});

describe('MetadataFacets tags and entity (openapi.yaml MetadataFacets)', () => {
  it('splits a comma string, trims and slugs each piece, drops empty slugs', () => {
    expect(facetsOf({ tags: 'Research, AI Safety,, ,research' }).facets.tags).toEqual(['research', 'ai-safety', 'research']);
  });

  it('takes a list as-is, slugging each entry, without de-duplication and in order', () => {
    expect(facetsOf({ tags: ['Research', 'AI Safety', 'research', '!!!'] }).facets.tags).toEqual([
      'research',
      'ai-safety',
      'research',
    ]);
  });

  it('stringifies non-string entries and scalars', () => {
    expect(facetsOf({ tags: ['x', ['y', 'z'], { a: 1 }, 7, 2.5, true, null] }).facets.tags).toEqual([
      'x',
      'y-z',
      'object-object',
      '7',
      '2-5',
      'true',
      'null',
    ]);
    expect(facetsOf({ tags: 42 }).facets.tags).toEqual(['42']);
    expect(facetsOf({ tags: 'single' }).facets.tags).toEqual(['single']);
  });

  it('is empty when the key is absent, null or an empty string', () => {
    expect(facetsOf({}).facets.tags).toEqual([]);
    expect(facetsOf({ tags: null }).facets.tags).toEqual([]);
    expect(facetsOf({ tags: '' }).facets.tags).toEqual([]);
    expect(facetsOf({ tags: [] }).facets.tags).toEqual([]);
  });

  it('keeps 100 values without truncation', () => {
    const facets = facetsOf({ tags: Array.from({ length: 100 }, (_, i) => `t${i}`) });
    expect(facets.facets.tags).toHaveLength(100);
    expect(facets.truncated).toBe(false);
  });

  it('processes only the first 100 raw entries and sets truncated', () => {
    const list = facetsOf({ tags: Array.from({ length: 101 }, (_, i) => `t${i}`) });
    expect(list.facets.tags).toHaveLength(100);
    expect(list.facets.tags[99]).toBe('t99');
    expect(list.truncated).toBe(true);

    const commaString = facetsOf({ tags: Array.from({ length: 150 }, (_, i) => `t${i}`).join(',') });
    expect(commaString.facets.tags).toHaveLength(100);
    expect(commaString.truncated).toBe(true);
  });

  it('counts dropped empty entries against the 100-entry window', () => {
    const facets = facetsOf({ tags: ['!!!', ...Array.from({ length: 100 }, (_, i) => `t${i}`)] });
    expect(facets.facets.tags).toHaveLength(99);
    expect(facets.facets.tags[98]).toBe('t98');
    expect(facets.truncated).toBe(true);
  });

  it('caps each value at 256 characters and sets truncated only when cut', () => {
    const exact = facetsOf({ tags: ['a'.repeat(256)] });
    expect(exact.facets.tags).toEqual(['a'.repeat(256)]);
    expect(exact.truncated).toBe(false);
    const cut = facetsOf({ tags: ['a'.repeat(257)] });
    expect(cut.facets.tags).toEqual(['a'.repeat(256)]);
    expect(cut.truncated).toBe(true);
  });

  it('strips trailing dashes left by the 256-character cut', () => {
    const facets = facetsOf({ tags: ['a'.repeat(255) + ' b'] });
    expect(facets.facets.tags).toEqual(['a'.repeat(255)]);
    expect(facets.truncated).toBe(true);
  });

  it('builds entity exactly like tags', () => {
    expect(facetsOf({ entity: 'Alice B, Core API' }).facets.entity).toEqual(['alice-b', 'core-api']);
    expect(facetsOf({ entity: ['Alice B', 'alice b'] }).facets.entity).toEqual(['alice-b', 'alice-b']);
    expect(facetsOf({}).facets.entity).toEqual([]);
    const many = facetsOf({ entity: Array.from({ length: 101 }, () => 'e') });
    expect(many.facets.entity).toHaveLength(100);
    expect(many.truncated).toBe(true);
  });
});

describe('MetadataFacets date and updated (openapi.yaml MetadataFacets)', () => {
  it('stringifies without trimming or slugging', () => {
    expect(facetsOf({ date: '2026-05-24' }).facets.date).toBe('2026-05-24');
    expect(facetsOf({ date: '' }).facets.date).toBe('');
    expect(facetsOf({ date: true }).facets.date).toBe('true');
    expect(facetsOf({ date: 20260101 }).facets.date).toBe('20260101');
    expect(facetsOf({ updated: '  Next Tuesday!  ' }).facets.updated).toBe('  Next Tuesday!  ');
    expect(facetsOf({ updated: ['a', 'b'] }).facets.updated).toBe('a,b');
  });

  it('is null when absent or null', () => {
    expect(facetsOf({}).facets.date).toBeNull();
    expect(facetsOf({ date: null, updated: null }).facets.updated).toBeNull();
  });

  it('serializes a Date object as ISO-8601', () => {
    expect(facetsOf({ date: new Date(Date.UTC(2026, 4, 24)) }).facets.date).toBe('2026-05-24T00:00:00.000Z');
  });

  it('caps at 256 characters and sets truncated', () => {
    const facets = facetsOf({ updated: 'u'.repeat(300) });
    expect(facets.facets.updated).toBe('u'.repeat(256));
    expect(facets.truncated).toBe(true);
    expect(facetsOf({ date: 'd'.repeat(256) }).truncated).toBe(false);
  });
});

describe('MetadataFacets causal_chain_id and episode_id (openapi.yaml MetadataFacets)', () => {
  it('slugs the value, or gives null when absent or slugging to empty', () => {
    const facets = facetsOf({ causal_chain_id: 'Chain #7', episode_id: 'Episode 1' }).facets;
    expect(facets.causal_chain_id).toBe('chain-7');
    expect(facets.episode_id).toBe('episode-1');
    expect(facetsOf({ causal_chain_id: '!!!', episode_id: '' }).facets.causal_chain_id).toBeNull();
    expect(facetsOf({ causal_chain_id: '!!!', episode_id: '' }).facets.episode_id).toBeNull();
    expect(facetsOf({}).facets.causal_chain_id).toBeNull();
    expect(facetsOf({ episode_id: 12 }).facets.episode_id).toBe('12');
  });

  it('caps at 256 characters, strips the trailing dash and sets truncated', () => {
    const facets = facetsOf({ episode_id: 'e'.repeat(255) + '!x' });
    expect(facets.facets.episode_id).toBe('e'.repeat(255));
    expect(facets.truncated).toBe(true);
  });
});

describe('MetadataFacets inferred fields and path (openapi.yaml MetadataFacets)', () => {
  it('infers folder as the POSIX dirname, null at the vault root', () => {
    expect(facetsOf({}, 'a/b/c.md').inferred.folder).toBe('a/b');
    expect(facetsOf({}, 'projects/My Project/x.md').inferred.folder).toBe('projects/My Project');
    expect(facetsOf({}, 'root.md').inferred.folder).toBeNull();
    expect(facetsOf({}, './root.md').inferred.folder).toBeNull();
  });

  it('always reports source_type null', () => {
    expect(facetsOf({ source_type: 'email' }).inferred.source_type).toBeNull();
  });

  it('returns the facet-normalized path, which may differ from the outline path', () => {
    expect(facetsOf({}, 'inbox/./x.md').path).toBe('inbox/x.md');
    expect(buildContract('note_outline', 'inbox/./x.md', {}, '').path).toBe('inbox/./x.md');
    expect(facetsOf({}, 'a/../b.md').path).toBe('b.md');
    expect(facetsOf({}, 'a\\b.md').path).toBe('a/b.md');
  });
});

describe('MetadataFacets reads only its seven keys (openapi.yaml MetadataFacets)', () => {
  it('ignores title and every other key, and never reads the body', () => {
    const withNoise = buildContract('metadata_facets', 
      'inbox/x.md',
      { title: 'Secret Title', summary: 'Secret summary', tags: 'a' },
      '# Secret heading\n\nSecret body\n',
    );
    const plain = buildContract('metadata_facets', 'inbox/x.md', { tags: 'a' }, '');
    expect(withNoise).toEqual(plain);
    expect(JSON.stringify(withNoise)).not.toMatch(/secret/i);
  });

  it('treats non-object frontmatter as empty', () => {
    const empty = facetsOf({});
    expect(facetsOf(['tags'] as unknown as Frontmatter)).toEqual(empty);
    expect(facetsOf(null as unknown as Frontmatter)).toEqual(empty);
  });

  it('reports an empty note as all-empty facets', () => {
    expect(facetsOf({}, 'x.md')).toEqual({
      schema: 'knowtation.metadata_facets/v0',
      path: 'x.md',
      facets: { project: null, tags: [], date: null, updated: null, causal_chain_id: null, entity: [], episode_id: null },
      inferred: { folder: null, source_type: null },
      truncated: false,
    });
  });

  it('decodes facets from wire frontmatter text', () => {
    const facets = facetsOf(decodeWireFrontmatter('"{\\"tags\\":[\\"A B\\"],\\"date\\":\\"2026-01-01\\"}"'));
    expect(facets.facets.tags).toEqual(['a-b']);
    expect(facets.facets.date).toBe('2026-01-01');
  });
});
