/**
 * A string from UTF-16 code units held in a typed array, made by the engine's decoders in one
 * piece (String.fromCharCode over chunks is about 4x slower and leaves a chunk string per 8K
 * units on the heap until they are joined). Invariant: `unitsToString(units, from, to, kind)`
 * equals the units read one by one (String.fromCharCode of each), given that `kind` tells the
 * truth about the range: 'ascii' (every unit below 0x80), 'well-formed' (no lone surrogate)
 * or 'any'. Also here: flatCopy, an equal string that the engine holds in one flat piece.
 * Linear bound: O(to - from), one copy for 'ascii' (into the byte buffer kept here between calls, up
 * to 1 MiB) and one decode; fromCodeUnits adds one classifying scan; flatCopy is one copy.
 */

import * as chars from './chars';

// Imported values are bound once, at load (see chars.ts).
const { CR, SPACE, TAB, isJsWhitespace, isSurrogate } = chars;

// ---------------------------------------------------------------- ASCII decoding bytes (kept state)

/** The kept ASCII bytes are at most this long; a longer request gets a buffer of its own. */
const ASCII_SCRATCH_BYTES = 1 << 20;
let asciiBytes = new Uint8Array(0);
/** The kept bytes at or past this index are zero. */
let asciiWritten = 0;

/**
 * A byte buffer of at least `length` bytes for an ASCII decode that writes bytes [0, length): the
 * kept one (zeroed by resetAsciiBytes), or a fresh one past its limit.
 */
function asciiBuffer(length: number): Uint8Array {
  if (length > ASCII_SCRATCH_BYTES) return new Uint8Array(length);
  if (asciiBytes.length < length) {
    asciiBytes.fill(0, 0, asciiWritten);
    asciiBytes = new Uint8Array(Math.min(ASCII_SCRATCH_BYTES, Math.max(length, 2 * asciiBytes.length, 4096)));
    asciiWritten = 0;
  }
  if (length > asciiWritten) asciiWritten = length;
  return asciiBytes;
}

/** Zeros what a note wrote into the kept ASCII bytes (scratch.ts runs it after each note): O(bytes written). */
export function resetAsciiBytes(): void {
  asciiBytes.fill(0, 0, asciiWritten);
  asciiWritten = 0;
}

/** The kept ASCII bytes, for scratch.ts's leftovers check. */
export function keptAsciiBytes(): Readonly<Uint8Array> {
  return asciiBytes;
}

// ---------------------------------------------------------------- strings from code units

/** Typed arrays are read in the platform's byte order; the utf-16le decoder needs it little-endian. */
const LITTLE_ENDIAN = new Uint16Array(new Uint8Array([1, 0]).buffer)[0] === 1;
const hasDecoder = typeof TextDecoder === 'function';
/** ignoreBOM keeps a leading U+FEFF (by default a decoder drops it). */
const utf16 = hasDecoder && LITTLE_ENDIAN ? new TextDecoder('utf-16le', { fatal: false, ignoreBOM: true }) : null;
const utf8 = hasDecoder ? new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }) : null;

export type UnitsKind = 'ascii' | 'well-formed' | 'any';

export function unitsToString(units: Uint16Array, from: number, to: number, kind: UnitsKind): string {
  // ASCII through utf-8 comes out one byte per char (utf-16le decoding would give two).
  if (kind === 'ascii' && utf8 !== null) {
    const bytes = asciiBuffer(to - from);
    bytes.set(units.subarray(from, to));
    return decodeAscii(bytes, to - from);
  }
  // A decoder would turn a lone surrogate into U+FFFD.
  if (kind !== 'any' && utf16 !== null) return utf16.decode(units.subarray(from, to));
  const chunks: string[] = [];
  for (let at = from; at < to; at += 8192) {
    chunks.push(String.fromCharCode.apply(null, units.subarray(at, Math.min(to, at + 8192)) as unknown as number[]));
  }
  return chunks.join('');
}

/**
 * The ASCII units[0, length) with every run of JS whitespace (HT, LF, VT, FF, CR, space) as one
 * space and none at either end, which is `normalizeHeadingText` of their string (NFC leaves ASCII
 * as it is): one pass into one byte per unit, one decode. The ASCII case of foldedUnitsToString,
 * kept apart because folding straight into bytes skips a pass: with foldedUnitsToString instead, the
 * `[0] ` and `[a] ` reference floods at 1M ran 3-5% slower in paired runs in both orders.
 */
export function foldedAsciiToString(units: Uint16Array, length: number): string {
  // Without a decoder the units are folded in place (the write index never passes the read index).
  const bytes = utf8 !== null ? asciiBuffer(length) : units;
  let size = 0;
  let space = false;
  for (let k = 0; k < length; k++) {
    const unit = units[k] as number;
    if (unit === SPACE || (unit <= CR && unit >= TAB)) {
      space = true;
      continue;
    }
    if (space && size > 0) bytes[size++] = SPACE;
    space = false;
    bytes[size++] = unit;
  }
  return bytes instanceof Uint8Array ? decodeAscii(bytes, size) : unitsToString(units, 0, size, 'any');
}

/**
 * The string of units[0, length) with every run of JS whitespace (what `\s` matches, non-ASCII
 * included) as one space and none at either end; whatever the units hold. Folded in place (the
 * write index never passes the read index), classified on the way, decoded once.
 */
export function foldedUnitsToString(units: Uint16Array, length: number): string {
  let size = 0;
  let space = false;
  let bits = 0;
  let surrogate = false;
  for (let k = 0; k < length; k++) {
    const unit = units[k] as number;
    if (isJsWhitespace(unit)) {
      space = true;
      continue;
    }
    if (space && size > 0) units[size++] = SPACE;
    space = false;
    units[size++] = unit;
    bits |= unit;
    if (isSurrogate(unit)) surrogate = true;
  }
  return unitsToString(units, 0, size, bits < 0x80 ? 'ascii' : surrogate ? 'any' : 'well-formed');
}

/**
 * `text`, held by the engine as one flat string of its own. A slice of a longer string (every
 * line the block scan hands on is one) is read through its parent on each charCodeAt, and the
 * inline pass reads its source several times: in paired runs at 1M chars that indirection cost
 * more than this copy. A structured clone copies the chars into a new flat string whatever they
 * are, lone surrogates included (here about 0.8 ms per million ASCII chars, 1.8 ms two-byte).
 */
export function flatCopy(text: string): string {
  return typeof structuredClone === 'function' ? structuredClone(text) : text;
}

/** The string of the ASCII bytes[0, size) (a decoder exists). */
function decodeAscii(bytes: Uint8Array, size: number): string {
  return (utf8 as TextDecoder).decode(bytes.subarray(0, size));
}

/** The string of units[0, length), whatever they hold: the units are classified here, then decoded. */
export function fromCodeUnits(units: Uint16Array, length: number): string {
  let bits = 0;
  for (let k = 0; k < length; k++) {
    const unit = units[k] as number;
    if (isSurrogate(unit)) return unitsToString(units, 0, length, 'any');
    bits |= unit;
  }
  return unitsToString(units, 0, length, bits < 0x80 ? 'ascii' : 'well-formed');
}
