/**
 * Link resources `(destination "title")` for the inline pass (inline.ts), as micromark 4.0.3's
 * factoryDestination / factoryTitle / factoryWhitespace read them after a `](`, over the
 * prepared inline source.
 *
 * Invariant: `LinkScanner.resource(p)` is the index after the resource's `)` or -1, exactly
 * where micromark would accept it, for queries at increasing p (as the pass makes them, one
 * per `](` it reaches); `skipSpace` answers in any order.
 *
 * Linear bound: O(n) over all calls of one pass. Titles (one search per closer kind) keep one
 * memo each and scan only past it; whitespace runs keep two (the furthest run read and the last
 * run read below it), and a new run is read only past one of them, up to the next; a query
 * before those memos switches that search to a next-occurrence table over the source, built
 * once. Raw destinations are scanned directly up to 64 characters each, plus at most n/8
 * characters in all past that; a scan that would go further switches to paren events from
 * that point on (one per unescaped paren) with one cursor per depth, which answer each later
 * destination in O(1) amortized (their starts never decrease: each is the first non-space
 * after the `(` of a `](`, at increasing `]`). Enclosed destinations `<...>` end at the first
 * `>`, `<` or line ending. Memory: no per-char table unless a query goes backwards; the paren
 * events take O(number of parens).
 */

import * as chars from './chars';
import * as growth from './growth';

// Imported values are bound once, at load (see chars.ts).
const { APOS, BACKSLASH, CR, DEL, GT, LF, LPAREN, LT, QUOTE, RPAREN, SPACE, isAsciiControl, isSpaceOrEol } = chars;
const { widened } = growth;

/** Larger than any index (a small integer, unlike Infinity). */
const NEVER = 0x3fffffff;

/**
 * Link resources `(dest "title")` and whitespace runs. Queries almost always arrive in source
 * order, so each search keeps memos (scanned stretches and their answers) and scans forward
 * only past them; a query before the memos (possible when a failed resource's `<...>`
 * destination held other links) switches that search to a next-occurrence table over the
 * whole source, built once. Either way no stretch is scanned twice.
 */
export class LinkScanner {
  /**
   * Two whitespace runs read so far, each [from, to) all whitespace with src[to] not: the far
   * one ends furthest on; the near one, below it, is the last read before the far one (a
   * title's end jumps ahead of the resources still to come). Both only move forward.
   */
  private farFrom = -1;
  private farTo = -1;
  private nearFrom = -1;
  private nearTo = -1;
  /** Chars raw destinations may still scan directly past the per-query budget (see rawDestination). */
  private directSpare: number;
  /** Where the last direct destination scan stopped reading (the index after its last char read). */
  scanStop = 0;
  private nextNonSpace: Int32Array | null = null;
  private parens: ParenTables | null = null;
  private quoteTitles: TitleSearch | null = null;
  private apostropheTitles: TitleSearch | null = null;
  private parenTitles: TitleSearch | null = null;

  constructor(private readonly src: string) {
    this.directSpare = src.length >> 3;
  }

  /** First index >= i that is not a space, tab or line ending. */
  skipSpace(i: number): number {
    return isSpaceOrEol(this.src.charCodeAt(i)) ? this.spaceEnd(i) : i;
  }

