/**
 * unitsToString's ASCII path decodes through a byte buffer kept between calls: a call must see
 * only its own units, after longer and shorter calls and past the kept buffer's limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatCopy, fromCodeUnits, unitsToString } from '../src/utf16-units';

const byUnits = (units: Uint16Array, from: number, to: number): string => {
  let out = '';
  for (let at = from; at < to; at++) out += String.fromCharCode(units[at] as number);
  return out;
};

describe('unitsToString (ASCII path, kept byte buffer)', () => {
  it('equals the units read one by one for calls of every length in any order', () => {
    const call = fc.tuple(fc.array(fc.integer({ min: 0, max: 0x7f }), { maxLength: 9000 }), fc.nat(), fc.nat());
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 6 }), (calls) => {
        for (const [values, a, b] of calls) {
          const units = Uint16Array.from(values);
          const from = values.length === 0 ? 0 : a % (values.length + 1);
          const to = from + (values.length === 0 ? 0 : b % (values.length - from + 1));
          expect(unitsToString(units, from, to, 'ascii')).toBe(byUnits(units, from, to));
          expect(fromCodeUnits(units, to)).toBe(byUnits(units, 0, to));
        }
      }),
      { seed: 20261123, numRuns: 200 },
    );
  });

  it('stays exact past the kept buffer limit and for a short call after a long one', () => {
    for (const length of [(1 << 20) + 3, 1 << 20, 70_000, 5, 0]) {
      const units = new Uint16Array(length);
      for (let at = 0; at < length; at++) units[at] = 32 + ((at * 7 + length) % 95);
      const text = unitsToString(units, 0, length, 'ascii');
      expect(text.length).toBe(length);
      expect(text === byUnits(units, 0, length)).toBe(true);
    }
  });
});

describe('flatCopy', () => {
  it('returns an equal string, whatever its chars, from a slice or a whole string', () => {
    const ascii = (length: number): string => Array.from({ length }, (_, at) => String.fromCharCode(32 + ((at * 11) % 95))).join('');
    for (const length of [0, 1, 5000, (1 << 20) + 3]) {
      const text = ascii(length);
      // Sliced from a longer string, as the block scan's lines are.
      const slice = `x${text}y`.slice(1, length + 1);
      for (const input of [text, slice, `${text}é`, `é${slice}`, `${text}\u{1F600}`, `${slice}\uD800`, `\uDC00${text}`]) {
        const copy = flatCopy(input);
        expect(copy.length).toBe(input.length);
        expect(copy === input).toBe(true);
      }
    }
  });
});
