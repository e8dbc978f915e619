/**
 * The reference slug: JS lower-casing, every UTF-16 code unit outside
 * [a-z0-9-] becomes '-', runs collapse, one '-' trimmed at each end.
 * No transliteration, so 'é' and every astral character vanish into '-'.
 */
export function normalizeSlug(value: unknown): string {
  if (typeof value !== 'string') return '';
  // Equal to: replace /[^a-z0-9-]/g by '-', collapse /-+/g, trim one '-' each end; in one pass.
  return value.toLowerCase().match(/[a-z0-9]+/g)?.join('-') ?? '';
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
