/**
 * The output bound's size functions are exact: for every note they measure,
 * the number equals the UTF-8 byte length of JSON.stringify(payload) built
 * by the plain builders. And the bounded builder refuses exactly the notes
 * whose payload is over the bound, serving the rest byte-identical.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTRACT_NAMES,
  ContractError,
  MAX_PAYLOAD_BYTES,
  buildContract,
  decodeWireFrontmatter,
  jsonStringBytes,
  jsonValueBytes,
  type ContractName,
  type Frontmatter,
} from '../../src/contracts';

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** Size the bounded builder measured, recovered by search: the largest bound that refuses is size - 1. */
function measuredSize(contract: ContractName, notePath: string, frontmatter: Frontmatter, body: string): number {
  const built = buildContract(contract, notePath, frontmatter, body, { maxBytes: Number.MAX_SAFE_INTEGER });
  const actual = bytesOf(built);
  // Exact at the edge: served at `actual`, refused at `actual - 1`.
  expect(bytesOf(buildContract(contract, notePath, frontmatter, body, { maxBytes: actual }))).toBe(actual);
  expect(() => buildContract(contract, notePath, frontmatter, body, { maxBytes: actual - 1 })).toThrow(ContractError);
  return actual;
}

function expectExact(notePath: string, frontmatter: Frontmatter, body: string): void {
  for (const contract of CONTRACT_NAMES) {
    const plain = buildContract(contract, notePath, frontmatter, body, { maxBytes: Number.POSITIVE_INFINITY });
    const bounded = buildContract(contract, notePath, frontmatter, body);
    expect(JSON.stringify(bounded), contract).toBe(JSON.stringify(plain));
    expect(measuredSize(contract, notePath, frontmatter, body), contract).toBe(bytesOf(plain));
  }
}

describe('jsonStringBytes', () => {
  it('equals the UTF-8 length of JSON.stringify for escapes, controls, DEL, multi-byte and lone surrogates', () => {
    const samples = ['', 'plain', '"quoted" \\ back', '\b\t\n\f\r', '\u0000\u0001\u001f\u007f', 'é中𝄞', '\ud800', 'a\udc00b', '\ud83d\ude00\ud83d', '\u2028\u2029', 'x'.repeat(50) + '"', 'y'.repeat(50) + 'é\n', 'z~ !#[]^'];
    for (const sample of samples) expect(jsonStringBytes(sample), JSON.stringify(sample)).toBe(bytesOf(sample));
  });

  it('equals it for arbitrary strings of UTF-16 code units', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)) }), (a, b) => {
        expect(jsonStringBytes(a)).toBe(bytesOf(a));
        expect(jsonStringBytes(b)).toBe(bytesOf(b));
      }),
      { numRuns: 300 },
    );
  });

  it('jsonValueBytes equals it for JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonValueBytes(value)).toBe(bytesOf(value));
      }),
      { numRuns: 300 },
    );
  });
});

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const notesFile = path.resolve(repoRoot, '../shared/corpus/knowtation-notes.json');
const corpusPresent = existsSync(notesFile);
if (!corpusPresent) console.warn(`payload size: corpus part skipped, ${notesFile} not found`);

describe.skipIf(!corpusPresent)('size functions on the shared corpus', () => {
  it('are exact for every note and contract', () => {
    const notes: { path: string; frontmatter: unknown; body: string }[] = JSON.parse(readFileSync(notesFile, 'utf8'));
    expect(notes.length).toBeGreaterThan(0);
    let measured = 0;
    for (const note of notes) {
      const frontmatter = decodeWireFrontmatter(JSON.stringify(note.frontmatter));
      try {
        buildContract('note_outline', note.path, frontmatter, note.body);
      } catch (error) {
        if (error instanceof ContractError) continue; // a refused note has no payload to measure
        throw error;
      }
      expectExact(note.path, frontmatter, note.body);
      measured += 1;
    }
    expect(measured).toBeGreaterThan(0);
  });
});

