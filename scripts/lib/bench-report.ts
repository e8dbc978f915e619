/**
 * How the bench prints (scripts/bench.ts only): every line fits a terminal of WIDTH columns,
 * tables shrink their first column to fit (abbreviating its names), prose is wrapped, and the
 * report is buffered so that the summary of the targets comes first and the detail after (or
 * alone). Every target reads PASS, FAIL or NOISY with its margin, from a full or a --quick run.
 */

/** The widest line the bench prints. */
export const WIDTH = 100;

/** A ratio of two timings is printed only when both are medians of at least this many samples. */
export const MIN_RATIO_SAMPLES = 3;

/** A timing: the median CPU ms and how many samples it is the median of. */
export interface Timing {
  ms: number;
  samples: number;
}

/** `a / b` with `digits` decimals and an `x`, or null when either side has too few samples to be a median. */
export function ratioOf(a: Timing, b: Timing, digits = 1): string | null {
  if (Math.min(a.samples, b.samples) < MIN_RATIO_SAMPLES) return null;
  return `${(a.ms / b.ms).toFixed(digits)}x`;
}

/**
 * Words of `text` in lines of at most `width` columns, later lines indented by `indent`. A word
 * longer than a line is cut.
 */
export function wrap(text: string, width = WIDTH, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length <= width) {
      line += ` ${word}`;
      continue;
    }
    if (line !== '') lines.push(line);
    line = (lines.length === 0 ? '' : indent) + word;
    while (line.length > width) {
      lines.push(line.slice(0, width));
      line = indent + line.slice(width);
    }
  }
  lines.push(line);
  return lines;
}

/**
 * `name` in at most `width` columns: as it is when it fits, else without a trailing parenthetical,
 * else without its backtick examples, else cut (at a word boundary if one is near) with `...`.
 */
