/**
 * Each record stream of the inline pass grows to a cap: the records written so far plus its
 * module's bound on what the rest of the source can still record (itemBound, runBound,
 * bracketBound, each counting chars of the one inline trigger table in chars.ts). A bound that
 * misses records the pass writes leaves every answer right, but lets the stream grow one record
 * at a time past its cap: quadratic copying that no differential test sees. So for every record
 * written, the records written from it on must be at most its stream's bound from its position.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordPositions, normalizeLabel } from '../src/inline';
import { bracketBound } from '../src/inline-brackets';
import { runBound } from '../src/inline-delimiters';
import { itemBound } from '../src/inline-items';
import { PATHOLOGICAL_SHAPES } from '../src/pathological';
import { inlineCase } from './support/inline-generators';

const STREAMS = [
  ['items', itemBound],
  ['runs', runBound],
  ['brackets', bracketBound],
] as const;

/** The first record (stream, index) whose stream's bound from its position is below the records written from it on, or null. */
function uncovered(lines: readonly string[], labels: readonly string[]): string | null {
  const positions = recordPositions(lines, new Set(labels.map(normalizeLabel)));
  for (const [stream, bound] of STREAMS) {
    const written = positions[stream];
    for (let index = 0; index < written.length; index++) {
      const position = written[index] as number;
      const rest = written.length - index;
      const counted = bound(positions.source, position);
      if (rest > counted) return `${stream}: ${rest} written from ${position} on, bound ${counted}`;
    }
  }
  return null;
}

describe('record stream bounds', () => {
  it('count every record the pass writes from any record on, on generated inline content', () => {
    fc.assert(
      fc.property(inlineCase, ({ lines, labels }) => {
        expect(uncovered(lines, labels)).toBeNull();
      }),
      { seed: 20261127, numRuns: 2000 },
    );
  });

  it('count every record in soups of the trigger chars, NUL and the chars constructs end with', () => {
    const unit = fc.constantFrom('\\', '&', '`', '<', ']', '[', '![', '*', '_', '!', '\n', '  \n', ' ', 'a', '\0', '>', '(', ')', '"', "'", ';', '#', 'amp;', ':', '@');
    fc.assert(
      fc.property(fc.array(unit, { minLength: 1, maxLength: 80 }), fc.subarray(['a', 'b', '\\]']), (units, labels) => {
        const lines = units.join('').split('\n').filter((line) => line.trim() !== '');
        if (lines.length > 0) expect(uncovered(lines, labels)).toBeNull();
      }),
      { seed: 20261128, numRuns: 3000 },
    );
  });

  it('count every record of each pathological shape', () => {
    for (const shape of PATHOLOGICAL_SHAPES.filter((each) => each.kind === 'inline')) {
      expect(uncovered([shape.build(1000)], shape.labels?.(1000) ?? []), shape.name).toBeNull();
    }
  });
});
