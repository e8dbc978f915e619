/**
 * The bench's targets and its verdicts. A target bounds one figure of the Worker (per row, where it
 * has rows: a shape, an era) and says what the bound protects: a user's latency, the CPU bill, or a
 * platform limit.
 *
 * The verdict reads the run's own spread of the figure (min to max of a few repetitions, the
 * interquartile range of more; report.ts spreadOf): PASS when all of it meets the bound, FAIL when
 * none of it does, NOISY when it straddles the bound. A figure with one sample is judged on it.
 *
 * A FAIL is the code's or the machine's:
 * - a figure that is the same on any machine (bundle bytes, heap per char), or one measured against
 *   another in the same passes (a ratio to a floor, a difference between two reads): the code's;
 * - a figure in CPU time scales with the machine. The machine's speed is probed before and after the
 *   Worker questions on the read floor alone in a workerd of its own: the workerd CPU of a no-op
 *   exchange (GET /health) and of a fixed computation (GET /compute: parse a 1 MB JSON document, read
 *   every char of it). Each over the same on the machine the bounds hold on (REFERENCE), the largest
 *   ratio is the machine factor. A FAIL whose every failing row, divided by that factor, meets the
 *   bound is the machine's; otherwise the code's.
 * The bench exits non-zero only for a FAIL that is the code's.
 */
import { figure, spreadOf, type Spread } from './report';

/**
 * The read floor's no-op exchange and fixed computation (lab.ts measureMachine), workerd CPU ms, on
 * the machine the CPU bounds hold on: the 2-core machine of docs/PERFORMANCE.md at a load of 2.6-2.8,
 * the quietest it was, where nine probes read 0.17-0.23 and 2.2-3.3 ms.
 */
export const REFERENCE = { noopMs: 0.2, computeMs: 2.8 } as const;

export type Verdict = 'PASS' | 'FAIL' | 'NOISY';

export interface Target {
  /** What is bounded, with the bound: "first REST read, CPU over the read floor's, at most 5 ms". */
  label: string;
  /** What the bound protects, in a user's words: "a user's latency: ...". */
  protects: string;
  bound: number;
  /** 'max': at most `bound`; 'min': at least. */
  kind: 'max' | 'min';
  /** Printed after a value: "ms", "KiB", "B/char", "x". */
  unit: string;
  digits: number;
  /** 'cpu': CPU time, which scales with the machine; 'fixed': the same on any machine, or measured against another figure in the same passes. */
  scale: 'cpu' | 'fixed';
}

/** What a question measured for a target: a value per row, and each value's spread when it has one. */
export interface Measured {
  values: number[];
  rows: string[];
  spreads?: (Spread | undefined)[];
}

/** A target with its figures, or why it was not measured. */
export interface Check {
  target: Target;
  measured?: Measured;
  skipped?: string;
}

/** The machine in a run: the read floor's two probes, and their larger ratio to REFERENCE. */
export interface Machine {
  noopMs: number;
  computeMs: number;
  factor: number;
}

export function machineOf(noopMs: number, computeMs: number): Machine {
  return { noopMs, computeMs, factor: Math.max(noopMs / REFERENCE.noopMs, computeMs / REFERENCE.computeMs) };
}

const meets = (target: Target, value: number): boolean => (target.kind === 'max' ? value <= target.bound : value >= target.bound);

/** The verdict of a spread against a target's bound: PASS when all of it meets the bound, FAIL when none does. */
export function judgeSpread(target: Target, spread: Spread): Verdict {
  if (Number.isNaN(spread.low) || Number.isNaN(spread.high)) return 'FAIL';
  const [worst, best] = target.kind === 'max' ? [spread.high, spread.low] : [spread.low, spread.high];
  if (meets(target, worst)) return 'PASS';
  return meets(target, best) ? 'NOISY' : 'FAIL';
}

/** The verdict of the samples of one figure against a target (spreadOf). */
export function judge(target: Target, samples: number[]): Verdict {
  return judgeSpread(target, spreadOf(samples));
}

export interface Judgement {
  check: Check;
  /** Null when not measured. */
  verdict: Verdict | null;
  /** For a FAIL: whose it is. */
  cause?: 'code' | 'machine';
  /** The row of the worst value. */
  worstAt: number;
  /** The machine a FAIL was judged on. */
  machine?: Machine | null;
}

