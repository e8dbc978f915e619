/**
 * The inline pass's record layouts and its one output step. The pass (inline.ts) records every
 * place where the plain text differs from the source in three streams of Int32Array records,
 * each in source order: items (escapes, references, code, HTML, breaks, link and image ends),
 * delimiter runs (with the marker chars emphasis used on each side) and brackets (with whether
 * each formed a link or an image). Here too: the buffers those records live in, and the upper
 * bounds on how many records the rest of a source can still make.
 *
 * Invariant: renderEdits(src, edits) is src with those edits applied, boundaries written as one
 * space outside image labels and as nothing inside one (mdast-util-to-string joins an image's
 * alt without separators). Records never overlap, so merging the three streams by start
 * position visits the edits in source order.
 * Linear bound: O(n + records): each record and each source char is visited once; the output
 * buffer holds at most n + 2 per record + 2 code units. Record buffers kept between passes hold
 * only zeros and at most SCRATCH_BUDGET ints in all; giving them back costs O(records). A
 * stream grows by at least doubling up to its bound (grownLength): O(records) copying per pass.
 */
import { foldedAsciiToString, foldedUnitsToString } from './utf16-units';

const LF = 10;
const SPACE = 32;
const AMPERSAND = 38;
const STAR = 42;
const LT = 60;
const BACKSLASH = 92;
const RBRACKET = 93;
const UNDERSCORE = 95;
const BACKTICK = 96;

// Item kinds: the places where the output differs from the source, other than emphasis.
/** Replace [start, end) with strings[aux]. */
export const REPLACE = 0;
/** Replace [start, end) with a boundary, the source range [aux, extra), a boundary (code span, raw HTML, autolink). */
export const WRAP = 1;
/** Replace [start, end) with a boundary (hard break). */
export const BREAK = 2;
/** Drop [start, end) (spaces before a soft line ending). */
export const DROP = 3;
/** `]` and the resource or reference that closed a link / an image. */
export const LINK_CLOSE = 6;
export const IMAGE_CLOSE = 7;

// Items: one record of ITEM_STRIDE ints each, in source order.
export const ITEM_STRIDE = 4;
/** aux * 8 + kind. */
export const I_KIND_AUX = 0;
export const I_START = 1;
export const I_END = 2;
export const I_EXTRA = 3;

// Delimiter runs: one record of DELIMITER_STRIDE ints each, in source order; a delimiter's id is
// its record's offset, so ids grow in source order. The live ones form a doubly linked list.
export const DELIMITER_STRIDE = 6;
/** run length * 16 + (8 when the marker is `*`) + flags (CAN_OPEN, CAN_CLOSE, BEFORE_NUL). */
export const D_INFO = 0;
export const D_START = 1;
/** Marker chars matched as closers (used from the left) and as openers (used from the right). */
export const D_LEFT = 2;
export const D_RIGHT = 3;
export const D_PREV = 4;
export const D_NEXT = 5;

// Brackets (`[` or `![`): one record of two ints each, in source order; a bracket's id is its
// record's offset.
/** labelStart * 4 + state (0 literal, 1 link, 2 image); an image's state is set only when it closes. */
export const B_LABEL = 0;
/** (newest delimiter id at push time + 1) * 2 + (1 for `![`, 0 for `[`). */
export const B_BOTTOM_IMAGE = 1;
export const BRACKET_STRIDE = 2;

export const NONE = -1;
export const CAN_OPEN = 1;
export const CAN_CLOSE = 2;
export const BEFORE_NUL = 4;
export const STAR_BIT = 8;

/** `records` copied into `length` ints. */
export function grown(records: Int32Array<ArrayBuffer>, length: number): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(length);
  larger.set(records);
  return larger;
}

/**
 * The length (ints) a stream of `stride`-int records grows to when the one at `at` does not fit,
 * written at `position` of an `n`-char source: the records so far projected over the whole
 * source plus an eighth, at least twice `at`, and never past `cap`, an upper bound on the ints
 * the pass can write to it in all (one scan of the rest of the source at the stream's first
 * growth, see the bounds below). Each growth at least doubles the stream until it reaches `cap`,
 * after which it never grows again: O(records) copying in all. On a source whose records are
 * spread evenly it allocates about the need, where the bound alone can be 3-4x the need.
 */
export function grownLength(at: number, stride: number, position: number, n: number, cap: number): number {
  const projected = Math.ceil(((at / stride) * n * 1.125) / Math.max(position, 1)) * stride;
  return Math.max(at + stride, Math.min(cap, Math.max(2 * at, projected)));
}

/** The chars at which the pass records an item (see itemTriggersFrom). */
const ITEM_TRIGGER = new Uint8Array(128);
for (const c of [LF, AMPERSAND, LT, BACKSLASH, RBRACKET, BACKTICK]) ITEM_TRIGGER[c] = 1;

// Upper bounds on the records a pass can still write from a position on: the cap of a record
// stream's growth (grownLength). Each is one scan of the rest of the source, once per stream per pass.

/**
 * Items recorded from `from` on: each is triggered by an ITEM_TRIGGER char at or after its start
 * (the line ending after dropped spaces or a break, `\`, `&`, a backtick, `<`, `]`), never two
 * by one char.
 */
