/**
 * micromark's link destination (micromark-factory-destination), the one scanner of it: a link
 * resource's destination after `](` (inline-links.ts, over the inline pass's prepared source) and a
 * definition's after `]:` (definitions.ts, over the text of a content run).
 *
 * Invariant: scanEnclosedDestination and scanRawDestination end a destination exactly where
 * micromark 4.0.3 does, given the paren depth limit of the construct (RESOURCE_PAREN_DEPTH for a
 * resource, none for a definition). A NUL in the text reads as the U+FFFD micromark's
 * preprocessing makes of it (a definition's text keeps its NULs; the inline pass has replaced them).
 * ParenTables answers the same raw destinations of a resource, for starts that never decrease.
 *
 * Linear bound: an enclosed destination ends at the first `>`, `<` or line ending, O(chars read);
 * a raw one reads at most `budget` chars (the caller's memo decides the budget, see
 * LinkScanner.rawDestination); ParenTables is built in one scan and answers each query in O(1)
 * amortized.
 */
import * as chars from './chars';
import * as growth from './growth';

// Imported values are bound once, at load (see chars.ts).
const { BACKSLASH, CR, DEL, GT, LF, LPAREN, LT, NUL, RPAREN, SPACE, isAsciiControl, isSpaceOrEol } = chars;
const { widened } = growth;

/** micromark's paren depth limit for the raw destination of a link resource. */
export const RESOURCE_PAREN_DEPTH = 32;
/** A definition's raw destination has no paren depth limit: a depth no text of the cap reaches. */
export const NO_PAREN_LIMIT = 0x3fffffff;

/** Larger than any index (a small integer, unlike Infinity). */
const NEVER = 0x3fffffff;

/** Where the last raw destination scan stopped reading: the index after its last char read. */
export class ScanStop {
  at = 0;
}

/** The content of an enclosed destination `<...>` from i (after the `<`): the index after its `>`, or -1. */
export function scanEnclosedDestination(src: string, i: number): number {
  const n = src.length;
  for (;;) {
    const c = i < n ? src.charCodeAt(i) : -1;
    if (c === GT) return i + 1;
    if (c < 0 || c === LT || c === LF || c === CR) return -1;
    i++;
    if (c === BACKSLASH) {
      const d = src.charCodeAt(i);
      if (d === LT || d === GT || d === BACKSLASH) i++;
    }
  }
}

/** Whether a raw destination can start with `c` (NaN or -1: no char): not a space, `)` or a control (NUL is U+FFFD). */
export function startsRawDestination(c: number): boolean {
  return c >= 0 && c !== SPACE && c !== RPAREN && (c === NUL || !isAsciiControl(c));
}

/**
 * A raw destination from i (its first char passed startsRawDestination): its end, -1 when it
 * fails, or -2 when it runs past `budget` chars undecided. An unescaped `(` past `depthLimit` open
 * ones fails it. Sets `stop.at`, the index after the last char it read. The end of the text reads
 * as -1, never as charCodeAt's NaN, so the loop's compares stay on small integers whichever caller
 * reached an end (definitions often reach their text's).
 */
export function scanRawDestination(src: string, i: number, depthLimit: number, budget: number, stop: ScanStop): number {
  const n = src.length;
  const last = i + budget;
  let balance = 0;
  for (;;) {
    if (i >= last) {
      stop.at = i;
      return -2;
    }
    const c = i < n ? src.charCodeAt(i) : -1;
    const end = c < 0;
    if (balance === 0 && (end || c === RPAREN || isSpaceOrEol(c))) {
      stop.at = i + 1;
      return i;
    }
    if (c === LPAREN && balance < depthLimit) {
      balance++;
      i++;
      continue;
    }
    if (c === RPAREN) {
      balance--;
      i++;
      continue;
    }
    if (end || c === SPACE || c === LPAREN || (isAsciiControl(c) && c !== NUL)) {
      stop.at = i + 1;
      return -1;
    }
    i++;
    if (c === BACKSLASH) {
      const d = src.charCodeAt(i);
      if (d === LPAREN || d === RPAREN || d === BACKSLASH) i++;
    }
  }
}

/**
 * A resource's raw destinations (depth limit RESOURCE_PAREN_DEPTH) in O(1) amortized each, for
 * queries at non-decreasing start positions from `origin` on (none of them the second char of an
 * escape pair). With depth(j) = unescaped '(' minus ')' in [origin, j), a destination starting at
 * s ends at the first of: the ')' that takes depth below depth(s) (success), the '(' that takes
 * it to depth(s) + 33 (failure: micromark's limit), or the next space, control or end (success
 * only at depth(s)). Only the parens are recorded (one event each: the index just after it and the depth it leads to);
 * the first event reaching a depth is found with one cursor per depth value, depth(s) and
 * depth(stop) with one cursor each, and the next stop with a forward memo.
 */
