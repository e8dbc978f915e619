/**
 * Byte parity with the reference on the shared corpus: for every note and
 * every contract with an expected payload, JSON.stringify(ours) must equal
 * JSON.stringify(expected). Frontmatter travels as JSON text, as the
 * canister sends it. The corpus is read from ../shared at run time.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Validator, type Schema } from '@cfworker/json-schema';
import { buildContract, CONTRACT_NAMES, contractNamed, decodeWireFrontmatter, type ContractName } from '../../src/contracts';

interface CorpusNote {
  path: string;
  frontmatter: Record<string, unknown>;
  body: string;
}
type ExpectedEntry = { path: string } & Partial<Record<`get_${ContractName}`, unknown>>;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpusDir = path.resolve(repoRoot, '../shared/corpus');
const notesFile = path.join(corpusDir, 'knowtation-notes.json');
const expectedFile = path.join(corpusDir, 'knowtation-expected.json');
const corpusPresent = existsSync(notesFile) && existsSync(expectedFile);

if (!corpusPresent) {
  console.warn(`corpus parity: skipped, shared corpus not found at ${corpusDir}`);
}

const notes: CorpusNote[] = corpusPresent ? JSON.parse(readFileSync(notesFile, 'utf8')) : [];
const expected: ExpectedEntry[] = corpusPresent ? JSON.parse(readFileSync(expectedFile, 'utf8')) : [];

describe.skipIf(!corpusPresent)('corpus parity with the reference payloads', () => {
  let compared = 0;
  let identical = 0;

  it('has one expected entry per note, in the same order', () => {
    expect(notes.length).toBeGreaterThan(0);
    expect(expected).toHaveLength(notes.length);
    expect(expected.map((entry) => entry.path)).toEqual(notes.map((note) => note.path));
  });

  notes.forEach((note, index) => {
    it(`note ${index}: ${note.path}`, () => {
      const frontmatter = decodeWireFrontmatter(JSON.stringify(note.frontmatter));
      const mismatched: ContractName[] = [];
      for (const name of CONTRACT_NAMES) {
        const reference = expected[index][`get_${name}`];
        if (reference == null) continue;
        compared += 1;
        const ours = JSON.stringify(buildContract(name, note.path, frontmatter, note.body));
        if (ours === JSON.stringify(reference)) identical += 1;
        else mismatched.push(name);
      }
      for (const name of mismatched) {
        // Re-run for a readable diff of the first differing payload.
        const ours = JSON.parse(JSON.stringify(buildContract(name, note.path, frontmatter, note.body)));
        expect(ours, name).toEqual(expected[index][`get_${name}`]);
        expect(JSON.stringify(ours), `${name} key order`).toBe(JSON.stringify(expected[index][`get_${name}`]));
      }
      expect(mismatched).toEqual([]);
    });
  });

  it('every reference payload validates against its contract JSON schema', () => {
    for (const name of CONTRACT_NAMES) {
      const validator = new Validator(contractNamed(name).outputSchema as Schema, '2020-12', false);
      const failures = expected
        .filter((entry) => entry[`get_${name}`] != null)
        .map((entry) => ({ path: entry.path, errors: validator.validate(entry[`get_${name}`]).errors }))
        .filter((result) => result.errors.length > 0);
      expect(failures, name).toEqual([]);
    }
  });

  afterAll(() => {
    console.log(`corpus parity: ${notes.length} notes, ${compared} payloads compared, ${identical} identical`);
  });
});
