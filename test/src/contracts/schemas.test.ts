import { describe, expect, it } from 'vitest';
import { Validator, type Schema } from '@cfworker/json-schema';
import { buildContract, CONTRACT_NAMES, contractNamed, type ContractName } from '../../../src/contracts';
import { CONTRACTS as REGISTRY } from '../../../src/contracts/registry';
import {
  DOCUMENT_TREE_JSON_SCHEMA,
  METADATA_FACETS_JSON_SCHEMA,
  NOTE_OUTLINE_JSON_SCHEMA,
  SECTION_SOURCE_JSON_SCHEMA,
} from '../../../src/contracts/schemas';

const validators = Object.fromEntries(
  CONTRACT_NAMES.map((name) => [name, new Validator(contractNamed(name).outputSchema as Schema, '2020-12', false)]),
) as Record<ContractName, Validator>;
const isValid = (name: ContractName, value: unknown): boolean => validators[name].validate(value).valid;
/** A deep copy to mutate: the builders' payloads are plain JSON data. */
const copy = <T>(value: T): any => JSON.parse(JSON.stringify(value));

const PATH = 'projects/Alpha/notes.md';
const FRONTMATTER = { title: 'T', tags: 'a, b', date: '2026-01-01', entity: ['E'], causal_chain_id: 'c', episode_id: 'e' };
const BODY = '# A\n\ntext\n\n## B\n\n### C\n\n> #### D\n';
const payload = (name: ContractName) => copy(buildContract(name, PATH, FRONTMATTER, BODY));

