/**
 * Link resources `(destination "title")` for the inline pass (inline.ts), as micromark 4.0.3's
 * label-end reads them after a `](` with factoryWhitespace, factoryDestination (link-destination.ts,
 * shared with definitions) and factoryTitle, over the prepared inline source.
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
 * that point on (ParenTables in link-destination.ts: one per unescaped paren) with one cursor
 * per depth, which answer each later destination in O(1) amortized (their starts never
 * decrease: each is the first non-space after the `(` of a `](`, at increasing `]`). Enclosed
 * destinations `<...>` end at the first `>`, `<` or line ending. Memory: no per-char table unless a query goes backwards; the paren
 * events take O(number of parens).
 */

import * as chars from './chars';
import * as destinations from './link-destination';
import { ParenTables, ScanStop } from './link-destination';

// Imported values are bound once, at load (see chars.ts).
const { APOS, BACKSLASH, LPAREN, LT, QUOTE, RPAREN, isSpaceOrEol } = chars;
const { RESOURCE_PAREN_DEPTH, scanEnclosedDestination, scanRawDestination, startsRawDestination } = destinations;

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
  /** Where the last direct destination scan stopped reading. */
  private readonly scanStop = new ScanStop();
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
    i = c === LT ? scanEnclosedDestination(src, i + 1) : this.rawDestination(i);
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

  /**
   * A raw destination from i: scanned directly up to 64 chars, or further while the spare
   * allowance (an eighth of the source over the whole pass) lasts; a scan that runs out
   * switches to the paren tables, so no stretch is rescanned more than that allowance allows.
   */
  private rawDestination(i: number): number {
    const src = this.src;
    if (!startsRawDestination(src.charCodeAt(i))) return -1;
    if (this.parens !== null) return this.parens.destinationEnd(i);
    const end = scanRawDestination(src, i, RESOURCE_PAREN_DEPTH, DIRECT_BUDGET + this.directSpare, this.scanStop);
    if (end !== -2) {
      const over = this.scanStop.at - i - DIRECT_BUDGET;
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