export function itemTriggersFrom(src: string, from: number): number {
  let count = 0;
  for (let at = from; at < src.length; at++) {
    const c = src.charCodeAt(at);
    if (c < 128 && ITEM_TRIGGER[c] === 1) count++;
  }
  return count;
}

/**
 * Delimiter runs recorded from `from` (a run's start) on. The pass records a run at its first
 * char unless an escape consumed the char before, so every recorded run starts at `from`, after
 * a different char, or two chars after a backslash.
 */
export function runStartsFrom(src: string, from: number): number {
  let count = 0;
  for (let at = from; at < src.length; at++) {
    const c = src.charCodeAt(at);
    if ((c === STAR || c === UNDERSCORE) && (at === from || src.charCodeAt(at - 1) !== c || src.charCodeAt(at - 2) === BACKSLASH)) count++;
  }
  return count;
}

/** Brackets pushed from `from` (an opening `[`) on: one per `[`. */
export function openBracketsFrom(src: string, from: number): number {
  let count = 0;
  for (let at = src.indexOf('[', from); at >= 0; at = src.indexOf('[', at + 1)) count++;
  return count;
}

/** The record buffers of one pass, by stream. */
export interface RecordBuffers {
  items: Int32Array<ArrayBuffer>;
  delimiters: Int32Array<ArrayBuffer>;
  brackets: Int32Array<ArrayBuffer>;
  stack: Int32Array<ArrayBuffer>;
}

/**
 * Record buffers kept from one pass to the next, so a pass writes into memory that is already
 * mapped (on emphasis-dense notes, fresh pages cost about as much as the pass's own work).
 * Between passes they hold only zeros and at most SCRATCH_BUDGET ints (8 MiB) in all. A pass
 * takes them whole, so a nested or failed pass simply works in fresh buffers.
 */
const SCRATCH_BUDGET = 1 << 21;
let scratch: RecordBuffers | null = null;

/** The kept buffers, or fresh small ones. */
export function takeRecordBuffers(): RecordBuffers {
  const taken = scratch;
  scratch = null;
  return taken ?? freshRecordBuffers({});
}

/** `kept`, with a fresh small buffer for every stream it lacks. */
function freshRecordBuffers(kept: Partial<RecordBuffers>): RecordBuffers {
  return {
    items: kept.items ?? new Int32Array(64),
    delimiters: kept.delimiters ?? new Int32Array(96),
    brackets: kept.brackets ?? new Int32Array(32),
    stack: kept.stack ?? new Int32Array(16),
  };
}

/**
 * Gives a pass's buffers back: each is zeroed over its written prefix (the stack never held
 * more entries than brackets were written) and kept while the kept total stays within the
 * budget; a buffer over it is dropped for a fresh small one. The stream this pass wrote most
 * (with the stack, when that is the brackets) claims the budget first, so a large buffer that
 * an earlier, different source left in another stream cannot crowd out the one a later pass
 * on this kind of source needs again; the rest claim it in a fixed order.
 */
export function giveBackRecordBuffers(buffers: RecordBuffers, itemsUsed: number, delimitersUsed: number, bracketsUsed: number): void {
  const used: Record<keyof RecordBuffers, number> = {
    items: itemsUsed,
    delimiters: delimitersUsed,
    brackets: bracketsUsed,
    stack: Math.min(buffers.stack.length, bracketsUsed / BRACKET_STRIDE),
  };
  const claims: (keyof RecordBuffers)[] =
    itemsUsed >= delimitersUsed && itemsUsed >= bracketsUsed
      ? ['items', 'delimiters', 'brackets', 'stack']
      : bracketsUsed >= delimitersUsed
        ? ['brackets', 'stack', 'delimiters', 'items']
        : ['delimiters', 'items', 'brackets', 'stack'];
  const kept: Partial<RecordBuffers> = {};
  let room = SCRATCH_BUDGET;
  for (const name of claims) {
    const buffer = buffers[name];
    if (buffer.length > room) continue;
    room -= buffer.length;
    buffer.fill(0, 0, used[name]);
    kept[name] = buffer;
  }
  scratch = freshRecordBuffers(kept);
}

/** Plain text of an inline source, and how far it is already a heading text (see headingTextOf). */
export interface InlineText {
  text: string;
  /** True: already its own normalizeHeadingText (set for results written as ASCII); false promises nothing. */
  normalized: boolean;
  /** Its whitespace already folded (every run of JS whitespace one space, none at either end); implied by `normalized`. */
  folded: boolean;
}

/** The pass's records; a stream's `End` is 0 when none of its records is an edit. */
export interface InlineEdits {
  items: Int32Array;
  itemsEnd: number;
  /** Decoded character references (REPLACE items). */
  strings: readonly string[];
  delimiters: Int32Array;
  delimitersEnd: number;
  brackets: Int32Array;
  bracketsEnd: number;
}

/**
 * The source with every edit applied: items, delimiter runs that matched emphasis and
 * brackets that formed a link or an image, merged in source order, with its whitespace folded
 * (blank exactly when the unfolded text is). When the result is ASCII that is exactly its
 * normalizeHeadingText (NFC leaves ASCII as it is); otherwise NFC is what remains (headingTextOf).
 */
