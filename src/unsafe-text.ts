/**
 * The one rule for text that may become an identifier, a header value, a
 * path sent upstream or a log field: no C0 control (U+0000-U+001F, tab and
 * line breaks included), no DEL or C1 control (U+007F-U+009F), and no lone
 * UTF-16 surrogate (not text: it cannot be URL-encoded, stored or sent as a
 * header). Paired surrogates and all other non-ASCII text pass. Also the one
 * trim of a header value's optional whitespace (withoutOptionalWhitespace).
 */
const UNSAFE_CHARACTER = /[\u0000-\u001F\u007F-\u009F]|[\uD800-\uDFFF]/u;

export function hasUnsafeCharacter(text: string): boolean {
  return UNSAFE_CHARACTER.test(text);
}

/**
 * A header field value without the optional whitespace (SP, HTAB) around it, which RFC 9110
 * section 5.5 says is not part of the value. The Headers API trims a value it is given, but one
 * parsed off the wire can reach the Worker untrimmed (through wrangler dev, `Bearer <token> `
 * would otherwise be refused with 401). Linear: two index walks, no backtracking.
 */
export function withoutOptionalWhitespace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 32 || value.charCodeAt(start) === 9)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 32 || value.charCodeAt(end - 1) === 9)) end--;
  return value.slice(start, end);
}
