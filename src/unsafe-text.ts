/**
 * The one rule for text that may become an identifier, a header value, a
 * path sent upstream or a log field: no C0 control (U+0000-U+001F, tab and
 * line breaks included), no DEL or C1 control (U+007F-U+009F), and no lone
 * UTF-16 surrogate (not text: it cannot be URL-encoded, stored or sent as a
 * header). Paired surrogates and all other non-ASCII text pass.
 */
const UNSAFE_CHARACTER = /[\u0000-\u001F\u007F-\u009F]|[\uD800-\uDFFF]/u;

export function hasUnsafeCharacter(text: string): boolean {
  return UNSAFE_CHARACTER.test(text);
}
