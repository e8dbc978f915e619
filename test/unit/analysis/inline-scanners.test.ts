/**
 * The inline scanners' memos must not change an answer: a scanner shared over one pass (queries
 * at increasing positions, never inside an accepted construct) answers as a fresh scanner per
 * query, which has nothing memoized.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HtmlScanner, PositionMemo } from '../../../src/contracts/analysis/inline-scanners';

/** Pieces that make open tags with quoted values holding `<`, so failed attribute lists are memoized. */
const HTML_PIECES = ['<a', '<b', ' x=', ' y=', '="', "='", '"', "'", '<', '>', '/>', ' ', '\n', 'z', '=', '`', '<!--', '-->', '<?', '?>'];
const htmlSource = fc
  .tuple(fc.array(fc.constantFrom(...HTML_PIECES), { maxLength: 120 }), fc.integer({ min: 1, max: 40 }))
  .map(([pieces, times]) => pieces.join('').repeat(times));

describe('HtmlScanner', () => {
  it('answers over a whole pass as a fresh scanner per position', () => {
    fc.assert(
      fc.property(htmlSource, (src) => {
        const shared = new HtmlScanner(src);
        for (let p = src.indexOf('<'); p >= 0; ) {
          const end = shared.scan(p);
          expect(end).toBe(new HtmlScanner(src).scan(p));
          p = src.indexOf('<', end >= 0 ? end : p + 1);
        }
      }),
      { seed: 20261123, numRuns: 1500 },
    );
  });

  it('keeps memoized attribute lists apart over many entries', () => {
    const src = '<a x="<b y=\'" z=\''.repeat(3000);
    const shared = new HtmlScanner(src);
    for (let p = src.indexOf('<'); p >= 0; ) {
      const end = shared.scan(p);
      expect(end).toBe(new HtmlScanner(src).scan(p));
      p = src.indexOf('<', end >= 0 ? end : p + 1);
    }
  });
});

describe('PositionMemo', () => {
  it('answers as a Map across growth', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat({ max: 5000 }), fc.integer({ min: -1, max: 1 << 20 })), { maxLength: 400 }), (writes) => {
        const memo = new PositionMemo();
        const expected = new Map<number, number>();
        for (const [position, value] of writes) {
          memo.set(position, value);
          expected.set(position, value);
        }
        for (let position = 0; position <= 5000; position += 7) expect(memo.get(position)).toBe(expected.get(position));
        for (const [position, value] of expected) expect(memo.get(position)).toBe(value);
      }),
      { seed: 20261123, numRuns: 300 },
    );
  });
});
