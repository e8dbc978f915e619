/**
 * The bracket stream of the inline pass: one record per link or image opener (`[` or `![`),
 * BRACKET_STRIDE ints each, in source order; a bracket's id is its record's offset. This module
 * alone knows the layout.
 *
 * Fields: labelStart (the index after the opener); state (literal, link or image: set when the
 * bracket forms one, so an image's state says so only once it closes); bottom (the newest
 * delimiter run when the opener was pushed, or NONE: emphasis inside the label is matched above
 * it); image (the opener is `![`). Packed as [labelStart * 4 + state, (bottom + 1) * 2 + image].
 *
 * Invariant: the pass records a bracket at its `[` (an image's `!` comes before it), so
 * `bracketBound(src, from)` bounds the brackets it can still record from `from` on.
 * Linear bound: O(1) per field; bracketBound is one search of the rest of the source.
 */
import * as chars from './chars';

// Imported values are bound once, at load (see chars.ts).
const { BRACKET_OPENERS } = chars;

/** The ints of a bracket record, in order, then the record's length. */
const enum Field {
  LabelState,
  BottomImage,
  Stride,
}
export const BRACKET_STRIDE = Field.Stride;
/** What the bracket formed: its state, in the low STATE_BITS bits of the first int. */
const enum State {
  Literal,
  Link,
  Image,
}
const STATE_BITS = 2;
const STATE_MASK = 3;

/** Writes bracket `id`: literal so far, its label from `labelStart`, delimiter runs above `bottom` inside it. */
export function writeBracket(records: Int32Array, id: number, labelStart: number, bottom: number, image: boolean): void {
  records[id + Field.LabelState] = (labelStart << STATE_BITS) + State.Literal;
  records[id + Field.BottomImage] = ((bottom + 1) << 1) + (image ? 1 : 0);
}

export function bracketLabelStart(records: Int32Array, b: number): number {
  return (records[b + Field.LabelState] as number) >> STATE_BITS;
}

export function bracketIsImage(records: Int32Array, b: number): boolean {
  return ((records[b + Field.BottomImage] as number) & 1) === 1;
}

/** The newest delimiter run when the bracket was pushed (NONE when there was none). */
export function bracketBottom(records: Int32Array, b: number): number {
  return ((records[b + Field.BottomImage] as number) >> 1) - 1;
}

/** The bracket forms a link, or an image when `image`. */
export function setBracketFormed(records: Int32Array, b: number, image: boolean): void {
  records[b + Field.LabelState] = (bracketLabelStart(records, b) << STATE_BITS) + (image ? State.Image : State.Link);
}

/** Whether the bracket formed a link or an image. */
export function bracketFormed(records: Int32Array, b: number): boolean {
  return ((records[b + Field.LabelState] as number) & STATE_MASK) !== State.Literal;
}

/** Whether the bracket formed an image. */
export function bracketFormedImage(records: Int32Array, b: number): boolean {
  return ((records[b + Field.LabelState] as number) & STATE_MASK) === State.Image;
}

/** Where the opener (`[`, or the `!` of `![`) starts. */
export function bracketOpenerStart(records: Int32Array, b: number): number {
  return bracketLabelStart(records, b) - 1 - ((records[b + Field.BottomImage] as number) & 1);
}

/** The first bracket at or after id `b` (and before `end`) that formed a link or an image, or `end`. */
export function nextFormedBracket(records: Int32Array, b: number, end: number): number {
  while (b < end && !bracketFormed(records, b)) b += BRACKET_STRIDE;
  return b;
}

/** Brackets the pass can still record from `from` (an opening `[`) on: one per opener char. */
export function bracketBound(src: string, from: number): number {
  let count = 0;
  for (const opener of BRACKET_OPENERS) for (let at = src.indexOf(opener, from); at >= 0; at = src.indexOf(opener, at + 1)) count++;
  return count;
}
