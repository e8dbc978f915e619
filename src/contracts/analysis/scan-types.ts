/**
 * What the block scan hands to the analysis entry point. Invariant: every
 * offset is a UTF-16 offset into the scanned text. Linear bound: O(1) per
 * call, O(lines) for InlineSources.lines.
 */
/**
 * The inline sources (a heading's text lines or a paragraph's lines, container prefixes removed),
 * flat: source i is lines first[i] .. first[i + 1] - 1 of one table of [start, end) offsets, so a
 * source costs two or three numbers, not an object and two arrays (a note of 100,000 headings).
 */
export class InlineSources {
  private readonly first: number[] = [0];
  private readonly bounds: number[] = [];

  get length(): number {
    return this.first.length - 1;
  }

  /** Adds the source of lines [from, to) of `starts`/`ends`; returns its index. */
  add(starts: readonly number[], ends: readonly number[], from: number, to: number): number {
    for (let line = from; line < to; line++) this.bounds.push(starts[line] as number, ends[line] as number);
    this.first.push(this.bounds.length >> 1);
    return this.first.length - 2;
  }

  /** Adds a one-line source [start, end); returns its index. */
  addLine(start: number, end: number): number {
    this.bounds.push(start, end);
    this.first.push(this.bounds.length >> 1);
    return this.first.length - 2;
  }

  /** The lines of source `index`, each as a slice of `text`. */
  lines(text: string, index: number): string[] {
    const from = this.first[index] as number;
    const lines: string[] = new Array((this.first[index + 1] as number) - from);
    for (let line = 0; line < lines.length; line++) lines[line] = text.slice(this.bounds[2 * (from + line)], this.bounds[2 * (from + line) + 1]);
    return lines;
  }
}

export interface ScannedHeading {
  level: number;
  start: number;
  end: number;
  /** Index into ScanResult.sources. */
  source: number;
}

export interface ScannedBlock {
  start: number;
  substantive: boolean;
  /** Sources whose substance decides the bit when `substantive` is still false. */
  pending: number[] | null;
}

export interface ScanResult {
  headings: ScannedHeading[];
  blocks: ScannedBlock[];
  sources: InlineSources;
  /** Labels of every definition (raw text, whitespace runs folded to one space). */
  labels: string[];
}

/** The scan state the content step (content.ts) reads and appends to. */
export interface ContentHost {
  readonly body: string;
  readonly headings: ScannedHeading[];
  readonly blocks: ScannedBlock[];
  readonly sources: InlineSources;
  readonly labels: string[];
}
