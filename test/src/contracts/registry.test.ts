/**
 * What the registry derives for the rest of the Worker beyond the payload:
 * the log line's section count, and the output-schema check the Scooling
 * bridge answers through.
 */
import { describe, expect, it } from 'vitest';
import { CONTRACT_NAMES, buildAllContracts, buildContract, conformsToOutputSchema, contractNamed } from '../../../src/contracts';
import { BRIDGED_CONTRACT, CONTRACTS } from '../../../src/contracts/registry';

const PATH = 'projects/Alpha/x.md';
const FRONTMATTER = { title: 'T', tags: 'a, b' };
/** Four headings, one skipped level: a tree of two roots with one child each. */
const BODY = '# A\n\ntext\n\n### B\n\n## C\n\n# D\n\n- item\n';
/** A deep copy to mutate: payloads are plain JSON data. */
const copy = <T>(value: T): any => JSON.parse(JSON.stringify(value));

describe('sectionCount', () => {
  it('counts every heading of a heading payload, however it nests them, and is null for facets', () => {
    const payloads = buildAllContracts(PATH, FRONTMATTER, BODY);
    expect(contractNamed('note_outline').sectionCount(payloads.note_outline)).toBe(4);
    expect(contractNamed('document_tree').sectionCount(payloads.document_tree)).toBe(4);
    expect(contractNamed('section_source').sectionCount(payloads.section_source)).toBe(4);
    expect(contractNamed('metadata_facets').sectionCount(payloads.metadata_facets)).toBeNull();
  });

  it('is 0 for a note without headings', () => {
    const payloads = buildAllContracts(PATH, {}, 'only text\n');
    for (const name of ['note_outline', 'document_tree', 'section_source'] as const) {
      expect(contractNamed(name).sectionCount(payloads[name]), name).toBe(0);
    }
  });

  it('counts the headings answered, not those cut at the cap', () => {
    const body = Array.from({ length: 501 }, (_, index) => `${'#'.repeat((index % 3) + 1)} H${index}`).join('\n') + '\n';
    const payloads = buildAllContracts(PATH, {}, body);
    for (const name of ['note_outline', 'document_tree', 'section_source'] as const) {
      expect(payloads[name].truncated, name).toBe(true);
      expect(contractNamed(name).sectionCount(payloads[name]), name).toBe(500);
    }
  });
});

describe('conformsToOutputSchema', () => {
  it("accepts each contract's payload, as built and after a JSON round trip", () => {
    for (const name of CONTRACT_NAMES) {
      const payload = buildContract(name, PATH, FRONTMATTER, BODY);
      expect(conformsToOutputSchema(payload), name).toBe(true);
      expect(conformsToOutputSchema(copy(payload)), name).toBe(true);
    }
  });

  it('refuses a payload with a key its schema does not list, at the top or nested', () => {
    for (const name of CONTRACT_NAMES) {
      expect(conformsToOutputSchema({ ...buildContract(name, PATH, FRONTMATTER, BODY), body: 'secret' }), name).toBe(false);
    }
    const outline = copy(buildContract('note_outline', PATH, FRONTMATTER, BODY));
    outline.headings[0].offset = 3;
    expect(conformsToOutputSchema(outline)).toBe(false);
  });

  it("refuses a payload under another contract's schema id, an unknown or missing id, and non-objects", () => {
    const tree = copy(buildContract('document_tree', PATH, FRONTMATTER, BODY));
    expect(conformsToOutputSchema({ ...tree, schema: contractNamed('note_outline').schema })).toBe(false);
    expect(conformsToOutputSchema({ ...tree, schema: 'knowtation.document_tree/v1' })).toBe(false);
    const { schema: _schema, ...withoutId } = tree;
    expect(conformsToOutputSchema(withoutId)).toBe(false);
    expect(conformsToOutputSchema({ ...tree, schema: 7 })).toBe(false);
    for (const value of [null, undefined, 'knowtation.note_outline/v1', 42, [tree]]) expect(conformsToOutputSchema(value)).toBe(false);
  });
});

describe('the Scooling bridge', () => {
  it('serves exactly one contract, the outline, on a route of its own outside the Hub REST routes', () => {
    expect(CONTRACTS.filter((contract) => 'bridgeRoute' in contract)).toEqual([BRIDGED_CONTRACT]);
    expect(BRIDGED_CONTRACT.name).toBe('note_outline');
    expect(BRIDGED_CONTRACT.bridgeRoute.startsWith('/scooling/')).toBe(true);
    expect(CONTRACTS.map((contract) => contract.route)).not.toContain(BRIDGED_CONTRACT.bridgeRoute);
  });
});
