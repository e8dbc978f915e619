/**
 * The README's example of a Node service (examples/payload-inputs.ts) computes what the reference
 * payloads of the shared corpus carry from the body: the outline's heading levels and texts, whether
 * headings were cut, and each section's body_available.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { payloadInputs } from '../examples/payload-inputs';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpus = path.resolve(packageRoot, '../../../shared/corpus');
const present = existsSync(path.join(corpus, 'knowtation-notes.json')) && existsSync(path.join(corpus, 'knowtation-expected.json'));
if (!present) console.warn(`payload inputs: shared corpus not found under ${corpus}; skipped`);

interface Expected {
  get_note_outline: { headings: { level: number; text: string }[]; truncated: boolean };
  get_section_source: { sections: { body_available: boolean }[]; truncated: boolean };
}

describe.skipIf(!present)('the payload inputs of the README example', () => {
  it('are the reference payloads\' for every note of the shared corpus', () => {
    const notes: { path: string; body: string }[] = JSON.parse(readFileSync(path.join(corpus, 'knowtation-notes.json'), 'utf8'));
    const expected: Expected[] = JSON.parse(readFileSync(path.join(corpus, 'knowtation-expected.json'), 'utf8'));
    expect(notes.length).toBeGreaterThan(100);
    notes.forEach((note, index) => {
      const inputs = payloadInputs(note.body);
      const { get_note_outline: outline, get_section_source: source } = expected[index] as Expected;
      expect(inputs.headings, note.path).toEqual(outline.headings.map(({ level, text }) => ({ level, text })));
      expect(inputs.truncated, note.path).toBe(outline.truncated);
      expect(inputs.bodyAvailable, note.path).toEqual(source.sections.map((section) => section.body_available));
    });
  });
});

describe('the payload inputs past the heading cap', () => {
  it('publish the first 500 headings and close the last window at the first cut heading', () => {
    const body = Array.from({ length: 501 }, (_, index) => `## H${index + 1}`).join('\n') + '\ntext\n';
    const inputs = payloadInputs(body);
    expect(inputs.headings).toHaveLength(500);
    expect(inputs.truncated).toBe(true);
    expect(inputs.bodyAvailable.every((bit) => !bit)).toBe(true);
    expect(payloadInputs('# a\n\nbody\n\n## b\n\n# c\n').bodyAvailable).toEqual([true, false, false]);
  });
});
