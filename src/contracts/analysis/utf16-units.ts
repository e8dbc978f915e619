/**
 * A string from UTF-16 code units held in a typed array, made by the engine's decoders in one
 * piece (String.fromCharCode over chunks is about 4x slower and leaves a chunk string per 8K
 * units on the heap until they are joined). Invariant: `unitsToString(units, from, to, kind)`
 * equals the units read one by one (String.fromCharCode of each), given that `kind` tells the
 * truth about the range: 'ascii' (every unit below 0x80), 'well-formed' (no lone surrogate)
 * or 'any'.
 * Linear bound: O(to - from), one copy for 'ascii' and one decode; fromCodeUnits adds one
 * classifying scan.
 */

/** Typed arrays are read in the platform's byte order; the utf-16le decoder needs it little-endian. */
const LITTLE_ENDIAN = new Uint16Array(new Uint8Array([1, 0]).buffer)[0] === 1;
const hasDecoder = typeof TextDecoder === 'function';
/** ignoreBOM keeps a leading U+FEFF (by default a decoder drops it). */
const utf16 = hasDecoder && LITTLE_ENDIAN ? new TextDecoder('utf-16le', { fatal: false, ignoreBOM: true }) : null;
const utf8 = hasDecoder ? new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }) : null;

export type UnitsKind = 'ascii' | 'well-formed' | 'any';

export function unitsToString(units: Uint16Array, from: number, to: number, kind: UnitsKind): string {
  // ASCII through utf-8 comes out one byte per char (utf-16le decoding would give two).
  if (kind === 'ascii' && utf8 !== null) return utf8.decode(new Uint8Array(units.subarray(from, to)));
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
 * as it is): one pass into one byte per unit, one decode.
 */
export function foldedAsciiToString(units: Uint16Array, length: number): string {
  const bytes = new Uint8Array(length);
  let size = 0;
  let space = false;
  for (let k = 0; k < length; k++) {
    const unit = units[k] as number;
    if (unit === 32 || (unit <= 13 && unit >= 9)) {
      space = true;
      continue;
    }
    if (space && size > 0) bytes[size++] = 32;
    space = false;
    bytes[size++] = unit;
  }
  return utf8 !== null ? utf8.decode(bytes.subarray(0, size)) : unitsToString(Uint16Array.from(bytes.subarray(0, size)), 0, size, 'any');
}

/** The string of units[0, length), whatever they hold: the units are classified here, then decoded. */
export function fromCodeUnits(units: Uint16Array, length: number): string {
  let bits = 0;
  for (let k = 0; k < length; k++) {
    const unit = units[k] as number;
    if ((unit & 0xf800) === 0xd800) return unitsToString(units, 0, length, 'any');
    bits |= unit;
  }
  return unitsToString(units, 0, length, bits < 0x80 ? 'ascii' : 'well-formed');
}
