/**
 * Nothing note-derived outlives a request: the state the analysis keeps between calls (the
 * inline pass's record buffers, the ASCII decoding scratch, the label case-fold table) holds
 * nothing once a call returns, whatever the notes before it, short or long, ASCII or not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeNote } from '../../../src/contracts/analysis/analyze';
import { giveBackRecordBuffers, takeRecordBuffers } from '../../../src/contracts/analysis/inline-edits';
import { keptCaseFoldsAreClear } from '../../../src/contracts/analysis/inline-labels';
import { keptAsciiBytesAreZero } from '../../../src/contracts/analysis/utf16-units';
import { SHAPES, pathologicalNote } from '../../support/markdown/pathological';
import { inlineCase } from './generators';

function expectKeptStateClear(): void {
  const buffers = takeRecordBuffers();
  try {
    for (const [name, buffer] of Object.entries(buffers) as [string, Int32Array][]) expect({ name, zero: buffer.every((value) => value === 0) }).toEqual({ name, zero: true });
  } finally {
    giveBackRecordBuffers(buffers, 0, 0, 0);
  }
  expect(keptAsciiBytesAreZero()).toBe(true);
  expect(keptCaseFoldsAreClear()).toBe(true);
}

describe('state kept between calls', () => {
  it('holds no note text after generated notes (headings and paragraphs with inline syntax)', () => {
    fc.assert(
      fc.property(inlineCase, ({ lines, labels }) => {
        const definitions = labels.map((label, index) => `[${label.replace(/[[\]\\]/g, '')}x${index}]: /u`).join('\n');
        analyzeNote(`${definitions}\n\n# ${lines.join(' ')}\n\n${lines.join('\n')}\n`);
        expectKeptStateClear();
      }),
      { seed: 41, numRuns: 300 },
    );
  });

  it('keeps no case fold of the non-ASCII label chars a note used, and still resolves them', () => {
    const note = '[Straße Σίσυφος]: /u\n\n# [STRASSE σίσυφοσ] and [ǅ]\n';
    expect(analyzeNote(note).headings.map((heading) => heading.text)).toEqual(['STRASSE σίσυφοσ and [ǅ]']);
    expectKeptStateClear();
    expect(analyzeNote(note).headings.map((heading) => heading.text)).toEqual(['STRASSE σίσυφοσ and [ǅ]']);
    expectKeptStateClear();
  });

  it('holds no note text after large notes of every pathological shape, and after a short one that follows', () => {
    for (const shape of SHAPES) {
      analyzeNote(pathologicalNote(shape, shape.kind === 'block' ? 'block' : 'atx', 200_000));
      expectKeptStateClear();
      analyzeNote('# *a* `b` [c]\n');
      expectKeptStateClear();
    }
  });
});
