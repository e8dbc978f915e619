/**
 * The delimiter stream of the inline pass: one record per run of `*` or `_` that may take part in
 * emphasis, DELIMITER_STRIDE ints each, in source order; a run's id is its record's offset, so ids
 * grow in source order. The live runs form a doubly linked list through `prev` and `next` (NONE
 * at either end), which emphasis matching (inline-emphasis.ts) cuts and splices. This module
 * alone knows the layout.
 *
 * Fields: info (the run's length, its marker and its flags CAN_OPEN, CAN_CLOSE, BEFORE_NUL, read
 * through the run* functions of the word runInfo returns); start; usedLeft and usedRight (marker
 * chars matched as a closer, taken from the left, and as an opener, taken from the right); prev;
 * next. Packed as [length * 16 + STAR (8) + flags, start, usedLeft, usedRight, prev, next].
 *
 * Invariant: the pass records a run at its first char, which follows a different char or an
 * escaping backslash, so `runBound(src, from)` bounds the runs it can still record from `from` on.
 * Linear bound: O(1) per field and per list step; runBound is one scan of the rest of the source.
 */
import * as chars from './chars';

// Imported values are bound once, at load (see chars.ts).
const { BACKSLASH, RUN_MARKERS, STAR, UNDERSCORE } = chars;

/** No run: the end of a list, or the bottom below every run. */
export const NONE = -1;
// Flags of a run, as runFlags (inline.ts) computes them.
export const CAN_OPEN = 1;
export const CAN_CLOSE = 2;
/** Directly followed by a NUL in the source (micromark keeps that opener's leftover whole). */
export const BEFORE_NUL = 4;
/** In info: set for `*`, clear for `_`; below it the flags, above it the length. */
const STAR_BIT = 8;
const LENGTH_SHIFT = 4;

/** The ints of a run record, in order, then the record's length. */
const enum Field {
  Info,
  Start,
  UsedLeft,
  UsedRight,
  Prev,
  Next,
  Stride,
}
export const DELIMITER_STRIDE = Field.Stride;

/** Writes run `id` of `length` chars of `marker` at `start`, nothing used, after `prev` and before nothing. */
export function writeRun(records: Int32Array, id: number, start: number, length: number, marker: number, flags: number, prev: number): void {
  records[id + Field.Info] = (length << LENGTH_SHIFT) + (marker === STAR ? STAR_BIT : 0) + flags;
  records[id + Field.Start] = start;
  records[id + Field.UsedLeft] = 0;
  records[id + Field.UsedRight] = 0;
  records[id + Field.Prev] = prev;
  records[id + Field.Next] = NONE;
}

/** The run's info word: read its parts with runLength, runCanOpen, runCanClose, runBeforeNul, runMarker. */
export function runInfo(records: Int32Array, d: number): number {
  return records[d + Field.Info] as number;
}

export function runLength(info: number): number {
  return info >> LENGTH_SHIFT;
}

export function runCanOpen(info: number): boolean {
  return (info & CAN_OPEN) !== 0;
}

export function runCanClose(info: number): boolean {
  return (info & CAN_CLOSE) !== 0;
}

export function runBeforeNul(info: number): boolean {
  return (info & BEFORE_NUL) !== 0;
}

/** The run's marker char. */
export function runMarker(info: number): number {
  return (info & STAR_BIT) !== 0 ? STAR : UNDERSCORE;
}

export function runIsStar(info: number): boolean {
  return (info & STAR_BIT) !== 0;
}

/** Whether two runs have the same marker. */
export function sameMarker(info: number, other: number): boolean {
  return (info & STAR_BIT) === (other & STAR_BIT);
}

export function runStart(records: Int32Array, d: number): number {
  return records[d + Field.Start] as number;
}

/** Chars of the run not yet matched. */
export function runRemaining(records: Int32Array, d: number): number {
  return ((records[d + Field.Info] as number) >> LENGTH_SHIFT) - (records[d + Field.UsedLeft] as number) - (records[d + Field.UsedRight] as number);
}

export function usedLeft(records: Int32Array, d: number): number {
  return records[d + Field.UsedLeft] as number;
}

export function usedRight(records: Int32Array, d: number): number {
  return records[d + Field.UsedRight] as number;
}

/** Whether a match has taken chars of the run, on either side. */
export function runUsed(records: Int32Array, d: number): boolean {
  return (records[d + Field.UsedLeft] as number) !== 0 || (records[d + Field.UsedRight] as number) !== 0;
}

/** Records that an emphasis takes `use` chars of opener `opener` and of closer `closer`. */
export function useChars(records: Int32Array, opener: number, closer: number, use: number): void {
  records[opener + Field.UsedRight] = (records[opener + Field.UsedRight] as number) + use;
  records[closer + Field.UsedLeft] = (records[closer + Field.UsedLeft] as number) + use;
}

export function runPrev(records: Int32Array, d: number): number {
  return records[d + Field.Prev] as number;
}

export function runNext(records: Int32Array, d: number): number {
  return records[d + Field.Next] as number;
}

export function setRunNext(records: Int32Array, d: number, next: number): void {
  records[d + Field.Next] = next;
}

/** Takes `d` out of its list (the list's ends are not tracked while emphasis is matched). */
export function unlinkRun(records: Int32Array, d: number): void {
  const prev = records[d + Field.Prev] as number;
  const next = records[d + Field.Next] as number;
  if (prev !== NONE) records[prev + Field.Next] = next;
  if (next !== NONE) records[next + Field.Prev] = prev;
}

/**
 * Detaches the runs strictly between `opener` and `closer` as a list of their own, and returns
 * its first one if a match has taken chars of any of them (they may match anew), else NONE.
 */
export function detachBetween(records: Int32Array, opener: number, closer: number): number {
  const first = records[opener + Field.Next] as number;
  if (first === closer) return NONE;
  const last = records[closer + Field.Prev] as number;
  records[opener + Field.Next] = closer;
  records[closer + Field.Prev] = opener;
  records[first + Field.Prev] = NONE;
  records[last + Field.Next] = NONE;
  for (let d = first; d !== NONE; d = records[d + Field.Next] as number) {
    if (runUsed(records, d)) return first;
  }
  return NONE;
}

/** The first run at or after id `d` (and before `end`) of which a match has taken chars, or `end`. */
export function nextUsedRun(records: Int32Array, d: number, end: number): number {
  while (d < end && !runUsed(records, d)) d += DELIMITER_STRIDE;
  return d;
}

/**
 * Runs the pass can still record that start at or after `from`: the marker chars from there on
 * that start a run (at `from`, after a different char, or two chars after a backslash).
 */
export function runBound(src: string, from: number): number {
  const markers = RUN_MARKERS;
  let count = 0;
  for (let at = from; at < src.length; at++) {
    const c = src.charCodeAt(at);
    if (c < 128 && markers[c] === 1 && (at === from || src.charCodeAt(at - 1) !== c || src.charCodeAt(at - 2) === BACKSLASH)) count++;
  }
  return count;
}
