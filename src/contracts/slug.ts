/**
 * The reference slug: JS lower-casing, every UTF-16 code unit outside
 * [a-z0-9-] becomes '-', runs collapse, one '-' trimmed at each end.
 * No transliteration, so 'é' and every astral character vanish into '-'.
 */
const ASCII = new TextDecoder();
const UTF8 = typeof TextEncoder === 'function' ? new TextEncoder() : null;

const DASH = 45;
const LOWER_I = 105;
const LOWER_K = 107;

/** Per ASCII code unit: the slug char it lower-cases to ([a-z0-9]), or 0 for a dash. */
const ASCII_SLUG = new Uint8Array(128);
for (let code = 48; code <= 57; code++) ASCII_SLUG[code] = code;
for (let code = 97; code <= 122; code++) ASCII_SLUG[code] = code;
for (let code = 65; code <= 90; code++) ASCII_SLUG[code] = code + 32;

/** The slug char a code unit lower-cases to ([a-z0-9]), or 0 for a dash; U+0130 is handled by the callers. */
function slugCode(code: number): number {
  return code < 128 ? ASCII_SLUG[code] : code === 0x212a ? LOWER_K : 0;
}

/** Up to this many code units a slug is built in a fixed scratch (no buffer, no decoder call): headings are mostly this short. */
export const SHORT_SLUG_UNITS = 64;

/**
 * Equal to `value.toLowerCase()`, then /[^a-z0-9-]/g -> '-', /-+/g -> '-', one '-' trimmed at each
 * end; linear, one pass, no lower-cased copy and no piece per word (a regex replace keeps every piece
 * alive until it joins them: about 20 B/char on a 1 MB heading). Lower-casing only matters where it
 * yields [a-z0-9]: ASCII A-Z, U+212A KELVIN SIGN -> 'k', and U+0130 -> 'i' + U+0307 (a dash); every
 * other code unit, astral or context-dependent (final sigma) included, lower-cases to none of them.
 * Short values go through a fixed scratch; longer ones write one byte per code unit (two where U+0130
 * occurs) outside the JS heap and decode once.
 */
export function normalizeSlug(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value.length <= SHORT_SLUG_UNITS ? shortSlug(value) : longSlug(value);
}

/**
 * Slug chars of one short value; zeroed after each use, so nothing note-derived outlives the call.
 * Two bytes per input unit: U+0130 writes 'i' and may be followed by a dash.
 */
const SHORT_SCRATCH = new Uint8Array(2 * SHORT_SLUG_UNITS);

function shortSlug(value: string): string {
  const length = writeSlug(value, SHORT_SCRATCH);
  const slug = String.fromCharCode.apply(null, SHORT_SCRATCH.subarray(0, length) as unknown as number[]);
  SHORT_SCRATCH.fill(0, 0, length);
  return slug;
}

/**
 * `text` as one byte per code unit when every unit is ASCII, else null: TextEncoder writes an ASCII
 * unit as one byte and every other char as 2-3 bytes per UTF-16 unit (a lone surrogate as U+FFFD,
 * 3 bytes), never half a char, so the bytes run out before the units do. A non-ASCII text costs
 * one partial encode before the caller's other path.
 */
export function asciiBytesOf(text: string): Uint8Array | null {
  if (UTF8 === null) return null;
  const bytes = new Uint8Array(text.length);
  return UTF8.encodeInto(text, bytes).read === text.length ? bytes : null;
}

function longSlug(value: string): string {
  // An ASCII value is slugged over its own bytes (typed-array reads, no second buffer).
  const bytes = asciiBytesOf(value);
  if (bytes !== null) return ASCII.decode(bytes.subarray(0, writeAsciiSlugInPlace(bytes)));
  // One byte per unit, and one more per U+0130 (see writeSlug).
  const out = new Uint8Array(value.includes('\u0130') ? 2 * value.length : value.length);
  return ASCII.decode(out.subarray(0, writeSlug(value, out)));
}

/**
 * writeSlug over ASCII bytes, in place: the slug chars of bytes[0, n) written from index 0. The
 * write index never passes the read index (each char written consumes its own byte, each dash
 * one before it that wrote nothing), so no byte is overwritten before it is read.
 */
function writeAsciiSlugInPlace(bytes: Uint8Array): number {
  let length = 0;
  let dash = false;
  for (let at = 0; at < bytes.length; at++) {
    const mapped = ASCII_SLUG[bytes[at] as number] as number;
    if (mapped === 0) {
      dash = true;
      continue;
    }
    if (dash) {
      if (length > 0) bytes[length++] = DASH;
      dash = false;
    }
    bytes[length++] = mapped;
  }
  return length;
}

/**
 * Writes the slug chars of `value` into `out` and returns how many. Each char written but 'i' of
 * U+0130 consumes its own unit, and each dash at least one unit that wrote no char, so `out` needs
 * one byte per unit plus one per U+0130.
 */
function writeSlug(value: string, out: Uint8Array): number {
  let length = 0;
  let dash = false;
  for (let at = 0; at < value.length; at++) {
    const code = value.charCodeAt(at);
    const mapped = code === 0x130 ? LOWER_I : slugCode(code);
    if (mapped === 0) {
      dash = true;
      continue;
    }
    if (dash && length > 0) out[length++] = DASH;
    out[length++] = mapped;
    // U+0130 lower-cases to 'i' + U+0307, and U+0307 is a dash.
    dash = code === 0x130;
  }
  return length;
}

/**
 * String(value) as JavaScript does it, but total: values whose conversion
 * throws (objects with a non-callable toString from JSON) become the
 * generic object tag instead of an exception.
 */
export function jsString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return '[object Object]';
  }
}
