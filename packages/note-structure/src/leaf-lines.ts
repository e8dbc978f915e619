/**
 * Single-line tests of micromark's leaf constructs (ATX opening and
 * content range, code fences, setext underlines, thematic breaks). Invariant: each is
 * micromark 4.0.3's rule for one line, read from the given offset.
 * Linear bound: O(line length) per call; the block scan makes O(1) calls
 * per line for each.
 */
import * as chars from './chars';

// Imported values are bound once, at load (see chars.ts).
const { BACKTICK, HASH, isSpaceOrTab } = chars;

/** End of the `#{1,6}` opening at `start` when followed by whitespace or line end; else -1. */
export function atxOpeningEnd(body: string, start: number, end: number): number {
  let at = start;
  while (at < end && body.charCodeAt(at) === HASH && at - start < 6) at++;
  if (at === end) return at;
  const code = body.charCodeAt(at);
  return isSpaceOrTab(code) ? at : -1;
}

/** Start of the heading text of an ATX line whose opening ends at `openEnd`. */
export function atxContentStart(body: string, openEnd: number, end: number): number {
  let from = openEnd;
  while (from < end && isSpaceOrTab(body.charCodeAt(from))) from++;
  return from;
}

/** End of the heading text that starts at `from` (atxContentStart): the closing sequence and blanks removed. */
export function atxContentEnd(body: string, from: number, end: number): number {
  let to = end;
  while (to > from && isSpaceOrTab(body.charCodeAt(to - 1))) to--;
  if (to > from && body.charCodeAt(to - 1) === HASH) {
    let run = to;
    while (run > from && body.charCodeAt(run - 1) === HASH) run--;
    if (run === from) to = from;
    else if (isSpaceOrTab(body.charCodeAt(run - 1))) {
      to = run;
      while (to > from && isSpaceOrTab(body.charCodeAt(to - 1))) to--;
    }
  }
  return to;
}

/** Opening fence length (>= 3) at `start`, or 0; backtick fences take no backtick after the run. */
export function fenceOpening(body: string, start: number, end: number, marker: number): number {
  let at = start;
  while (at < end && body.charCodeAt(at) === marker) at++;
  const size = at - start;
  if (size < 3) return 0;
  if (marker === BACKTICK) {
    for (; at < end; at++) if (body.charCodeAt(at) === BACKTICK) return 0;
  }
  return size;
}

/** A run of `marker` of at least `size` at `start`, then only spaces/tabs. */
export function isClosingFence(body: string, start: number, end: number, marker: number, size: number): boolean {
  let at = start;
  while (at < end && body.charCodeAt(at) === marker) at++;
  if (at - start < size) return false;
  for (; at < end; at++) if (!isSpaceOrTab(body.charCodeAt(at))) return false;
  return true;
}

/** A run of `marker` at `start`, then only spaces/tabs. */
export function isSetextUnderline(body: string, start: number, end: number, marker: number): boolean {
  let at = start;
  while (at < end && body.charCodeAt(at) === marker) at++;
  for (; at < end; at++) if (!isSpaceOrTab(body.charCodeAt(at))) return false;
  return true;
}

/** `marker` repeated 3+ times from `at`, only spaces/tabs between, nothing after. */
export function isThematicBreak(body: string, at: number, end: number, marker: number): boolean {
  let count = 0;
  for (; at < end; at++) {
    const code = body.charCodeAt(at);
    if (code === marker) count++;
    else if (!isSpaceOrTab(code)) return false;
  }
  return count >= 3;
}
