import { describe, expect, it } from 'vitest';
import { buildContract, CONTRACT_NAMES, contractNamed, type ContractName } from '../../../src/contracts';

// Serialized bytes are the contract: key order is compared as literal JSON text (openapi.yaml: the payload schemas).
const PATH = 'projects/Alpha/x.md';
const FRONTMATTER = { title: 'T', tags: 'b, a', date: '2026-01-02', updated: 'u', causal_chain_id: 'C', entity: 'E', episode_id: 'P' };
const BODY = '# A\n\ntext\n\n## B\n';

/** Exact bytes of some contracts for the note above, key order included. */
const PINNED: Partial<Record<ContractName, string>> = {
  note_outline:
    '{"schema":"knowtation.note_outline/v1","path":"projects/Alpha/x.md","title":"T",' +
    '"headings":[{"level":1,"text":"A","id":"h1-a-0001"},{"level":2,"text":"B","id":"h2-b-0002"}],"truncated":false}',
  document_tree:
    '{"schema":"knowtation.document_tree/v0","path":"projects/Alpha/x.md","title":"T",' +
    '"root":{"children":[{"id":"h1-a-0001","level":1,"text":"A","children":' +
    '[{"id":"h2-b-0002","level":2,"text":"B","children":[]}]}]},"truncated":false}',
  metadata_facets:
    '{"schema":"knowtation.metadata_facets/v0","path":"projects/Alpha/x.md",' +
    '"facets":{"project":"alpha","tags":["b","a"],"date":"2026-01-02","updated":"u","causal_chain_id":"c","entity":["e"],"episode_id":"p"},' +
    '"inferred":{"folder":"projects/Alpha","source_type":null},"truncated":false}',
  section_source:
    '{"schema":"knowtation.section_source/v0","path":"projects/Alpha/x.md","title":"T","sections":[' +
    '{"section_id":"projects-alpha-x-md:h1-a-0001","heading_id":"h1-a-0001","level":1,"heading_path":["A"],"heading_text":"A",' +
    '"child_section_ids":["projects-alpha-x-md:h2-b-0002"],"body_available":true,"body_returned":false,"snippet_returned":false},' +
    '{"section_id":"projects-alpha-x-md:h2-b-0002","heading_id":"h2-b-0002","level":2,"heading_path":["A","B"],"heading_text":"B",' +
    '"child_section_ids":[],"body_available":false,"body_returned":false,"snippet_returned":false}],"truncated":false}',
};

/** Every object in `value` has exactly the keys its schema lists under `properties`, in that order (following `items` and local `$ref`s). */
function expectSchemaKeyOrder(value: unknown, schema: any, root: any, at = '$'): void {
  if (typeof schema?.$ref === 'string') {
    const target = schema.$ref.slice(2).split('/').reduce((node: any, segment: string) => node?.[segment], root);
    expectSchemaKeyOrder(value, target, root, at);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => expectSchemaKeyOrder(item, schema.items, root, `${at}[${index}]`));
  } else if (value !== null && typeof value === 'object') {
    expect(Object.keys(value), at).toEqual(Object.keys(schema.properties));
    for (const [key, child] of Object.entries(value)) expectSchemaKeyOrder(child, schema.properties[key], root, `${at}.${key}`);
  }
}

describe('payload key order', () => {
  it.each(Object.entries(PINNED))('%s: exact bytes', (name, expected) => {
    expect(JSON.stringify(buildContract(name as ContractName, PATH, FRONTMATTER, BODY))).toBe(expected);
  });

  // The output schema lists each object's properties in the payload's key order, so a new contract's order is held by its schema.
  it.each(CONTRACT_NAMES)("%s: every object's keys in the order its output schema lists them", (name) => {
    const { outputSchema } = contractNamed(name);
    expectSchemaKeyOrder(buildContract(name, PATH, FRONTMATTER, BODY), outputSchema, outputSchema);
  });

  it('pins only contracts the registry lists', () => {
    expect(CONTRACT_NAMES).toEqual(expect.arrayContaining(Object.keys(PINNED)));
  });
});
