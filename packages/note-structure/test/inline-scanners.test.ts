/**
 * The inline scanners' memos must not change an answer: a scanner shared over one pass (queries
 * at increasing positions, never inside an accepted construct) answers as a fresh scanner per
 * query, which has nothing memoized.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BacktickRuns } from '../src/inline-code';
import { HtmlScanner } from '../src/inline-html';

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

/** The first maximal run of exactly `size` backticks starting at or after `from`, by brute force. */
function naiveClose(src: string, size: number, from: number): number {
  for (let at = from; at < src.length; at++) {
    if (src[at] !== '`' || (at > 0 && src[at - 1] === '`')) continue;
    let end = at;
    while (src[end] === '`') end++;
    if (end - at === size) return at;
  }
  return -1;
}

describe('BacktickRuns', () => {
  it('keeps the last start of each length once a failed scan has reached the end', () => {
    // The 2-run fails and completes the scan; the 1-run closing at 6 must not stand as the last 1-run.
    const src = '``x` a` b`c`';
    const runs = new BacktickRuns(src);
    expect([runs.close(2, 2), runs.close(1, 4), runs.close(1, 10)]).toEqual([-1, 6, 11]);
    // One long run that never closes, then single runs between words: every query after it.
    fc.assert(
      fc.property(fc.array(fc.constantFrom('`', 'x', ' ', 'y '), { maxLength: 40 }), fc.integer({ min: 2, max: 4 }), (pieces, opener) => {
        const src = `${'`'.repeat(opener)}a${pieces.join('')}`;
        const shared = new BacktickRuns(src);
        for (let p = 0; p >= 0; ) {
          let q = p;
          while (src[q] === '`') q++;
          const close = shared.close(q - p, q);
          expect(close).toBe(naiveClose(src, q - p, q));
          p = src.indexOf('`', close >= 0 ? close + (q - p) : q);
        }
      }),
      { seed: 20261124, numRuns: 1000 },
    );
  });

  it('finds the closer a brute-force search finds, over a whole pass', () => {
    const piece = fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom('`', '``', '```', 'x', 'x', ' ', '\\') },
      { weight: 1, arbitrary: fc.integer({ min: 60, max: 70 }).map((length) => '`'.repeat(length)) },
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), (pieces) => {
        const src = pieces.join('');
        const runs = new BacktickRuns(src);
        for (let p = src.indexOf('`'); p >= 0; ) {
          let q = p;
          while (src[q] === '`') q++;
          const close = runs.close(q - p, q);
          expect(close).toBe(naiveClose(src, q - p, q));
          p = src.indexOf('`', close >= 0 ? close + (q - p) : q);
        }
      }),
      { seed: 20261123, numRuns: 2000 },
    );
  });
});
