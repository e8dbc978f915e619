import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LinkScanner } from '../src/inline-links';

/** Every `(` of a `](` in src, in source order (the queries the inline pass makes). */
function resourceStarts(src: string): number[] {
  const starts: number[] = [];
  for (let at = src.indexOf(']('); at >= 0; at = src.indexOf('](', at + 1)) starts.push(at + 1);
  return starts;
}

/** A fresh scanner per query: no memo, table or spent allowance carried from earlier queries. */
function freshAnswers(src: string, starts: readonly number[]): number[] {
  return starts.map((p) => new LinkScanner(src).resource(p));
}

describe('LinkScanner memos (shared across the queries of one pass)', () => {
  it('answers each resource as a fresh scanner does, for queries in source order', () => {
    const unit = fc.constantFrom('](', '](', '[', ']', '(', ')', ' ', '  ', '\n', '\t', 'b', '<', '>', '"', "'", '\\', '\\(', 'x y');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), fc.integer({ min: 0, max: 8 }), (units, long) => {
        // Long stretches (spaces, nested parens, plain text) push past the direct-scan budget.
        const src = units.join('') + ['', ' '.repeat(90), '(b'.repeat(40), 'b'.repeat(100), ')'.repeat(40)][long % 5] + units.slice(0, long * 4).join('');
        const starts = resourceStarts(src);
        const expected = freshAnswers(src, starts);
        const shared = new LinkScanner(src);
        expect(starts.map((p) => shared.resource(p))).toEqual(expected);
        // Any subsequence in source order too (the pass skips `](` inside other constructs);
        // whitespace and title queries may still go backwards there (a `<...>` destination
        // can hold later links), which switches those searches to their tables.
        const every = starts.filter((_, k) => k % 3 !== 1);
        const sparse = new LinkScanner(src);
        expect(every.map((p) => sparse.resource(p))).toEqual(starts.map((_, k) => expected[k]).filter((_, k) => k % 3 !== 1));
      }),
      { seed: 17, numRuns: 3000 },
    );
  });

  it('keeps answering along long runs of the pathological shapes', () => {
    const shapes = [
      '[a](b ('.repeat(300) + ')' + ' '.repeat(2100) + 'x',
      '[a](b'.repeat(2000),
      '[a](' + 'b('.repeat(3000) + ')'.repeat(3000),
      '[ (]('.repeat(2000),
      ('[a](' + 'b'.repeat(70) + ') ').repeat(500),
    ];
    for (const src of shapes) {
      const starts = resourceStarts(src);
      const shared = new LinkScanner(src);
      expect(starts.map((p) => shared.resource(p))).toEqual(freshAnswers(src, starts));
    }
  });
  it('skips whitespace runs as a plain scan does, whatever the query order', () => {
    const naive = (src: string, i: number): number => {
      while (i < src.length && ' \t\n\r'.includes(src.charAt(i))) i++;
      return i;
    };
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(' ', ' ', '\t', '\n', 'a', '('), maxLength: 80 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (src, raw) => {
          const scanner = new LinkScanner(src);
          // Mostly ascending with jumps ahead and back, like titles ending far ahead.
          const queries = raw.map((q) => q % (src.length + 1));
          for (const i of queries) expect(scanner.skipSpace(i)).toBe(naive(src, i));
        },
      ),
      { seed: 23, numRuns: 5000 },
    );
  });
});