const headingText = fc.oneof(
  fc.constantFrom('a', 'Intro', 'é 中 𝄞', '"quoted" \\', 'tab\there', 'ctl\u0001\u007f', 'lone \ud800 x', '`code` *em*'),
  fc.string({ maxLength: 12 }),
);
const block = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 6 }), headingText).map(([level, text]) => `${'#'.repeat(level)} ${text}`),
  fc.tuple(headingText, fc.constantFrom('=', '-')).map(([text, underline]) => `${text}\n${underline.repeat(3)}`),
  fc.constantFrom('para text', '', '> # quoted heading', '- # list heading', '```\n# not a heading\n```', '---', '<!-- x -->'),
);
const notePath = fc.constantFrom('a.md', 'projects/My Project/Meeting_notes-2026.md', 'inbox/./x.md', 'ünï/cödé.md', 'x "q".md');
const frontmatter = fc.oneof(
  fc.constant({}),
  fc.record({ title: fc.string({ maxLength: 10 }) }),
  fc.record({ title: fc.constant('  '), tags: fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }), project: fc.string({ maxLength: 8 }) }),
);

describe('size functions on generated notes', () => {
  it('are exact for every contract', () => {
    fc.assert(
      fc.property(notePath, frontmatter, fc.array(block, { maxLength: 25 }), (p, fm, blocks) => {
        expectExact(p, fm as Frontmatter, blocks.join('\n\n'));
      }),
      { numRuns: 150 },
    );
  });

  it('stay exact past the 500-heading cap (truncated outlines)', () => {
    const body = Array.from({ length: 520 }, (_, i) => `${'#'.repeat((i % 6) + 1)} h ${i}\n\ntext`).join('\n\n');
    expectExact('deep/cap.md', {}, body);
  });
});

describe('the 4 MiB bound', () => {
  // One 80 KB H1 followed by 499 `## a`: SectionSource repeats the H1 in every heading_path (~37 MiB).
  const amplified = `# ${'x'.repeat(80_000)}\n\n${Array.from({ length: 499 }, () => '## a').join('\n\n')}\n`;

  it('refuses SectionSource amplification before building it', () => {
    expect(() => buildContract('section_source', 'amp.md', {}, amplified)).toThrow(
      expect.objectContaining({ kind: 'NoteTooComplex', message: 'Note structure too large' }),
    );
  });

  it('serves the other contracts of the same note (each well under 4 MiB)', () => {
    for (const contract of ['note_outline', 'document_tree', 'metadata_facets'] as const) {
      const payload = buildContract(contract, 'amp.md', {}, amplified);
      expect(bytesOf(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    }
  });

  it('serves a SectionSource just under the bound byte-identical, and refuses one just over it', () => {
    // 40 sections under one H1 of n chars: the H1 text appears 41 times in heading_path plus once as heading_text.
    const build = (n: number) => `# ${'y'.repeat(n)}\n\n${Array.from({ length: 40 }, () => '## b\n\ntext').join('\n\n')}\n`;
    const size = (n: number) => bytesOf(buildContract('section_source', 'near.md', {}, build(n), { maxBytes: Number.POSITIVE_INFINITY }));
    // Linear in n from n = 1 (the H1's slug, and so its ids, grow with it too).
    const base = size(1);
    const perChar = size(2) - base;
    const under = 1 + Math.floor((MAX_PAYLOAD_BYTES - base) / perChar);
    expect(size(under)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(size(under + 1)).toBeGreaterThan(MAX_PAYLOAD_BYTES);
    const served = buildContract('section_source', 'near.md', {}, build(under));
    expect(JSON.stringify(served)).toBe(JSON.stringify(buildContract('section_source', 'near.md', {}, build(under))));
    expect(() => buildContract('section_source', 'near.md', {}, build(under + 1))).toThrow(ContractError);
  });
});
