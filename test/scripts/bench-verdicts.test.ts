import { describe, expect, it } from 'vitest';
import { abbreviate, formatTable, spreadOf, SPREAD_IQR_FROM, WIDTH, wrap } from '../../scripts/bench/report';
import { judge, judgeCheck, machineOf, REFERENCE, verdictLines, type Check, type Target } from '../../scripts/bench/targets';

// The bench's report (scripts/bench/report.ts): lines that fit a terminal.
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

});

// The verdict rule (scripts/bench/targets.ts judge): a target and the samples of one figure give
// PASS when the run's whole spread meets the bound, FAIL when none of it does, NOISY when it straddles.
const target = (bound: number, kind: 'max' | 'min', scale: 'cpu' | 'fixed' = 'cpu'): Target => ({
  label: `${kind === 'max' ? 'at most' : 'at least'} ${bound}`,
  protects: 'a test',
  bound,
  kind,
  unit: 'ms',
  digits: 2,
  scale,
});
const verdictOf = (check: Check) => judgeCheck(check, null).verdict;

describe('the bench verdict rule', () => {
  const atMost = target(10, 'max');
  const atLeast = target(30, 'min');

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
    const check: Check = { target: atMost, measured: { values: [5, 9, 6], rows: ['a', 'b', 'c'] } };
    const spreads = [undefined, { low: 8, high: 11 }, undefined];
    expect(verdictOf(check)).toBe('PASS');
    expect(verdictOf({ ...check, measured: { ...check.measured!, spreads } })).toBe('NOISY');
    expect(verdictOf({ ...check, measured: { values: [5, 9, 12], rows: ['a', 'b', 'c'], spreads } })).toBe('FAIL');
    expect(verdictOf({ ...check, skipped: 'not run' })).toBeNull();
    expect(verdictOf({ target: atMost, measured: { values: [], rows: [] } })).toBeNull();
  });
});

// Whose a FAIL is (targets.ts): a size or a ratio to a floor measured beside it is the code's; a CPU
// figure is the machine's when, divided by the machine factor, every failing row meets the bound. The
// factor is the larger of the two speed probes' ratios to the reference machine's.
const slowBy = (noop: number, compute: number) => machineOf(REFERENCE.noopMs * noop, REFERENCE.computeMs * compute);
describe('whose a FAIL is', () => {
  const cpu = target(10, 'max', 'cpu');
  const fixed = target(10, 'max', 'fixed');
  const failing = (t: Target, values: number[]): Check => ({ target: t, measured: { values, rows: values.map((_, at) => `row ${at}`) } });
  const slowMachine = slowBy(3, 1.5);

  it('reads the factor as the larger of the probes\' ratios', () => {
    expect(slowMachine.factor).toBeCloseTo(3, 10);
    expect(slowBy(1.2, 2.5).factor).toBeCloseTo(2.5, 10);
  });

  it("is the machine's when the CPU figure meets the bound at the reference speed", () => {
    expect(judgeCheck(failing(cpu, [25]), slowMachine)).toMatchObject({ verdict: 'FAIL', cause: 'machine' });
    expect(judgeCheck(failing(cpu, [30]), slowMachine)).toMatchObject({ verdict: 'FAIL', cause: 'machine' });
  });

  it("is the code's when one failing row misses the bound even at the reference speed", () => {
    expect(judgeCheck(failing(cpu, [25, 31]), slowMachine)).toMatchObject({ verdict: 'FAIL', cause: 'code' });
  });

  it("is the code's for a figure that does not scale with the machine, on a machine no slower than the reference, and without a machine", () => {
    expect(judgeCheck(failing(fixed, [11]), slowMachine)).toMatchObject({ verdict: 'FAIL', cause: 'code' });
    expect(judgeCheck(failing(cpu, [11]), slowBy(0.5, 0.8))).toMatchObject({ verdict: 'FAIL', cause: 'code' });
    expect(judgeCheck(failing(cpu, [11]), null)).toMatchObject({ verdict: 'FAIL', cause: 'code' });
  });

  it('scales an at-least bound up, not down', () => {
    expect(judgeCheck(failing(target(30, 'min'), [12]), slowMachine)).toMatchObject({ verdict: 'FAIL', cause: 'machine' });
    expect(judgeCheck(failing(target(30, 'min'), [9]), slowMachine)).toMatchObject({ verdict: 'FAIL', cause: 'code' });
  });
});

describe('a verdict as printed', () => {
  const check = (values: number[], scale: 'cpu' | 'fixed' = 'cpu'): Check => ({ target: target(10, 'max', scale), measured: { values, rows: values.map((_, at) => `row ${at}`) } });
  const lines = (c: Check, machine = slowBy(2, 1)) => verdictLines(judgeCheck(c, machine));

  it('says the verdict, the worst row and its margin, then what the target protects', () => {
    expect(lines(check([1, 3.3, 2]))).toEqual(['PASS   at most 10: worst row 1, 3.30 ms (3.03x margin)', '       a test']);
    expect(lines(check([9.5]))).toEqual(['PASS   at most 10: 9.50 ms (1.05x margin)', '       a test']);
    expect(lines({ ...check([9.5]), skipped: '--only' })).toEqual(['-      at most 10: not measured (--only)', '       a test']);
  });

  it('says whose a FAIL is and why, with the figure at the reference speed for the machine', () => {
    expect(lines(check([12.1, 3]))).toEqual([
      'FAIL   at most 10: worst row 0, 12.10 ms (1.21x over, 1/2 rows)',
      "       the machine's: its speed probes took 2.00x the reference machine's CPU; scaled to it, 6.05 ms meets the bound",
      '       a test',
    ]);
    expect(lines(check([25]))[1]).toBe("       the code's: its speed probes took 2.00x the reference machine's CPU; scaled to it, 12.50 ms still misses the bound");
    expect(lines(check([12], 'fixed'))[1]).toMatch(/^ {7}the code's: a size, or a figure measured against another beside it in the same passes/);
  });

  it('gives a NOISY its range in this run', () => {
    const noisy: Check = { target: target(10, 'max'), measured: { values: [9.5], rows: ['r'], spreads: [{ low: 8, high: 11 }] } };
    expect(lines(noisy)[0]).toBe('NOISY  at most 10: 9.50 ms (1.05x margin; 8.00 ms to 11.00 ms in this run)');
  });
});