export function abbreviate(name: string, width: number): string {
  if (name.length <= width) return name;
  const tidy = (text: string): string => text.replace(/\s+/g, ' ').replace(/\s+([,.)])/g, '$1').trim();
  const withoutParenthetical = tidy(name.replace(/\s*\([^()]*\)\s*$/, ''));
  if (withoutParenthetical.length <= width) return withoutParenthetical;
  const withoutExamples = tidy(withoutParenthetical.replace(/`[^`]*`+/g, ' '));
  if (withoutExamples.length <= width) return withoutExamples;
  // Cut at a word boundary when that keeps most of the room.
  const room = Math.max(0, width - 3);
  const head = withoutExamples.slice(0, room);
  const space = head.lastIndexOf(' ');
  return `${(space >= room * 0.6 ? head.slice(0, space) : head).replace(/[\s,]+$/, '')}...`;
}

export interface Column {
  header: string;
  /** Text columns are left-aligned; numbers right-aligned (the default). */
  text?: boolean;
}

/**
 * An aligned table, columns two spaces apart, a rule under the header. When it is wider than
 * `width`, the first column is narrowed (to no less than 12) and its cells abbreviated; cells the
 * abbreviation would make equal are cut in the middle instead, so rows stay distinct.
 */
export function formatTable(columns: Column[], rows: string[][], width = WIDTH): string[] {
  const widths = columns.map((column, index) => Math.max(column.header.length, ...rows.map((row) => (row[index] ?? '').length)));
  const total = (): number => widths.reduce((sum, each) => sum + each, 0) + 2 * (columns.length - 1);
  let firstCells = rows.map((row) => row[0] ?? '');
  if (total() > width) {
    widths[0] = Math.max(12, widths[0] - (total() - width));
    const abbreviated = firstCells.map((cell) => abbreviate(cell, widths[0]));
    // Names that abbreviate alike keep their start and their end: they differ somewhere.
    const cut = (cell: string): string => {
      const room = (widths[0] as number) - 3;
      const head = Math.ceil(room / 2);
      return cell.length <= (widths[0] as number) ? cell : `${cell.slice(0, head)}...${cell.slice(cell.length - (room - head))}`;
    };
    const original = firstCells;
    const merged = (cell: string, index: number): boolean =>
      abbreviated.some((other, at) => other === cell && original[at] !== original[index]);
    firstCells = abbreviated.map((cell, index) => (merged(cell, index) ? cut(original[index] as string) : cell));
  }
  const line = (cells: string[]): string =>
    cells
      .map((cell, index) => ((columns[index] as Column).text ? cell.padEnd(widths[index] as number) : cell.padStart(widths[index] as number)))
      .join('  ')
      .trimEnd();
  return [
    line(columns.map((column) => column.header)),
    widths.map((each) => '-'.repeat(each)).join('  '),
    ...rows.map((row, index) => line([firstCells[index] as string, ...row.slice(1)])),
  ];
}

/** The median of the values (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A fixed-point figure; 1000 and more without decimals (a rate of 19063 MB/s needs none). */
/** What a caught error says, in its first line: a failing step's reason in a report. */
export function firstLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] as string) : String(error);
}

export function figure(value: number, digits: number): string {
  if (!Number.isFinite(value)) return '-';
  return Math.abs(value) >= 1000 ? value.toFixed(0) : value.toFixed(digits);
}

/** A target's verdict: PASS and FAIL are clear of the bound, NOISY straddles it. */
export type Verdict = 'PASS' | 'FAIL' | 'NOISY';

/** The run's own spread of one figure: the range its samples leave it in. */
export interface Spread {
  low: number;
  high: number;
}

/** A bound on a figure: 'max', at most `bound`; 'min', at least. */
export interface Bound {
  bound: number;
  kind: 'max' | 'min';
}

/** The `q` quantile of sorted values, linearly interpolated. */
export function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = sorted[Math.floor(at)] as number;
  const above = sorted[Math.ceil(at)] as number;
  return below + (above - below) * (at - Math.floor(at));
}

/**
 * The spread of samples: min to max up to SPREAD_IQR_FROM samples (each repetition counts), the
 * interquartile range from there on (one outlier in many samples does not widen it).
 */
export const SPREAD_IQR_FROM = 5;
export function spreadOf(samples: number[]): Spread {
  const sorted = samples.filter((sample) => !Number.isNaN(sample)).sort((a, b) => a - b);
  if (sorted.length === 0) return { low: NaN, high: NaN };
  if (sorted.length < SPREAD_IQR_FROM) return { low: sorted[0] as number, high: sorted[sorted.length - 1] as number };
  return { low: quantile(sorted, 0.25), high: quantile(sorted, 0.75) };
}

/** The verdict of a spread against a bound: PASS when all of it meets the bound, FAIL when none does. */
export function judgeSpread(target: Bound, spread: Spread): Verdict {
  const meets = (value: number): boolean => (target.kind === 'max' ? value <= target.bound : value >= target.bound);
  if (Number.isNaN(spread.low) || Number.isNaN(spread.high)) return 'FAIL';
  const [worst, best] = target.kind === 'max' ? [spread.high, spread.low] : [spread.low, spread.high];
  if (meets(worst)) return 'PASS';
  return meets(best) ? 'NOISY' : 'FAIL';
}

/** The verdict rule: a target and the samples of one figure give PASS, FAIL or NOISY (spreadOf). */
export function judge(target: Bound, samples: number[]): Verdict {
  return judgeSpread(target, spreadOf(samples));
}

/** One target: a bound on a figure, and the figures of the rows it applies to. */
export interface TargetCheck extends Bound {
  /** What is bounded, with the bound: "pathological rows at 100 KB, at most 10 ms". */
  label: string;
  values: number[];
  /**
   * Per value, the run's own spread (its repetitions), when it has one. A value without one is
   * judged on itself.
   */
  spreads?: (Spread | undefined)[];
  /** Size, allocations, bytes: the same on any machine, so judged on the value alone, never NOISY. */
  deterministic?: boolean;
  /** Unit printed after the worst value ("ms", "MB/s", "B/char", "x" or ""). */
  unit: string;
  digits: number;
  /** Why it was not measured, when it was not. */
  skipped?: string;
}

/** The verdict of a target over its rows: FAIL if a row fails, else NOISY if a row is, else PASS; null when not measured. */
export function checkVerdict(check: TargetCheck): Verdict | null {
  if (check.skipped !== undefined || check.values.length === 0) return null;
  const verdicts = check.values.map((value, index) => {
    const spread = check.deterministic ? undefined : check.spreads?.[index];
    return judgeSpread(check, spread ?? { low: value, high: value });
  });
  return verdicts.includes('FAIL') ? 'FAIL' : verdicts.includes('NOISY') ? 'NOISY' : 'PASS';
}

/**
 * A target's line: "PASS   label: worst 3.25 ms (3.08x margin)", "FAIL   label: worst 12.10 ms
 * (1.21x over, 1/2 rows)", "NOISY  label: 1.48x (1.31x to 1.62x in this run)", "-      label:
 * not measured (...)". The margin is the worst value's against the bound.
 */
export function verdictLine(check: TargetCheck, labelWidth = 0): string {
  const head = (word: string): string => `${word.padEnd(6)} ${`${check.label}:`.padEnd(labelWidth)} `;
  const word = checkVerdict(check);
  if (word === null) return `${head('-')}not measured${check.skipped ? ` (${check.skipped})` : ''}`;
  const worstAt = check.values.reduce((best, value, index) => ((check.kind === 'max' ? value > (check.values[best] as number) : value < (check.values[best] as number)) ? index : best), 0);
  const worst = check.values[worstAt] as number;
  const misses = check.values.filter((value) => (check.kind === 'max' ? value > check.bound : value < check.bound)).length;
  const factor = check.kind === 'max' ? check.bound / worst : worst / check.bound;
  const unit = check.unit === '' || check.unit === 'x' ? check.unit : ` ${check.unit}`;
  const worstText = `${check.values.length === 1 ? '' : 'worst '}${figure(worst, check.digits)}${unit}`;
  const rows = check.values.length === 1 ? '' : `, ${misses}/${check.values.length} rows`;
  // A difference can read zero or below (noise around a tiny cost): no ratio to quote then.
  const margin = factor > 0 && Number.isFinite(factor) ? `${factor.toFixed(2)}x margin` : 'at or under zero';
  const detail = misses === 0 ? margin : `${(1 / factor).toFixed(2)}x ${check.kind === 'max' ? 'over' : 'under'}${rows}`;
  const spread = check.spreads?.[worstAt];
  const range = word === 'NOISY' && spread ? `; ${figure(spread.low, check.digits)} to ${figure(spread.high, check.digits)}${unit} in this run` : '';
  return `${head(word)}${worstText} (${detail}${range})`;
}

/**
 * The bench's output: sections of lines, kept until `print`, which writes the summary before them.
 * Every line is at most WIDTH columns: prose through `text` is wrapped, tables come from
 * formatTable, and a longer line that slips through is wrapped when printed.
 */
export class Report {
  private readonly lines: string[] = [];

  section(title: string): void {
    this.lines.push('', ...wrap(`## ${title}`, WIDTH, '   '), '');
  }

  /** Prose, wrapped to WIDTH. */
  text(paragraph: string, indent = ''): void {
    this.lines.push(...wrap(paragraph, WIDTH, indent));
  }

  /** Lines as they are (tables). */
  raw(...lines: string[]): void {
    this.lines.push(...lines);
  }

  table(columns: Column[], rows: string[][]): void {
    this.lines.push(...formatTable(columns, rows));
  }

  /** Column notes under a table: "name: what it means" each, wrapped with a hanging indent. */
  legend(entries: [string, string][]): void {
    this.lines.push('');
    for (const [name, meaning] of entries) this.lines.push(...wrap(`${name}: ${meaning}`, WIDTH, '    '));
  }

  /** Everything so far, every line WIDTH columns or fewer. */
  output(): string[] {
    return this.lines.flatMap((line) => (line.length <= WIDTH ? [line] : wrap(line, WIDTH, '    ')));
  }
}
