/**
 * How the bench prints: every line fits a terminal of WIDTH columns, tables shrink their first
 * column to fit (abbreviating its names), prose is wrapped, and each question's detail is kept
 * until the verdicts have been printed (--detail prints it after them). And the few statistics
 * every question uses: median, quantiles, a figure's spread.
 */

/** The widest line the bench prints. */
export const WIDTH = 100;

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

/** What a caught error says, in its first line: a failing step's reason in a report. */
export function firstLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] as string) : String(error);
}

/** A fixed-point figure; 1000 and more without decimals. */
export function figure(value: number, digits: number): string {
  if (!Number.isFinite(value)) return '-';
  return Math.abs(value) >= 1000 ? value.toFixed(0) : value.toFixed(digits);
}

/** The `q` quantile of sorted values, linearly interpolated. */
export function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = sorted[Math.floor(at)] as number;
  const above = sorted[Math.ceil(at)] as number;
  return below + (above - below) * (at - Math.floor(at));
}

/** The run's own spread of one figure: the range its samples leave it in. */
export interface Spread {
  low: number;
  high: number;
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

/**
 * A question's detail: sections of lines, kept until the verdicts have been printed.
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
