/**
 * The output-schema check the Scooling bridge answers through (src/contracts/output-conformance.ts)
 * against @cfworker/json-schema (a full JSON Schema 2020-12 validator) as the oracle: the same
 * verdict on every contract's payloads and on mutations of them, and no schema keyword it does not read.
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTRACT_NAMES, buildContract } from '../../../src/contracts';
import { CONTRACTS } from '../../../src/contracts/registry';
import { conformsTo, OUTPUT_SCHEMA_KEYWORDS } from '../../../src/contracts/output-conformance';

const PATH = 'projects/Alpha/x.md';
const FRONTMATTER = { title: 'T', tags: 'a, b', project: 'Alpha', date: '2024-01-02', entity: ['x', 'y'] };
const BODY = '# A\n\ntext\n\n### B\n\n## C ü\n\n# D\n\n- item\n\n#### E\n\n##### F\n\n###### G\n';
const copy = <T>(value: T): any => JSON.parse(JSON.stringify(value));

type Json = Record<string, unknown>;
const schemas = CONTRACTS.map((spec) => spec.outputSchema as unknown as Json);
const oracles = schemas.map((schema) => new Validator(schema as Schema, '2020-12', false));

/** Both verdicts on `value` for every contract's schema, so a disagreement names its schema. */
function verdicts(value: unknown): { ours: boolean[]; oracle: boolean[] } {
  return { ours: schemas.map((schema) => conformsTo(schema, value)), oracle: oracles.map((oracle) => oracle.validate(value).valid) };
}

/** Every path into a JSON value, to mutate one place at a time. */
function places(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [at];
  const keys = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value);
  return [at, ...keys.flatMap((key) => places((value as Json)[key as string], [...at, key]))];
}

function replaced(value: unknown, at: (string | number)[], next: unknown): unknown {
  if (at.length === 0) return next;
  const clone = copy(value);
  let parent = clone;
  for (const key of at.slice(0, -1)) parent = parent[key];
  parent[at[at.length - 1] as string] = next;
  return clone;
}

/** Values that break one keyword or another: types, lengths (astral chars count once), patterns, bounds. */
const REPLACEMENTS: unknown[] = [
  null,
  true,
  0,
  7,
  1.5,
  -1,
  '',
  'a',
  'x'.repeat(256),
  'x'.repeat(257),
  '😀'.repeat(256),
  'h2-a-0001',
  'h7-a-0001',
  'h2--a-0001',
  'x:h2-a-0001',
  'X:h2-a-0001',
  [],
  ['a'],
  [{}],
  {},
  { extra: 1 },
];

describe('conformsTo (the output-schema check) against a full JSON Schema validator', () => {
  it('reads only keywords it implements, in every contract schema', () => {
    const seen = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === 'object') {
        for (const [key, child] of Object.entries(node)) {
          // The names under properties and $defs are not keywords.
          if (key === 'properties' || key === '$defs') Object.values(child as Json).forEach(walk);
          else walk(child);
          seen.add(key);
        }
      }
    };
    schemas.forEach(walk);
    expect([...seen].filter((key) => !(OUTPUT_SCHEMA_KEYWORDS as readonly string[]).includes(key))).toEqual([]);
  });

  it("agrees on each contract's payload and on every one-place mutation of it", () => {
    let refused = 0;
    for (const name of CONTRACT_NAMES) {
      const payload = copy(buildContract(name, PATH, FRONTMATTER, BODY));
      const own = verdicts(payload);
      expect(own.ours).toEqual(own.oracle);
      expect(own.ours.filter(Boolean)).toHaveLength(1);
      for (const at of places(payload)) {
        for (const next of REPLACEMENTS) {
          const mutated = replaced(payload, at, next);
          const { ours, oracle } = verdicts(mutated);
          expect(ours, `${name} ${JSON.stringify(at)} = ${JSON.stringify(next)}`).toEqual(oracle);
          if (!ours.some(Boolean)) refused++;
        }
      }
    }
    // The mutations do reach refusals (a check that accepted everything would agree on nothing here).
    expect(refused).toBeGreaterThan(500);
  });

  it('agrees on arbitrary JSON values and on payloads with arbitrary strings in place of heading texts and ids', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const { ours, oracle } = verdicts(value);
        expect(ours).toEqual(oracle);
      }),
      { numRuns: 300 },
    );
    const outline = copy(buildContract('note_outline', PATH, FRONTMATTER, BODY));
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ maxLength: 20 }), (text, id) => {
        const { ours, oracle } = verdicts(replaced(replaced(outline, ['headings', 0, 'text'], text), ['headings', 1, 'id'], id));
        expect(ours).toEqual(oracle);
      }),
      { numRuns: 300 },
    );
  });

  it('fails closed on a keyword or a form of one it does not read', () => {
    expect(conformsTo({ type: 'string', format: 'email' }, 'a')).toBe(false);
    expect(conformsTo({ type: 'object', additionalProperties: true }, {})).toBe(false);
    expect(conformsTo({ $ref: '#/definitions/node', definitions: { node: {} } }, {})).toBe(false);
    expect(conformsTo({ $ref: '#/$defs/missing', $defs: {} }, {})).toBe(false);
    expect(conformsTo({ const: { a: 1 } }, { a: 1 })).toBe(false);
    // The supported forms of the same keywords accept.
    expect(conformsTo({ type: 'object', additionalProperties: false }, {})).toBe(true);
    expect(conformsTo({ $ref: '#/$defs/node', $defs: { node: { type: 'integer' } } }, 3)).toBe(true);
  });
});
