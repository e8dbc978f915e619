import { describe, expect, it } from 'vitest';
import { buildContract, CONTRACT_NAMES } from '../../../src/contracts';

// Serialized bytes are the contract: key order is compared as literal JSON text (openapi.yaml: the four payload schemas).
const PATH = 'projects/Alpha/x.md';
const FRONTMATTER = { title: 'T', tags: 'b, a', date: '2026-01-02', updated: 'u', causal_chain_id: 'C', entity: 'E', episode_id: 'P' };
const BODY = '# A\n\ntext\n\n## B\n';

describe('payload key order', () => {
  it('note outline', () => {
    expect(JSON.stringify(buildContract('note_outline', PATH, FRONTMATTER, BODY))).toBe(
      '{"schema":"knowtation.note_outline/v1","path":"projects/Alpha/x.md","title":"T",' +
        '"headings":[{"level":1,"text":"A","id":"h1-a-0001"},{"level":2,"text":"B","id":"h2-b-0002"}],"truncated":false}',
    );
  });

  it('document tree', () => {
    expect(JSON.stringify(buildContract('document_tree', PATH, FRONTMATTER, BODY))).toBe(
      '{"schema":"knowtation.document_tree/v0","path":"projects/Alpha/x.md","title":"T",' +
        '"root":{"children":[{"id":"h1-a-0001","level":1,"text":"A","children":' +
        '[{"id":"h2-b-0002","level":2,"text":"B","children":[]}]}]},"truncated":false}',
    );
  });

  it('metadata facets', () => {
    expect(JSON.stringify(buildContract('metadata_facets', PATH, FRONTMATTER, BODY))).toBe(
      '{"schema":"knowtation.metadata_facets/v0","path":"projects/Alpha/x.md",' +
        '"facets":{"project":"alpha","tags":["b","a"],"date":"2026-01-02","updated":"u","causal_chain_id":"c","entity":["e"],"episode_id":"p"},' +
        '"inferred":{"folder":"projects/Alpha","source_type":null},"truncated":false}',
    );
  });

  it('section source', () => {
    expect(JSON.stringify(buildContract('section_source', PATH, FRONTMATTER, BODY))).toBe(
      '{"schema":"knowtation.section_source/v0","path":"projects/Alpha/x.md","title":"T","sections":[' +
        '{"section_id":"projects-alpha-x-md:h1-a-0001","heading_id":"h1-a-0001","level":1,"heading_path":["A"],"heading_text":"A",' +
        '"child_section_ids":["projects-alpha-x-md:h2-b-0002"],"body_available":true,"body_returned":false,"snippet_returned":false},' +
        '{"section_id":"projects-alpha-x-md:h2-b-0002","heading_id":"h2-b-0002","level":2,"heading_path":["A","B"],"heading_text":"B",' +
        '"child_section_ids":[],"body_available":false,"body_returned":false,"snippet_returned":false}],"truncated":false}',
    );
  });

  it('covers every public name the registry lists, in its order', () => {
    expect(CONTRACT_NAMES).toEqual(['note_outline', 'document_tree', 'metadata_facets', 'section_source']);
  });
});
