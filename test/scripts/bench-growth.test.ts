import { describe, expect, it } from 'vitest';
import { abbreviate, checkVerdict, formatTable, judge, ratioOf, spreadOf, SPREAD_IQR_FROM, verdictLine, WIDTH, wrap } from '../../scripts/lib/bench-report';

// The bench's report (scripts/lib/bench-report.ts): lines that fit a terminal, no ratio from one run,
// and a verdict line per target.
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

  it('prints one line per target: its verdict word, the worst value and the margin', () => {
    const check = { label: '100 KB, at most 10 ms', bound: 10, kind: 'max' as const, values: [1, 3.3, 2], unit: 'ms', digits: 2 };
    expect(verdictLine(check)).toBe('PASS   100 KB, at most 10 ms: worst 3.30 ms (3.03x margin)');
    expect(verdictLine({ ...check, values: [12.1, 3] })).toBe('FAIL   100 KB, at most 10 ms: worst 12.10 ms (1.21x over, 1/2 rows)');
    expect(verdictLine({ ...check, kind: 'min', bound: 30, values: [54], unit: 'MB/s', digits: 1 })).toBe(
      'PASS   100 KB, at most 10 ms: 54.0 MB/s (1.80x margin)',
    );
    expect(verdictLine({ ...check, values: [9.5], spreads: [{ low: 8, high: 11 }] })).toBe(
      'NOISY  100 KB, at most 10 ms: 9.50 ms (1.05x margin; 8.00 to 11.00 ms in this run)',
    );
    expect(verdictLine({ ...check, skipped: '--only' })).toBe('-      100 KB, at most 10 ms: not measured (--only)');
  });
});

// The verdict rule (scripts/lib/bench-report.ts judge): a target and the samples of one figure give
// PASS when the run's whole spread meets the bound, FAIL when none of it does, NOISY when it straddles.
describe('the bench verdict rule', () => {
  const atMost = { bound: 10, kind: 'max' as const };
  const atLeast = { bound: 30, kind: 'min' as const };

  it('reads PASS, FAIL or NOISY from where the spread lies against the bound', () => {
    expect(judge(atMost, [8, 9, 9.5])).toBe('PASS');
    expect(judge(atMost, [10.5, 11, 12])).toBe('FAIL');
    expect(judge(atMost, [9, 9.5, 10.5])).toBe('NOISY');
    expect(judge(atLeast, [31, 40, 35])).toBe('PASS');
    expect(judge(atLeast, [20, 29.9])).toBe('FAIL');
    expect(judge(atLeast, [29, 31])).toBe('NOISY');
  });

  it('counts a value on the bound as meeting it, on both kinds of bound', () => {
    expect(judge(atMost, [10])).toBe('PASS');
    expect(judge(atMost, [9, 10])).toBe('PASS');
    expect(judge(atMost, [10, 10.000001])).toBe('NOISY');
    expect(judge(atMost, [10.000001])).toBe('FAIL');
    expect(judge(atLeast, [30])).toBe('PASS');
    expect(judge(atLeast, [30, 31])).toBe('PASS');
    expect(judge(atLeast, [29.999999, 30])).toBe('NOISY');
    expect(judge(atLeast, [29.999999])).toBe('FAIL');
  });

  it('is never NOISY for one sample, and FAIL for none or for a figure that is not a number', () => {
    expect(judge(atMost, [9.99])).toBe('PASS');
    expect(judge(atMost, [10.01])).toBe('FAIL');
    expect(judge(atMost, [])).toBe('FAIL');
    expect(judge(atMost, [Number.NaN])).toBe('FAIL');
    expect(judge(atLeast, [Number.POSITIVE_INFINITY])).toBe('PASS');
  });

  it('spans min to max below SPREAD_IQR_FROM samples, the interquartile range from there', () => {
    expect(SPREAD_IQR_FROM).toBe(5);
    expect(spreadOf([3, 1, 2, 4])).toEqual({ low: 1, high: 4 });
    expect(spreadOf([1, 2, 3, 4, 5])).toEqual({ low: 2, high: 4 });
    // One outlier in nine samples does not make a clear figure noisy; in four it does.
    expect(judge(atMost, [5, 5, 6, 6, 6, 7, 7, 8, 30])).toBe('PASS');
    expect(judge(atMost, [5, 6, 7, 30])).toBe('NOISY');
  });

  it('reads a target over its rows: FAIL if any row fails, else NOISY if any is, else PASS', () => {
    const check = { label: 'rows', bound: 10, kind: 'max' as const, values: [5, 9, 6], unit: 'ms', digits: 2 };
    expect(checkVerdict(check)).toBe('PASS');
    expect(checkVerdict({ ...check, spreads: [undefined, { low: 8, high: 11 }, undefined] })).toBe('NOISY');
    expect(checkVerdict({ ...check, values: [5, 9, 12], spreads: [undefined, { low: 8, high: 11 }, undefined] })).toBe('FAIL');
    expect(checkVerdict({ ...check, skipped: 'not run' })).toBeNull();
    expect(checkVerdict({ ...check, values: [] })).toBeNull();
  });

  it('judges a deterministic figure (bundle size, heap per char) on its value alone, never NOISY', () => {
    const bundle = { label: 'bundle gzip', bound: 150, kind: 'max' as const, values: [149.9], unit: 'KiB', digits: 2, deterministic: true };
    const straddling = [{ low: 149, high: 151 }];
    expect(checkVerdict({ ...bundle, spreads: straddling })).toBe('PASS');
    expect(checkVerdict({ ...bundle, values: [150.01], spreads: straddling })).toBe('FAIL');
    expect(checkVerdict({ ...bundle, deterministic: false, spreads: straddling })).toBe('NOISY');
    expect(checkVerdict({ ...bundle, values: [150] })).toBe('PASS');
  });
});
