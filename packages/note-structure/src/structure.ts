/**
 * What the analysis answers for a note's Markdown, and the input cap.
 * Invariant: a caller sees only a NoteStructure or its columns
 * (StructureColumns, the form without an object per heading or block), never
 * a parse tree; the two convert into each other without loss. Linear bound:
 * O(1) for the types and the length check, O(headings + blocks) for a
 * conversion.
 */

/** The longest body analyzed, in UTF-16 code units; a longer one is refused unread. */
export const MAX_NOTE_INPUT_CHARS = 1_000_000;

/** The one refusal of the analysis: a body over MAX_NOTE_INPUT_CHARS. Its message is fixed and holds nothing of the note. */
export class NoteTooLargeError extends Error {
  constructor() {
    super('Note too large');
    this.name = 'NoteTooLargeError';
  }
}

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
  if (body.length > MAX_NOTE_INPUT_CHARS) throw new NoteTooLargeError();
}

/**
 * A NoteStructure as columns (no object per heading or block): heading i has headingLevel[i], headingStart[i], headingEnd[i] (-1 for null) and,
 * for i < headingTexts.length, text headingTexts[i] (later texts are ''); block i has blockStart[i]
 * (-1 for null) and blockSubstantive[i] (1 or 0).
 */
export interface StructureColumns {
  headingCount: number;
  headingLevel: ArrayLike<number>;
  headingStart: ArrayLike<number>;
  headingEnd: ArrayLike<number>;
  headingTexts: readonly string[];
  blockCount: number;
  blockStart: ArrayLike<number>;
  blockSubstantive: ArrayLike<number>;
}

/** The columns of a NoteStructure (the oracle's, or one built by hand). */
export function columnsOf(structure: NoteStructure): StructureColumns {
  const { headings, blocks } = structure;
  return {
    headingCount: headings.length,
    headingLevel: headings.map((heading) => heading.level),
    headingStart: headings.map((heading) => heading.start ?? -1),
    headingEnd: headings.map((heading) => heading.end ?? -1),
    headingTexts: headings.map((heading) => heading.text),
    blockCount: blocks.length,
    blockStart: blocks.map((block) => block.start ?? -1),
    blockSubstantive: blocks.map((block) => (block.substantive ? 1 : 0)),
  };
}

/** The NoteStructure the columns hold. */
export function structureOf(columns: StructureColumns): NoteStructure {
  const headings: HeadingInfo[] = new Array(columns.headingCount);
  for (let index = 0; index < columns.headingCount; index++) {
    const start = columns.headingStart[index];
    const end = columns.headingEnd[index];
    headings[index] = {
      level: columns.headingLevel[index],
      text: index < columns.headingTexts.length ? columns.headingTexts[index] : '',
      start: start === -1 ? null : start,
      end: end === -1 ? null : end,
    };
  }
  const blocks: BlockInfo[] = new Array(columns.blockCount);
  for (let index = 0; index < columns.blockCount; index++) {
    const start = columns.blockStart[index];
    blocks[index] = { start: start === -1 ? null : start, substantive: columns.blockSubstantive[index] !== 0 };
  }
  return { headings, blocks };
}
