/**
 * Nothing note-derived outlives a request: the state the analysis keeps between calls (listed in scratch.ts:
 * the inline pass's record buffers, the ASCII decoding bytes, the label case folds and key index,
 * the combining classes NFC learns) holds nothing once analyzeNote returns or throws, whatever the
 * notes before it, short or long, ASCII or not. The reset after each note is what clears it: the
 * same work done outside a note leaves state behind until resetNoteScratch runs.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { analyzeNote } from '../src/analyze';
import { headingTextOf } from '../src/heading-text';
import { inlineText, normalizeLabel } from '../src/inline';
import { normalizeNfc } from '../src/normalize-nfc';
import { noteScratchLeftovers, resetNoteScratch } from '../src/scratch';
import { PATHOLOGICAL_SHAPES, pathologicalNote } from '../src/pathological';
import { inlineCase } from './support/inline-generators';

/** A heading whose inline pass folds non-ASCII label units and whose text needs the linear NFC (a long mark run). */
const NON_ASCII_NOTE = `[Straße Σίσυφος]: /u\n\n# [STRASSE σίσυφοσ] and [ǅ] e${'\u0301\u0327\u0323'.repeat(20)} *a*\n`;

afterEach(() => resetNoteScratch());

describe('state kept between calls', () => {
  it('holds no note text after generated notes (headings and paragraphs with inline syntax)', () => {
    fc.assert(
      fc.property(inlineCase, ({ lines, labels }) => {
        const definitions = labels.map((label, index) => `[${label.replace(/[[\]\\]/g, '')}x${index}]: /u`).join('\n');
        analyzeNote(`${definitions}\n\n# ${lines.join(' ')}\n\n${lines.join('\n')}\n`);
        expect(noteScratchLeftovers()).toEqual([]);
      }),
      { seed: 41, numRuns: 300 },
    );
  });

  it('keeps no case fold, label key or combining class a note used, and still resolves them', () => {
    const texts = (): string[] => analyzeNote(NON_ASCII_NOTE).headings.map((heading) => heading.text);
    const first = texts();
    expect(first[0]).toMatch(/^STRASSE σίσυφοσ and \[ǅ\] /);
    expect(noteScratchLeftovers()).toEqual([]);
    expect(texts()).toEqual(first);
    expect(noteScratchLeftovers()).toEqual([]);
  });

  it('holds no note text after large notes of every pathological shape, and after a short one that follows', () => {
    for (const shape of PATHOLOGICAL_SHAPES) {
      analyzeNote(pathologicalNote(shape, shape.kind === 'block' ? 'block' : 'atx', 200_000));
      expect(noteScratchLeftovers(), shape.name).toEqual([]);
      analyzeNote('# *a* `b` [c]\n');
      expect(noteScratchLeftovers(), shape.name).toEqual([]);
    }
  });

  it('holds nothing after a note that is refused', () => {
    analyzeNote(NON_ASCII_NOTE);
    expect(() => analyzeNote('x'.repeat(1_000_001))).toThrow('Note too large');
    expect(noteScratchLeftovers()).toEqual([]);
  });

  it('is cleared by the reset: the same work outside a note leaves what it learnt until resetNoteScratch', () => {
    const definitions = new Set(['STRASSE ΣΊΣΥΦΟΣ', 'Ǆ'].map(normalizeLabel));
    const plain = inlineText([`[straße σίσυφος] [ǆ] e${'\u0301\u0327\u0323'.repeat(20)} *a*`], definitions);
    headingTextOf(plain);
    normalizeNfc(`a${'\u0323\u0301'.repeat(40)}`);
    // An ASCII result is folded through the kept bytes.
    expect(inlineText(['*a*  `b`'], definitions)).toEqual({ text: 'a b', normalized: true, folded: true });
    expect(noteScratchLeftovers()).toEqual(['ASCII bytes', 'case folds', 'label keys', 'NFC learning']);
    resetNoteScratch();
    expect(noteScratchLeftovers()).toEqual([]);
  });
});
