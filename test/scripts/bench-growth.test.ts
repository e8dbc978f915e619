import { describe, expect, it } from 'vitest';
import { fittedGrowth } from '../../scripts/bench';
import { abbreviate, formatTable, ratioOf, verdict, WIDTH, wrap } from '../../scripts/lib/bench-report';

// The bench's growth column (target: at most 2.3x per doubling, docs/PERFORMANCE.md) is fitted over four sizes.
const sizes = [125_000, 250_000, 500_000, 1_000_000];

describe('fittedGrowth (the bench growth per doubling)', () => {
  it('reads 2.0 for linear time, 4.0 for quadratic, and between them for n log n', () => {
    expect(fittedGrowth(sizes.map((n) => [n, n / 1e5]))).toBeCloseTo(2, 10);
    expect(fittedGrowth(sizes.map((n) => [n, (n / 1e5) ** 2]))).toBeCloseTo(4, 10);
    const nLogN = fittedGrowth(sizes.map((n) => [n, (n * Math.log2(n)) / 1e6]));
    expect(nLogN).toBeGreaterThan(2.05);
    expect(nLogN).toBeLessThan(2.2);
  });

  it('still reads a superlinear shape as superlinear when one point is off', () => {
    const times = sizes.map((n) => (n / 1e5) ** 2);
    times[3] = (times[3] as number) * 0.75;
    expect(fittedGrowth(sizes.map((n, index) => [n, times[index] as number]))).toBeGreaterThan(3.3);
  });

  it('moves less than the last ratio when only the largest size is off by 30%', () => {
    const times = sizes.map((n) => n / 1e5);
    times[3] = (times[3] as number) * 1.3;
    const lastRatio = (times[3] as number) / (times[2] as number);
    const fitted = fittedGrowth(sizes.map((n, index) => [n, times[index] as number]));
    expect(lastRatio).toBeCloseTo(2.6, 10);
    expect(fitted).toBeGreaterThan(2);
    expect(fitted).toBeLessThan(2.2);
  });
});

// The bench's report (scripts/lib/bench-report.ts): lines that fit a terminal, no ratio from one run,
// and a verdict only from a full run.
describe('the bench report', () => {
  it('wraps prose and fits a table to 100 columns, abbreviating long names without merging rows', () => {
    expect(wrap('word '.repeat(60), 40, '  ').every((line) => line.length <= 40)).toBe(true);
    expect(wrap('x'.repeat(250)).every((line) => line.length <= WIDTH)).toBe(true);
    const names = [
      'headings `# hN` (capped at 500 in the outline)',
      'label chains, folded whitespace and case',
      'label chains, folded whitespace and size',
      'label chains, folded whitespace and size',
    ];
    const columns = [{ header: 'shape', text: true }, ...Array.from({ length: 8 }, (_, index) => ({ header: `col ${index}` }))];
    const lines = formatTable(columns, names.map((name) => [name, ...Array.from({ length: 8 }, () => '12345.67')]));
    expect(lines.every((line) => line.length <= WIDTH)).toBe(true);
    expect(lines[2]).toMatch(/^headings `# hN` /);
    const shapes = lines.slice(2).map((line) => line.slice(0, 20));
    expect(new Set(shapes).size).toBe(3);
    expect(shapes[3]).toBe(shapes[2]);
    expect(abbreviate('emphasis matched again `_a **b****c*d_ `', 30)).toBe('emphasis matched again');
    expect(abbreviate('label chains, folded whitespace and case', 37)).toBe('label chains, folded whitespace...');
  });

  it('prints a ratio only when both sides are medians of several samples', () => {
    expect(ratioOf({ ms: 90, samples: 1 }, { ms: 0.3, samples: 15 })).toBeNull();
    expect(ratioOf({ ms: 90, samples: 7 }, { ms: 0.3, samples: 15 })).toBe('300.0x');
  });

  it('reads met or missed with the margin from a full run, indicative from a quick one', () => {
    const check = { label: '100 KB, at most 10 ms', bound: 10, kind: 'max' as const, values: [1, 3.3, 2], unit: 'ms', digits: 2 };
    expect(verdict(check, false)).toBe('met, worst 3.30 ms (3.03x margin)');
    expect(verdict({ ...check, values: [12.1, 3] }, false)).toBe('MISSED, worst 12.10 ms (1.21x over, 1/2 rows)');
    expect(verdict({ ...check, values: [12.1, 3] }, true)).toBe('indicative, worst 12.10 ms (1.21x over, 1/2 rows)');
    expect(verdict({ ...check, kind: 'min', bound: 30, values: [54], unit: 'MB/s', digits: 1 }, false)).toBe('met, 54.0 MB/s (1.80x margin)');
    expect(verdict({ ...check, skipped: '--only' }, false)).toBe('not measured (--only)');
  });
});