export function renderEdits(src: string, edits: InlineEdits): InlineText {
  const { strings, items, itemsEnd, delimiters, delimitersEnd, brackets, bracketsEnd } = edits;
  const n = src.length;
  if (itemsEnd === 0 && delimitersEnd === 0 && bracketsEnd === 0) return { text: src, normalized: false, folded: false };
  // Every edit is at most as long as its source span plus two boundary spaces.
  const out = new Uint16Array(n + 2 * (itemsEnd / ITEM_STRIDE + delimitersEnd / DELIMITER_STRIDE + bracketsEnd / BRACKET_STRIDE) + 2);
  let w = 0;
  // Every code unit written, OR-ed: below 0x80 the output is ASCII and needs no second scan.
  let bits = 0;
  let copied = 0;
  let depth = 0;
  let i = 0;
  let d = nextUsedDelimiter(delimiters, 0, delimitersEnd);
  let b = nextFormedBracket(brackets, 0, bracketsEnd);
  for (;;) {
    const itemStart = i < itemsEnd ? (items[i + I_START] as number) : n;
    const runStart = d < delimitersEnd ? (delimiters[d + D_START] as number) : n;
    const bracketLabel = b < bracketsEnd ? (brackets[b + B_LABEL] as number) : 0;
    const openerStart = b < bracketsEnd ? (bracketLabel >> 2) - 1 - ((brackets[b + B_BOTTOM_IMAGE] as number) & 1) : n;
    if (runStart < itemStart && runStart < openerStart) {
      const info = delimiters[d + D_INFO] as number;
      const left = delimiters[d + D_LEFT] as number;
      const right = delimiters[d + D_RIGHT] as number;
      const length = info >> 4;
      let rest = length - left - right;
      // micromark 4.0.3 slices a partly used opener that ends right before a NUL (a U+FFFD
      // chunk) from its original end, so its leftover text shows the whole run.
      if ((info & BEFORE_NUL) !== 0 && right > 0 && rest > 0) rest = length - left;
      for (let k = copied; k < runStart; k++) bits |= out[w++] = src.charCodeAt(k);
      if (left > 0 && depth === 0) out[w++] = SPACE;
      const marker = (info & STAR_BIT) !== 0 ? STAR : UNDERSCORE;
      for (let k = 0; k < rest; k++) out[w++] = marker;
      if (right > 0 && depth === 0) out[w++] = SPACE;
      copied = runStart + length;
      d = nextUsedDelimiter(delimiters, d + DELIMITER_STRIDE, delimitersEnd);
      continue;
    }
    if (openerStart < itemStart) {
      for (let k = copied; k < openerStart; k++) bits |= out[w++] = src.charCodeAt(k);
      if (depth === 0) out[w++] = SPACE;
      if ((bracketLabel & 3) === 2) depth++;
      copied = bracketLabel >> 2;
      b = nextFormedBracket(brackets, b + BRACKET_STRIDE, bracketsEnd);
      continue;
    }
    if (i === itemsEnd) break;
    const kind = (items[i + I_KIND_AUX] as number) & 7;
    const aux = (items[i + I_KIND_AUX] as number) >> 3;
    for (let k = copied; k < itemStart; k++) bits |= out[w++] = src.charCodeAt(k);
    copied = items[i + I_END] as number;
    const valueEnd = items[i + I_EXTRA] as number;
    i += ITEM_STRIDE;
    if (kind === IMAGE_CLOSE) depth--;
    if (kind === DROP) continue;
    if (kind === REPLACE) {
      const value = strings[aux] as string;
      for (let k = 0; k < value.length; k++) bits |= out[w++] = value.charCodeAt(k);
      continue;
    }
    if (kind === WRAP) {
      if (depth === 0) out[w++] = SPACE;
      for (let k = aux; k < valueEnd; k++) bits |= out[w++] = src.charCodeAt(k);
      if (depth === 0) out[w++] = SPACE;
      continue;
    }
    // BREAK, LINK_CLOSE, IMAGE_CLOSE: one boundary.
    if (depth === 0) out[w++] = SPACE;
  }
  for (let k = copied; k < n; k++) bits |= out[w++] = src.charCodeAt(k);
  return bits < 0x80 ? { text: foldedAsciiToString(out, w), normalized: true, folded: true } : { text: foldedUnitsToString(out, w), normalized: false, folded: true };
}

/** The first delimiter id at or after `d` that matched emphasis on either side, or `end`. */
function nextUsedDelimiter(records: Int32Array, d: number, end: number): number {
  while (d < end && (records[d + D_LEFT] as number) === 0 && (records[d + D_RIGHT] as number) === 0) d += DELIMITER_STRIDE;
  return d;
}

/** The first bracket id at or after `b` that formed a link or an image, or `end`. */
function nextFormedBracket(records: Int32Array, b: number, end: number): number {
  while (b < end && ((records[b + B_LABEL] as number) & 3) === 0) b += BRACKET_STRIDE;
  return b;
}
