/**
 * Character codes and classes shared by the block scan. Invariant: every
 * class here is exactly the one micromark (or ECMAScript `\s`) uses.
 * Linear bound: O(1) per call.
 */

export const TAB = 9;
export const LF = 10;
export const CR = 13;
export const SPACE = 32;
export const BANG = 33;
export const QUOTE = 34;
export const HASH = 35;
export const AMP = 38;
export const APOS = 39;
export const LPAREN = 40;
export const RPAREN = 41;
export const STAR = 42;
export const PLUS = 43;
export const DASH = 45;
export const DOT = 46;
export const SLASH = 47;
export const COLON = 58;
export const SEMICOLON = 59;
export const LT = 60;
export const EQUALS = 61;
export const GT = 62;
export const QUESTION = 63;
export const LBRACKET = 91;
export const BACKSLASH = 92;
export const RBRACKET = 93;
export const UNDERSCORE = 95;
export const BACKTICK = 96;
export const TILDE = 126;
export const DEL = 127;

/** ECMAScript WhiteSpace + LineTerminator: exactly what `\s` and String#trim use. */
export function isJsWhitespace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

export function hasJsNonWhitespace(text: string, from = 0, to = text.length): boolean {
  for (let at = from; at < to; at++) if (!isJsWhitespace(text.charCodeAt(at))) return true;
  return false;
}

export function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

export function isAsciiAlpha(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

export function isAsciiAlphanumeric(code: number): boolean {
  return isDigit(code) || isAsciiAlpha(code);
}

export function isSpaceOrTab(code: number): boolean {
  return code === SPACE || code === TAB;
}

/**
 * Characters that can be markup or sit in a non-value part of an inline
 * construct; a paragraph char outside this set (and outside whitespace)
 * before the first `](` / `][` lands in some text, code or alt value.
 */
export function isPossiblyMarkup(code: number): boolean {
  return (
    code === STAR ||
    code === UNDERSCORE ||
    code === BACKTICK ||
    code === BACKSLASH ||
    code === LBRACKET ||
    code === RBRACKET ||
    code === BANG ||
    code === LT ||
    code === GT ||
    code === AMP ||
    code === LPAREN ||
    code === RPAREN ||
    code === QUOTE ||
    code === APOS
  );
}
export const DIGIT_ONE = 49;