export class ParenTables {
  private readonly eventAt: Int32Array;
  private readonly eventDepth: Int32Array;
  private readonly events: number;
  private readonly minDepth: number;
  /** Event indices (just after a paren) grouped by the depth they lead to (CSR), ascending within a depth. */
  private readonly reach: Int32Array;
  private readonly reachEnd: Int32Array;
  /** Per depth: the next candidate in `reach` (queries arrive at increasing positions). */
  private readonly cursor: Int32Array;
  /** Events at or before the last start / the last stop. */
  private startEvents = 0;
  private stopEvents = 0;
  /** The next stop at or after the last start (-1: none found yet). */
  private stop = -1;

  constructor(
    private readonly src: string,
    origin: number,
  ) {
    const n = src.length;
    let eventAt = new Int32Array(64);
    let eventDepth = new Int32Array(64);
    let events = 0;
    let d = 0;
    let min = 0;
    let max = 0;
    let k = origin;
    while (k < n) {
      const c = src.charCodeAt(k);
      k++;
      if (c > BACKSLASH) continue;
      if (c === BACKSLASH) {
        const e = src.charCodeAt(k);
        if (e === LPAREN || e === RPAREN || e === BACKSLASH) k++;
        continue;
      }
      if (c !== LPAREN && c !== RPAREN) continue;
      d += c === LPAREN ? 1 : -1;
      if (d < min) min = d;
      if (d > max) max = d;
      if (events === eventAt.length) {
        eventAt = widened(eventAt, events + 1);
        eventDepth = widened(eventDepth, events + 1);
      }
      eventAt[events] = k;
      eventDepth[events] = d;
      events++;
    }
    this.eventAt = eventAt;
    this.eventDepth = eventDepth;
    this.events = events;
    this.minDepth = min;
    // Counting pass, then fill: each event's index under the depth it leads to.
    const values = max - min + 1;
    const starts = new Int32Array(values + 1);
    for (let e = 0; e < events; e++) starts[(eventDepth[e] as number) - min + 1]++;
    for (let v = 0; v < values; v++) starts[v + 1] = (starts[v + 1] as number) + (starts[v] as number);
    const fill = starts.slice(0, values);
    const reach = new Int32Array(events);
    for (let e = 0; e < events; e++) {
      const v = (eventDepth[e] as number) - min;
      reach[fill[v] as number] = eventAt[e] as number;
      fill[v] = (fill[v] as number) + 1;
    }
    this.reach = reach;
    this.reachEnd = starts.subarray(1);
    fill.set(starts.subarray(0, values));
    this.cursor = fill;
  }

  /** The first event index after `after` that leads to depth `value`, or NEVER. */
  private firstReach(value: number, after: number): number {
    const v = value - this.minDepth;
    if (v < 0 || v >= this.cursor.length) return NEVER;
    let at = this.cursor[v] as number;
    const end = this.reachEnd[v] as number;
    while (at < end && (this.reach[at] as number) <= after) at++;
    this.cursor[v] = at;
    return at < end ? (this.reach[at] as number) : NEVER;
  }

  destinationEnd(s: number): number {
    const src = this.src;
    const eventAt = this.eventAt;
    let e = this.startEvents;
    while (e < this.events && (eventAt[e] as number) <= s) e++;
    this.startEvents = e;
    const base = e === 0 ? 0 : (this.eventDepth[e - 1] as number);
    let stop = this.stop;
    if (stop < s) {
      const n = src.length;
      stop = s;
      while (stop < n) {
        const c = src.charCodeAt(stop);
        if (c <= SPACE || c === DEL) break;
        stop++;
      }
      this.stop = stop;
    }
    // A reach index is just after the paren that changed the depth.
    const close = this.firstReach(base - 1, s) - 1;
    const overflow = this.firstReach(base + RESOURCE_PAREN_DEPTH + 1, s) - 1;
    if (close < stop && close < overflow) return close;
    if (overflow < stop) return -1;
    e = this.stopEvents;
    while (e < this.events && (eventAt[e] as number) <= stop) e++;
    this.stopEvents = e;
    if ((e === 0 ? 0 : (this.eventDepth[e - 1] as number)) !== base) return -1;
    return stop === src.length || isSpaceOrEol(src.charCodeAt(stop)) ? stop : -1;
  }
}
