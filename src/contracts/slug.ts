/**
 * The reference slug: JS lower-casing, every UTF-16 code unit outside
 * [a-z0-9-] becomes '-', runs collapse, one '-' trimmed at each end.
 * No transliteration, so 'é' and every astral character vanish into '-'.
 */
const ASCII = new TextDecoder();

export function normalizeSlug(value: unknown): string {
  if (typeof value !== 'string') return '';
  // Equal to: replace /[^a-z0-9-]/g by '-', collapse /-+/g, trim one '-' each end. One pass into a
  // byte buffer: a regex replace with one match per word keeps every piece alive until it joins them
  // (about 20 B/char on a 1 MB heading).
  const lower = value.toLowerCase();
  const out = new Uint8Array(lower.length);
  let length = 0;
  let dash = false;
  for (let at = 0; at < lower.length; at++) {
    const code = lower.charCodeAt(at);
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
      if (dash && length > 0) out[length++] = 45;
      dash = false;
      out[length++] = code;
    } else {
      dash = true;
    }
  }
  return ASCII.decode(out.subarray(0, length));
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