describe('contract JSON schemas', () => {
  it('are keyed exactly like CONTRACTS', () => {
    expect(REGISTRY.map((contract) => contract.name)).toEqual(CONTRACT_NAMES);
    expect(contractNamed('note_outline').outputSchema).toBe(NOTE_OUTLINE_JSON_SCHEMA);
    expect(contractNamed('document_tree').outputSchema).toBe(DOCUMENT_TREE_JSON_SCHEMA);
    expect(contractNamed('metadata_facets').outputSchema).toBe(METADATA_FACETS_JSON_SCHEMA);
    expect(contractNamed('section_source').outputSchema).toBe(SECTION_SOURCE_JSON_SCHEMA);
  });

  it('are object schemas (usable as MCP outputSchema) that survive a JSON round trip', () => {
    for (const name of CONTRACT_NAMES) {
      const schema = contractNamed(name).outputSchema as { type: string; required: string[] };
      expect(schema.type).toBe('object');
      expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    }
  });

  it('require every key of every payload object and forbid extra keys, in payload key order', () => {
    // Walks payload and schema together: each object's required list is exactly its keys, in order.
    const check = (value: unknown, schema: any, root: any): void => {
      if (schema.$ref) return check(value, root.$defs[schema.$ref.split('/').pop()], root);
      if (Array.isArray(value)) return value.forEach((item) => check(item, schema.items, root));
      if (value !== null && typeof value === 'object') {
        expect(schema.additionalProperties).toBe(false);
        expect(schema.required).toEqual(Object.keys(value));
        expect(Object.keys(schema.properties)).toEqual(Object.keys(value));
        for (const [key, child] of Object.entries(value)) check(child, schema.properties[key], root);
      }
    };
    for (const name of CONTRACT_NAMES) check(payload(name), contractNamed(name).outputSchema, contractNamed(name).outputSchema);
  });

  it('accept the payloads the builders produce', () => {
    for (const name of CONTRACT_NAMES) {
      expect(validators[name].validate(payload(name)).errors).toEqual([]);
      expect(isValid(name, copy(buildContract(name, 'x.md', {}, '')))).toBe(true);
    }
  });

  it('reject a wrong schema string', () => {
    for (const name of CONTRACT_NAMES) {
      const value = payload(name);
      value.schema = 'knowtation.other/v1';
      expect(isValid(name, value)).toBe(false);
    }
    const outline = payload('note_outline');
    outline.schema = 'knowtation.note_outline/v0';
    expect(isValid('note_outline', outline)).toBe(false);
  });

  it('reject an extra top-level key such as a body', () => {
    for (const name of CONTRACT_NAMES) {
      expect(isValid(name, { ...payload(name), body: 'secret' })).toBe(false);
    }
  });

  it('reject a missing key', () => {
    for (const name of CONTRACT_NAMES) {
      const value = payload(name);
      delete value.truncated;
      expect(isValid(name, value)).toBe(false);
    }
  });

  it('allow title string or null and nothing else', () => {
    for (const name of ['note_outline', 'document_tree', 'section_source'] as const) {
      expect(isValid(name, { ...payload(name), title: null })).toBe(true);
      expect(isValid(name, { ...payload(name), title: 42 })).toBe(false);
      expect(isValid(name, { ...payload(name), title: ['T'] })).toBe(false);
    }
  });

  it('constrain outline headings: integer level 1..6, id format, no extra keys', () => {
    const withHeading = (patch: Record<string, unknown>) => {
      const value = payload('note_outline');
      Object.assign(value.headings[0], patch);
      return isValid('note_outline', value);
    };
    expect(withHeading({})).toBe(true);
    expect(withHeading({ level: 0 })).toBe(false);
    expect(withHeading({ level: 7 })).toBe(false);
    expect(withHeading({ level: 1.5 })).toBe(false);
    expect(withHeading({ level: '1' })).toBe(false);
    expect(withHeading({ id: 'h1-a-1' })).toBe(false);
    expect(withHeading({ id: 'h7-a-0001' })).toBe(false);
    expect(withHeading({ id: 'h1--0001' })).toBe(false);
    expect(withHeading({ offset: 12 })).toBe(false);
    expect(withHeading({ text: null })).toBe(false);
  });

  it('validate tree nodes recursively', () => {
    const value = payload('document_tree');
    expect(isValid('document_tree', value)).toBe(true);
    value.root.children[0].children[0].children[0].snippet = 'secret';
    expect(isValid('document_tree', value)).toBe(false);
    const deepLevel = payload('document_tree');
    deepLevel.root.children[0].children[0].level = 9;
    expect(isValid('document_tree', deepLevel)).toBe(false);
    const rootExtra = payload('document_tree');
    rootExtra.root.id = 'x';
    expect(isValid('document_tree', rootExtra)).toBe(false);
  });

  it('pin body_returned and snippet_returned to false', () => {
    for (const key of ['body_returned', 'snippet_returned']) {
      const value = payload('section_source');
      value.sections[0][key] = true;
      expect(isValid('section_source', value)).toBe(false);
    }
    const badId = payload('section_source');
    badId.sections[0].section_id = 'h1-a-0001';
    expect(isValid('section_source', badId)).toBe(false);
    const deep = payload('section_source');
    deep.sections[0].heading_path = ['1', '2', '3', '4', '5', '6', '7'];
    expect(isValid('section_source', deep)).toBe(false);
  });

  it('constrain facets: slug lists, 256-char caps, 100 values, source_type null', () => {
    const withFacets = (patch: Record<string, unknown>, inferred: Record<string, unknown> = {}) => {
      const value = payload('metadata_facets');
      Object.assign(value.facets, patch);
      Object.assign(value.inferred, inferred);
      return isValid('metadata_facets', value);
    };
    expect(withFacets({})).toBe(true);
    expect(withFacets({ tags: ['Not A Slug'] })).toBe(false);
    expect(withFacets({ tags: ['trailing-'] })).toBe(false);
    expect(withFacets({ tags: ['a'.repeat(256)] })).toBe(true);
    expect(withFacets({ tags: ['a'.repeat(257)] })).toBe(false);
    expect(withFacets({ entity: Array.from({ length: 101 }, () => 'e') })).toBe(false);
    expect(withFacets({ project: '' })).toBe(false);
    expect(withFacets({ date: '' })).toBe(true);
    expect(withFacets({ date: 'd'.repeat(257) })).toBe(false);
    expect(withFacets({ updated: 20260101 })).toBe(false);
    expect(withFacets({ title: 'T' })).toBe(false);
    expect(withFacets({}, { source_type: 'email' })).toBe(false);
    expect(withFacets({}, { folder: null })).toBe(true);
  });
});
