/**
 * The item stream of the inline pass: one record per place where the plain text differs from
 * the source other than emphasis and link or image openers (escapes, character references, code
 * spans, raw HTML and autolinks, hard breaks, dropped spaces, link and image ends). Records are
 * ITEM_STRIDE ints each, in source order, in an Int32Array the pass grows (growth.ts); this
 * module alone knows their layout.
 *
 * Fields: kind; start and end (the source range the item replaces); value (REPLACE: the index of
 * its string among the pass's decoded references; WRAP: where the source range it keeps starts);
 * valueEnd (WRAP: where that range ends). Packed as [value * 8 + kind, start, end, valueEnd].
 *
 * Invariant: an item is triggered by an ITEM_TRIGGERS char (chars.ts) at or after its start, and
 * no char triggers two, so `itemBound(src, from)` bounds the items the pass can still record for
 * items starting at or after `from`.
 * Linear bound: O(1) per field; itemBound is one scan of the rest of the source.
 */
import * as chars from './chars';

// Imported values are bound once, at load (see chars.ts).
const { ITEM_TRIGGERS } = chars;

/** Replace [start, end) with the string `value` indexes. */
export const REPLACE = 0;
/** Replace [start, end) with a boundary, the source range [value, valueEnd), a boundary (code span, raw HTML, autolink). */
export const WRAP = 1;
/** Replace [start, end) with a boundary (hard break). */
export const BREAK = 2;
/** Drop [start, end) (spaces before a soft line ending). */
export const DROP = 3;
/** `]` and the resource or reference that closed a link / an image: one boundary. */
export const LINK_CLOSE = 6;
export const IMAGE_CLOSE = 7;

/** The ints of an item record, in order, then the record's length. */
const enum Field {
  KindValue,
  Start,
  End,
  ValueEnd,
  Stride,
}
export const ITEM_STRIDE = Field.Stride;
/** Kinds take the low three bits of the first int, the value the rest. */
const KIND_BITS = 3;
const KIND_MASK = 7;

export function writeItem(records: Int32Array, at: number, kind: number, start: number, end: number, value: number, valueEnd: number): void {
  records[at + Field.KindValue] = (value << KIND_BITS) + kind;
  records[at + Field.Start] = start;
  records[at + Field.End] = end;
  records[at + Field.ValueEnd] = valueEnd;
}

export function itemKind(records: Int32Array, at: number): number {
  return (records[at + Field.KindValue] as number) & KIND_MASK;
}

export function itemStart(records: Int32Array, at: number): number {
  return records[at + Field.Start] as number;
}

export function itemValue(records: Int32Array, at: number): number {
  return (records[at + Field.KindValue] as number) >> KIND_BITS;
}

export function itemEnd(records: Int32Array, at: number): number {
  return records[at + Field.End] as number;
}

export function itemValueEnd(records: Int32Array, at: number): number {
  return records[at + Field.ValueEnd] as number;
}

/** Items the pass can still record that start at or after `from`: the item triggers from there on. */
export function itemBound(src: string, from: number): number {
  const triggers = ITEM_TRIGGERS;
  let count = 0;
  for (let at = from; at < src.length; at++) {
    const c = src.charCodeAt(at);
    if (c < 128 && triggers[c] === 1) count++;
  }
  return count;
}
