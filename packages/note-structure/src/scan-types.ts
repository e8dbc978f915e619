/**
 * What the block scan hands to the analysis entry point: flat tables of
 * int32 columns (headings, top-level blocks, inline sources, definition
 * label ranges, whose table is definitions.ts's DefinitionLabels) rather than an
 * object per record, so a note of 100,000 headings or blocks costs a few
 * bytes per record and no per-record garbage. Invariant: every offset is a
 * UTF-16 offset into the scanned text; record i of a table is the values at
 * index i of its columns, in the order the scan added them. Linear bound:
 * O(1) amortized per add (columns double), O(lines) for InlineSources.lines.
 */
import * as growth from './growth';
import type { DefinitionLabels } from './definitions';

// Imported values are bound once, at load (see chars.ts).
const { grown, widened } = growth;

/** The empty start of every column (shared: a scan of a small note allocates only the columns it fills). */
const NO_INTS = new Int32Array(0);
const NO_BYTES = new Uint8Array(0);

/** The ints of a line's entry in InlineSources' bounds, in order, then the entry's length. */
const enum LineBound {
  Start,
  End,
  Stride,
}

/**
 * The inline sources (a heading's text lines or a paragraph's lines, container prefixes removed):
 * source i is lines first[i] .. first[i + 1] - 1 of one table of lines, each a [start, end) offset
 * pair (LineBound) in `bounds`.
 */
export class InlineSources {
  length = 0;
  private first: Int32Array = NO_INTS;
  private bounds: Int32Array = NO_INTS;
  private lineCount = 0;

  /** Adds the source of lines [from, to) of `starts`/`ends`; returns its index. */
  add(starts: ArrayLike<number>, ends: ArrayLike<number>, from: number, to: number): number {
    const needed = LineBound.Stride * (this.lineCount + to - from);
    if (needed > this.bounds.length) this.bounds = widened(this.bounds, needed);
    for (let line = from; line < to; line++) this.putLine(starts[line], ends[line]);
    return this.close();
  }

  /** Adds a one-line source [start, end); returns its index. */
  addLine(start: number, end: number): number {
    const needed = LineBound.Stride * (this.lineCount + 1);
    if (needed > this.bounds.length) this.bounds = widened(this.bounds, needed);
    this.putLine(start, end);
    return this.close();
  }

  /** Appends a line (its room is made). */
  private putLine(start: number, end: number): void {
    const at = LineBound.Stride * this.lineCount;
    this.bounds[at + LineBound.Start] = start;
    this.bounds[at + LineBound.End] = end;
    this.lineCount++;
  }

  private close(): number {
    if (this.length + 2 > this.first.length) this.first = widened(this.first, this.length + 2);
    this.first[++this.length] = this.lineCount;
    return this.length - 1;
  }

  /** The lines of source `index`, each as a slice of `text`. */
  lines(text: string, index: number): string[] {
    const from = this.first[index];
    const lines: string[] = new Array(this.first[index + 1] - from);
    for (let line = 0; line < lines.length; line++) {
      const at = LineBound.Stride * (from + line);
      lines[line] = text.slice(this.bounds[at + LineBound.Start], this.bounds[at + LineBound.End]);
    }
    return lines;
  }
}

/** Every heading in document pre-order: level (1-6), node offsets [start, end), index into the sources. */
export class HeadingTable {
  count = 0;
  level: Int32Array = NO_INTS;
  start: Int32Array = NO_INTS;
  end: Int32Array = NO_INTS;
  source: Int32Array = NO_INTS;

  add(level: number, start: number, end: number, source: number): void {
    if (this.count === this.level.length) {
      const needed = this.count + 1;
      this.level = widened(this.level, needed);
      this.start = widened(this.start, needed);
      this.end = widened(this.end, needed);
      this.source = widened(this.source, needed);
    }
    this.level[this.count] = level;
    this.start[this.count] = start;
    this.end[this.count] = end;
    this.source[this.count] = source;
    this.count++;
  }
}

/**
 * The top-level non-heading blocks in order: start offset, whether the block is known substantive
 * (1/0), and a linked list of the inline sources whose substance decides the bit when it is still 0
 * (pendingFirst[i] is -1 or an entry; pendSource[e] is its source, pendNext[e] the next entry or -1).
 * The bit is the "or" over the list, so the list's order does not matter: entries are prepended.
 */
export class BlockTable {
  count = 0;
  start: Int32Array = NO_INTS;
  substantive: Uint8Array = NO_BYTES;
  pendingFirst: Int32Array = NO_INTS;
  pendCount = 0;
  pendSource: Int32Array = NO_INTS;
  pendNext: Int32Array = NO_INTS;

  /** Adds a block starting at `start`, not (yet) substantive; returns its index. */
  add(start: number): number {
    if (this.count === this.start.length) {
      const needed = this.count + 1;
      this.start = widened(this.start, needed);
      this.pendingFirst = widened(this.pendingFirst, needed);
      this.substantive = grown(this.substantive, this.start.length);
    }
    this.start[this.count] = start;
    this.substantive[this.count] = 0;
    this.pendingFirst[this.count] = -1;
    return this.count++;
  }

  /** The block's bit waits on `source` unless it is already known to be true. */
  pendOn(record: number, source: number): void {
    if (this.substantive[record] !== 0) return;
    if (this.pendCount === this.pendSource.length) {
      this.pendSource = widened(this.pendSource, this.pendCount + 1);
      this.pendNext = widened(this.pendNext, this.pendCount + 1);
    }
    const entry = this.pendCount++;
    this.pendSource[entry] = source;
    this.pendNext[entry] = this.pendingFirst[record];
    this.pendingFirst[record] = entry;
  }
}

export interface ScanResult {
  headings: HeadingTable;
  blocks: BlockTable;
  sources: InlineSources;
  /** Labels of every definition. */
  labels: DefinitionLabels;
}

/** The scan state the content step (content.ts) reads and appends to. */
export interface ContentHost {
  readonly body: string;
  readonly headings: HeadingTable;
  readonly blocks: BlockTable;
  readonly sources: InlineSources;
  readonly labels: DefinitionLabels;
}