/** A CPU figure as it would read on the reference machine. */
function atReferenceSpeed(target: Target, value: number, machine: Machine): number {
  const factor = Math.max(1, machine.factor);
  return target.kind === 'max' ? value / factor : value * factor;
}

/** A check's verdict over its rows (FAIL if a row fails, else NOISY if one is, else PASS), and whose a FAIL is. */
export function judgeCheck(check: Check, machine: Machine | null): Judgement {
  const { target, measured } = check;
  if (check.skipped !== undefined || measured === undefined || measured.values.length === 0) return { check, verdict: null, worstAt: 0 };
  const { values, spreads } = measured;
  const worstAt = values.reduce((best, value, index) => ((target.kind === 'max' ? value > (values[best] as number) : value < (values[best] as number)) ? index : best), 0);
  const rows = values.map((value, index) => judgeSpread(target, spreads?.[index] ?? { low: value, high: value }));
  if (!rows.includes('FAIL')) return { check, verdict: rows.includes('NOISY') ? 'NOISY' : 'PASS', worstAt };
  const failing = values.filter((_value, index) => rows[index] === 'FAIL');
  const machines = target.scale === 'cpu' && machine !== null && failing.every((value) => meets(target, atReferenceSpeed(target, value, machine)));
  return { check, verdict: 'FAIL', cause: machines ? 'machine' : 'code', worstAt, machine };
}

/** The value with its unit: "3.30 ms", "1.62x". */
function withUnit(target: Target, value: number): string {
  const unit = target.unit === '' || target.unit === 'x' ? target.unit : ` ${target.unit}`;
  return `${figure(value, target.digits)}${unit}`;
}

/**
 * A target's lines: its verdict, the worst value and its margin ("PASS   label: worst 3.30 ms
 * (3.03x margin)"); for a FAIL, whose it is and why; then what it protects.
 */
export function verdictLines(judgement: Judgement, labelWidth = 0): string[] {
  const { check, verdict, worstAt } = judgement;
  const { target, measured } = check;
  const head = (word: string): string => `${word.padEnd(6)} ${`${target.label}:`.padEnd(labelWidth)} `;
  const protects = `       ${target.protects}`;
  if (verdict === null || measured === undefined) return [`${head('-')}not measured${check.skipped ? ` (${check.skipped})` : ''}`, protects];
  const { values, rows, spreads } = measured;
  const worst = values[worstAt] as number;
  const misses = values.filter((value) => !meets(target, value)).length;
  const factor = target.kind === 'max' ? target.bound / worst : worst / target.bound;
  const worstText = `${values.length === 1 ? '' : `worst ${rows[worstAt]}, `}${withUnit(target, worst)}`;
  // A difference can read zero or below (noise around a tiny cost): no ratio to quote then.
  const margin = factor > 0 && Number.isFinite(factor) ? `${factor.toFixed(2)}x margin` : 'at or under zero';
  const over = `${(1 / factor).toFixed(2)}x ${target.kind === 'max' ? 'over' : 'under'}${values.length === 1 ? '' : `, ${misses}/${values.length} rows`}`;
  const spread = spreads?.[worstAt];
  const range = verdict === 'NOISY' && spread ? `; ${withUnit(target, spread.low)} to ${withUnit(target, spread.high)} in this run` : '';
  const lines = [`${head(verdict)}${worstText} (${misses === 0 ? margin : over}${range})`];
  if (verdict === 'FAIL') lines.push(`       ${causeText(judgement, worst)}`);
  lines.push(protects);
  return lines;
}

function causeText(judgement: Judgement, worst: number): string {
  const { target } = judgement.check;
  const machine = judgement.machine ?? null;
  if (target.scale === 'fixed') return "the code's: a size, or a figure measured against another beside it in the same passes, which the machine's speed does not excuse";
  if (machine === null || machine === undefined) return "the code's: no machine speed was measured to scale it by";
  const scaled = withUnit(target, atReferenceSpeed(target, worst, machine));
  return judgement.cause === 'machine'
    ? `the machine's: its speed probes took ${machine.factor.toFixed(2)}x the reference machine's CPU; scaled to it, ${scaled} meets the bound`
    : `the code's: its speed probes took ${machine.factor.toFixed(2)}x the reference machine's CPU; scaled to it, ${scaled} still misses the bound`;
}
