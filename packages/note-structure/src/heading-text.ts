/**
 * A heading's text as the reference builders publish it. Invariant: equal to the
 * oracle's normalizeHeadingText (`normalize('NFC')`, every `\s+` run folded
 * to one space, trimmed), with an NFC that stays linear on long runs of
 * combining marks and a fold that writes into one buffer (a regex replace
 * with one match per word keeps every piece alive until it joins them);
 * text already folded (one regex test) is returned as is, or trimmed.
 * Linear bound: O(text length) time, about 2 bytes per char of scratch.
 */
import * as chars from './chars';
import * as inlineEngine from './inline-engine';
import type { InlineText } from './inline-edits';
import * as utf16 from './utf16-units';

// Imported values are bound once, at load (see chars.ts).
const { SPACE } = chars;
const { normalizeNfc } = inlineEngine;
const { foldedUnitsToString } = utf16;

export function normalizeHeadingText(raw: string): string {
  return foldWhitespace(normalizeNfc(raw));
}

/**
 * normalizeHeadingText of an inline pass result, doing only what the pass has not done. A folded
 * text needs NFC alone, because NFC and the fold commute: every JS whitespace char is a starter
 * (combining class 0) that composes with nothing, so NFC works on the stretches between them
 * independently; NFC maps whitespace only to whitespace (U+2000 -> U+2002, U+2001 -> U+2003) and
 * nothing else to whitespace, so the runs it leaves are the runs it was given. Hence
 * NFC(fold(x)) = fold(NFC(x)) (test/heading-text.test.ts checks every BMP unit).
 */
export function headingTextOf(plain: InlineText): string {
  if (plain.normalized) return plain.text;
  return plain.folded ? normalizeNfc(plain.text) : normalizeHeadingText(plain.text);
}

/** Any whitespace but a single space (`\s` is exactly isJsWhitespace). */
const UNFOLDED = /[^\S ]| {2}/;

/** Every run of JS whitespace becomes one space; none at either end. */
function foldWhitespace(text: string): string {
  const length = text.length;
  // Already folded (the common case): only single spaces, so at most one to trim at each end.
  if (!UNFOLDED.test(text)) {
    const start = text.charCodeAt(0) === SPACE ? 1 : 0;
    const end = length > start && text.charCodeAt(length - 1) === SPACE ? length - 1 : length;
    return start === 0 && end === length ? text : text.slice(start, end);
  }
  // The units, then folded in place by the same fold the inline pass applies to its results.
  const units = new Uint16Array(length);
  for (let at = 0; at < length; at++) units[at] = text.charCodeAt(at);
  return foldedUnitsToString(units, length);
}