  /**
   * skipSpace where src[i] is whitespace (kept apart so the common case stays small). A query
   * past the far run reads a new far run; one between the near and the far run reads a new
   * near run, stopping where the far run starts; so no char is read twice. Any other query
   * (backwards) switches to a next-non-space table over the source, built once.
   */
  private spaceEnd(i: number): number {
    if (this.nextNonSpace !== null) return this.nextNonSpace[i] as number;
    if (i >= this.farFrom && i <= this.farTo) return this.farTo;
    if (i >= this.nearFrom && i <= this.nearTo) return this.nearTo;
    const src = this.src;
    if (i > this.farTo) {
      let k = i + 1;
      while (isSpaceOrEol(src.charCodeAt(k))) k++;
      if (this.farTo >= 0) {
        this.nearFrom = this.farFrom;
        this.nearTo = this.farTo;
      }
      this.farFrom = i;
      this.farTo = k;
      return k;
    }
    if (i > this.nearTo) {
      const far = this.farFrom;
      let k = i + 1;
      while (k < far && isSpaceOrEol(src.charCodeAt(k))) k++;
      if (k === far) k = this.farTo;
      this.nearFrom = i;
      this.nearTo = k;
      return k;
    }
    const n = src.length;
    const table = new Int32Array(n + 1);
    table[n] = n;
    for (let k = n - 1; k >= 0; k--) table[k] = isSpaceOrEol(src.charCodeAt(k)) ? (table[k + 1] as number) : k;
    this.nextNonSpace = table;
    return table[i] as number;
  }

  /** A resource at p (src[p] === '('): the index after its `)`, or -1. */
  resource(p: number): number {
    const src = this.src;
    let i = this.skipSpace(p + 1);
    let c = src.charCodeAt(i);
    if (c === RPAREN) return i + 1;
    i = c === LT ? this.enclosedDestination(i + 1) : this.rawDestination(i);
    if (i < 0) return -1;
    c = src.charCodeAt(i);
    if (isSpaceOrEol(c)) {
      i = this.skipSpace(i);
      c = src.charCodeAt(i);
      if (c === QUOTE || c === APOS || c === LPAREN) {
        const end = this.titleEnd(c, i + 1);
        if (end < 0) return -1;
        i = this.skipSpace(end + 1);
        c = src.charCodeAt(i);
      }
    }
    return c === RPAREN ? i + 1 : -1;
  }

  /** The closing marker of a title opened by `open` whose content starts at i, or -1. */
  private titleEnd(open: number, i: number): number {
    const src = this.src;
    const titles =
      open === QUOTE
        ? (this.quoteTitles ??= new TitleSearch(src, QUOTE))
        : open === APOS
          ? (this.apostropheTitles ??= new TitleSearch(src, APOS))
          : (this.parenTitles ??= new TitleSearch(src, RPAREN));
    return titles.end(i);
  }

  private enclosedDestination(i: number): number {
    const src = this.src;
    for (;;) {
      const c = src.charCodeAt(i);
      if (c === GT) return i + 1;
      if (Number.isNaN(c) || c === LT || c === LF || c === CR) return -1;
      i++;
      if (c === BACKSLASH) {
        const d = src.charCodeAt(i);
        if (d === LT || d === GT || d === BACKSLASH) i++;
      }
    }
  }

  /**
   * A raw destination from i: scanned directly up to 64 chars, or further while the spare
   * allowance (an eighth of the source over the whole pass) lasts; a scan that runs out
   * switches to the paren tables, so no stretch is rescanned more than that allowance allows.
   */
  private rawDestination(i: number): number {
    const src = this.src;
    const c = src.charCodeAt(i);
    if (Number.isNaN(c) || c === SPACE || c === RPAREN || isAsciiControl(c)) return -1;
    if (this.parens !== null) return this.parens.destinationEnd(i);
    const end = scanRawDestination(src, i, DIRECT_BUDGET + this.directSpare, this);
    if (end !== -2) {
      const over = this.scanStop - i - DIRECT_BUDGET;
      if (over > 0) this.directSpare -= over;
      return end;
    }
    this.directSpare = 0;
    this.parens = new ParenTables(src, i);
    return this.parens.destinationEnd(i);
  }
}

/** Chars any raw destination may scan directly before the spare allowance is drawn on. */
const DIRECT_BUDGET = 64;
/** micromark's paren depth limit for the raw destination of a link resource (a definition's has none). */
const RESOURCE_PAREN_DEPTH = 32;

/**
 * The closing marker of link titles with one closer kind: for content starting at i, the first
 * `close` at or after i that is not escaped, reading `\close` and `\\` as pairs from i on.
 * Precondition: src[i - 1] is the title's opener, never a backslash. Then a scan from an earlier
 * start that reached the answer passed i at a pair boundary, so it answers for every start it
 * crossed: one memo [from, found] serves later queries, and a query before it switches to a
 * table over the whole source.
 */
