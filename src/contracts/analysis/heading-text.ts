/**
 * Heading text as the contracts publish it. Invariant: equal to the
 * oracle's normalizeHeadingText (`normalize('NFC')`, every `\s+` run folded
 * to one space, trimmed), with an NFC that stays linear on long runs of
 * combining marks and a fold that writes into one buffer (a regex replace
 * with one match per word keeps every piece alive until it joins them).
 * Linear bound: O(text length) time, about 2 bytes per char of scratch.
 */
import { isJsWhitespace } from './chars';
import { normalizeNfc } from './inline-engine';

export function normalizeHeadingText(raw: string): string {
  return foldWhitespace(normalizeNfc(raw));
}

/** Every run of JS whitespace becomes one space; none at either end. */
function foldWhitespace(text: string): string {
  const length = text.length;
  let start = 0;
  while (start < length && isJsWhitespace(text.charCodeAt(start))) start++;
  let end = length;
  while (end > start && isJsWhitespace(text.charCodeAt(end - 1))) end--;
  // Already folded (the common case): only single spaces between words.
  let folded = true;
  for (let at = start; at < end && folded; at++) {
    const code = text.charCodeAt(at);
    if (isJsWhitespace(code) && (code !== 32 || isJsWhitespace(text.charCodeAt(at + 1)))) folded = false;
  }
  if (folded) return start === 0 && end === length ? text : text.slice(start, end);
  const out = new Uint16Array(end - start);
  let size = 0;
  let space = false;
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (isJsWhitespace(code)) {
      space = true;
      continue;
    }
    if (space) out[size++] = 32;
    space = false;
    out[size++] = code;
  }
  let result = '';
  for (let from = 0; from < size; from += 8192) {
    result += String.fromCharCode.apply(null, out.subarray(from, Math.min(size, from + 8192)) as unknown as number[]);
  }
  return result;
}
