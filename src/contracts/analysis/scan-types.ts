/**
 * What the block scan hands to the analysis entry point. Invariant: every
 * offset is a UTF-16 offset into the scanned text. Linear bound: O(1).
 */
/** An inline source: a heading's text lines or a paragraph's lines, container prefixes removed. */
export interface InlineSource {
  starts: number[];
  ends: number[];
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
  sources: InlineSource[];
  /** Labels of every definition (raw text, whitespace runs folded to one space). */
  labels: string[];
}

/** The scan state the content step (content.ts) reads and appends to. */
export interface ContentHost {
  readonly body: string;
  readonly headings: ScannedHeading[];
  readonly blocks: ScannedBlock[];
  readonly sources: InlineSource[];
  readonly labels: string[];
}
