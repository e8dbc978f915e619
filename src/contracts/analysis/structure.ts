/**
 * What the four body-reading contracts need from a note's Markdown, and the
 * input cap. Invariant: builders see only a NoteStructure, never a parse
 * tree. Linear bound: O(1) (types and one length check).
 */
import { ContractError } from '../errors';

export const MAX_NOTE_INPUT_CHARS = 1_000_000;
export const MAX_NOTE_HEADINGS = 500;

export interface HeadingInfo {
  /** 1..6 */
  level: number;
  /** NFC-normalized, whitespace-folded, trimmed plain text. */
  text: string;
  /** UTF-16 offsets of the heading node in the body (null when unknown). */
  start: number | null;
  end: number | null;
}

export interface BlockInfo {
  /** UTF-16 start offset of a top-level, non-heading block. */
  start: number | null;
  substantive: boolean;
}

export interface NoteStructure {
  /** Every heading in document pre-order, wherever nested (blockquote, list item, ...). */
  headings: HeadingInfo[];
  /** Direct children of the document that are not headings, in order. */
  blocks: BlockInfo[];
}

/** Refuses (never parses) a body longer than 1,000,000 UTF-16 code units. */
export function assertBodyWithinCap(body: string): void {
  if (body.length > MAX_NOTE_INPUT_CHARS) throw new ContractError('NoteTooLarge');
}
