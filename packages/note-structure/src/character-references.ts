/**
 * micromark's character reference (character-reference.js) for the inline pass (inline.ts) and the
 * block scan's substance proof (content.ts): `&name;`, `&#123;` or `&#x1F;`, decoded as micromark
 * 4.0.3 decodes it (named references through decode-named-character-reference, numeric ones as
 * micromark-util-decode-numeric-character-reference does).
 *
 * Invariant: scanCharacterReference only reads, never consumes; it answers where the reference
 * starting at p ends and what it stands for, or null, exactly where micromark would read one.
 * Linear bound: a call reads at most 33 chars (a name of up to 31, or up to 7 decimal or 6 hex
 * digits, then `;`).
 */
import { decodeNamedCharacterReference } from 'decode-named-character-reference';
import * as chars from './chars';

// Imported values are bound once, at load (see chars.ts).
const { DIGIT_ZERO, HASH, LOWER_X, SEMICOLON, UPPER_X, isAsciiAlphanumeric, isDigit } = chars;

/** A decoded character reference: where it ends and what it stands for. */
export interface CharacterReference {
  end: number;
  value: string;
}

/** Fills `into` and answers it: the caller owns the record, so a flood of references allocates none and nothing outlives the caller. */
function referenceAnswer(into: CharacterReference, end: number, value: string): CharacterReference {
  into.end = end;
  into.value = value;
  return into;
}

/**
 * `&name;`, `&#123;` or `&#x1F;` at p (src[p] === '&'); null when micromark would not read one.
 * The answer is `into`, filled: valid until the caller's next call with it.
 */
export function scanCharacterReference(src: string, p: number, into: CharacterReference): CharacterReference | null {
  let i = p + 1;
  if (src.charCodeAt(i) !== HASH) {
    // Named: up to 31 ASCII alphanumerics, then `;`, and a known name.
    const start = i;
    const max = i + 31;
    while (i < max && isAsciiAlphanumeric(src.charCodeAt(i))) i++;
    if (i === start || src.charCodeAt(i) !== SEMICOLON) return null;
    const decoded = decodeNamedCharacterReference(src.slice(start, i));
    return decoded === false ? null : referenceAnswer(into, i + 1, decoded);
  }
  // Numeric: up to 7 decimal or 6 hexadecimal digits, then `;`.
  i++;
  let c = src.charCodeAt(i);
  const hex = c === LOWER_X || c === UPPER_X;
  if (hex) i++;
  const start = i;
  const max = i + (hex ? 6 : 7);
  let code = 0;
  for (; i < max; i++) {
    c = src.charCodeAt(i);
    if (isDigit(c)) code = code * (hex ? 16 : 10) + (c - DIGIT_ZERO);
    else if (hex && ((c >= 65 && c <= 70) || (c >= 97 && c <= 102))) code = code * 16 + ((c | 32) - 87);
    else break;
  }
  if (i === start || src.charCodeAt(i) !== SEMICOLON) return null;
  return referenceAnswer(into, i + 1, numericCharacter(code));
}

/** micromark-util-decode-numeric-character-reference's answer for a code point (U+FFFD for the disallowed ones). */
function numericCharacter(code: number): string {
  if (
    code < 9 ||
    code === 11 ||
    (code > 13 && code < 32) ||
    (code > 126 && code < 160) ||
    (code > 55_295 && code < 57_344) ||
    (code > 64_975 && code < 65_008) ||
    (code & 65_535) === 65_535 ||
    (code & 65_535) === 65_534 ||
    code > 1_114_111
  ) {
    return '\uFFFD';
  }
  return String.fromCodePoint(code);
}