class TitleSearch {
  private from = -1;
  private found = -1;
  private table: Int32Array | null = null;
  private readonly closeChar: string;

  constructor(
    private readonly src: string,
    private readonly close: number,
  ) {
    this.closeChar = String.fromCharCode(close);
  }

  end(i: number): number {
    if (this.table !== null) return this.table[i] as number;
    if (this.from >= 0 && i >= this.from && (this.found < 0 || i <= this.found)) return this.found;
    if (this.from >= 0 && i < this.from) return this.buildTable()[i] as number;
    const src = this.src;
    // Read in pairs from i, a close is escaped exactly when an odd run of backslashes from i on
    // ends right before it. Each run lies after the previous candidate (a close, not a backslash),
    // so the runs are read once in all, and indexOf finds the candidates.
    let found = src.indexOf(this.closeChar, i);
    while (found >= 0) {
      let run = found;
      while (run > i && src.charCodeAt(run - 1) === BACKSLASH) run--;
      if (((found - run) & 1) === 0) break;
      found = src.indexOf(this.closeChar, found + 1);
    }
    this.from = i;
    this.found = found;
    return found;
  }

  private buildTable(): Int32Array {
    const src = this.src;
    const close = this.close;
    const n = src.length;
    const table = new Int32Array(n + 2);
    table[n] = -1;
    table[n + 1] = -1;
    for (let k = n - 1; k >= 0; k--) {
      const c = src.charCodeAt(k);
      if (c === close) table[k] = k;
      else if (c === BACKSLASH && k + 1 < n && (src.charCodeAt(k + 1) === close || src.charCodeAt(k + 1) === BACKSLASH)) {
        table[k] = table[k + 2] as number;
      } else table[k] = table[k + 1] as number;
    }
    this.table = table;
    return table;
  }
}

/**
 * micromark's raw destination (factoryDestination, paren depth limit RESOURCE_PAREN_DEPTH) from
 * i: its end, -1 when it fails, or -2 when it runs past `budget` characters undecided. Sets
 * `read.scanStop`, the index after the last char it read. definitions.ts reads a definition's
 * destination with its own loop, on purpose: one scanner fed both the block scan's slices of the
 * body and the inline pass's flat sources gets mixed type feedback, which made the link floods
 * 5-15% slower.
 */
function scanRawDestination(src: string, i: number, budget: number, read: { scanStop: number }): number {
  const stop = i + budget;
  let balance = 0;
  for (;;) {
    if (i >= stop) {
      read.scanStop = i;
      return -2;
    }
    const c = src.charCodeAt(i);
    const end = Number.isNaN(c);
    if (balance === 0 && (end || c === RPAREN || isSpaceOrEol(c))) {
      read.scanStop = i + 1;
      return i;
    }
    if (c === LPAREN && balance < RESOURCE_PAREN_DEPTH) {
      balance++;
      i++;
      continue;
    }
    if (c === RPAREN) {
      balance--;
      i++;
      continue;
    }
    if (end || c === SPACE || c === LPAREN || isAsciiControl(c)) {
      read.scanStop = i + 1;
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
 * Raw destinations in O(1) amortized each, for queries at non-decreasing start positions from
 * `origin` on (none of them the second char of an escape pair). With depth(j) = unescaped '('
 * minus ')' in [origin, j), a destination starting at s ends at the first of: the ')' that
 * takes depth below depth(s) (success), the '(' that takes it to depth(s) + 33 (failure:
 * micromark's limit), or the next space, control or end (success only at depth(s)). Only the
 * parens are recorded (one event each: the index just after it and the depth it leads to);
 * the first event reaching a depth is found with one cursor per depth value, depth(s) and
 * depth(stop) with one cursor each, and the next stop with a forward memo.
 */
class ParenTables {
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
