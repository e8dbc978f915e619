/**
 * Bounded lookahead scanners for the inline pass (src/contracts/analysis/inline.ts):
 * character references, autolinks, raw inline HTML, link resources and full
 * reference labels, each as micromark 4.0.3 tokenizes it, over the prepared
 * inline source (lines joined with '\n', line prefixes stripped).
 *
 * Invariant: a scanner only reads, never consumes; it answers "the construct
 * starting at p ends at e" or -1, exactly where micromark would accept it.
 *
 * Linear bound: every scan that can run far is memoized so that no position is
 * rescanned more than a constant number of times over one inline source:
 * - HTML closers (`-->`, `?>`, `]]>`, `>`) use one forward search per closer kind
 *   (queries arrive in increasing order, each search starts past the last hit);
 * - an open tag's attribute list is memoized at every point where it enters the
 *   "between attributes" state, so two attempts that converge share one scan;
 * - link titles and whitespace runs use next-occurrence tables built once, lazily;
 * - raw destinations are scanned directly up to 64 characters; past that, paren-depth
 *   tables with one cursor per depth answer each later destination in O(1) amortized;
 * - full reference labels stop at 1000 characters or at the next bracket.
 */

import { decodeNamedCharacterReference } from 'decode-named-character-reference';
import { decodeNumericCharacterReference } from 'micromark-util-decode-numeric-character-reference';

const TAB = 9;
const LF = 10;
const CR = 13;
const SPACE = 32;
const QUOTE = 34;
const HASH = 35;
const APOSTROPHE = 39;
const LPAREN = 40;
const RPAREN = 41;
const DASH = 45;
const SLASH = 47;
const COLON = 58;
const SEMICOLON = 59;
const LT = 60;
const EQUALS = 61;
const GT = 62;
const AT = 64;
const LBRACKET = 91;
const BACKSLASH = 92;
const RBRACKET = 93;
const UNDERSCORE = 95;
const BACKTICK = 96;

export function isAsciiAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
export function isAsciiDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
export function isAsciiAlphanumeric(c: number): boolean {
  return isAsciiAlpha(c) || isAsciiDigit(c);
}
function isAsciiHexDigit(c: number): boolean {
  return isAsciiDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}
/** micromark's asciiControl: C0 controls and DEL (NaN = end of input is handled by callers). */
function isAsciiControl(c: number): boolean {
  return c < SPACE || c === 127;
}
/** micromark's asciiAtext: [#-'*+\--9=?A-Z^-~]. */
function isAsciiAtext(c: number): boolean {
  return (
    (c >= 35 && c <= 39) || c === 42 || c === 43 || (c >= 45 && c <= 57) || c === 61 || c === 63 ||
    (c >= 65 && c <= 90) || (c >= 94 && c <= 126)
  );
}
/** markdownLineEndingOrSpace (the source holds no CR, but accept it). */
export function isSpaceOrEol(c: number): boolean {
  return c === SPACE || c === TAB || c === LF || c === CR;
}
/** CommonMark ASCII punctuation (escapable characters). */
export function isAsciiPunctuation(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/** A decoded character reference: where it ends and what it stands for. */
export interface CharacterReference {
  end: number;
  value: string;
}

/** `&name;`, `&#123;` or `&#x1F;` at p (src[p] === '&'); null when micromark would not read one. */
export function scanCharacterReference(src: string, p: number): CharacterReference | null {
  let i = p + 1;
  let max = 31;
  let base = 0; // 0 = named
  if (src.charCodeAt(i) === HASH) {
    i++;
    const c = src.charCodeAt(i);
    if (c === 120 || c === 88) {
      i++;
      max = 6;
      base = 16;
    } else {
      max = 7;
      base = 10;
    }
  }
  const start = i;
  for (;;) {
    const c = src.charCodeAt(i);
    const fits = base === 16 ? isAsciiHexDigit(c) : base === 10 ? isAsciiDigit(c) : isAsciiAlphanumeric(c);
    if (!fits || i - start >= max) break;
    i++;
  }
  if (i === start || src.charCodeAt(i) !== SEMICOLON) return null;
  const name = src.slice(start, i);
  if (base === 0) {
    const decoded = decodeNamedCharacterReference(name);
    if (decoded === false) return null;
    return { end: i + 1, value: decoded };
  }
  return { end: i + 1, value: decodeNumericCharacterReference(name, base) };
}

/** An autolink `<scheme:...>` or `<local@domain>` at p (src[p] === '<'); the index after `>` or -1. */
export function scanAutolink(src: string, p: number): number {
  let i = p + 1;
  let c = src.charCodeAt(i);
  if (c === AT) return -1;
  if (isAsciiAlpha(c)) {
    i++;
    c = src.charCodeAt(i);
    if (c === 43 || c === DASH || c === 46 || isAsciiAlphanumeric(c)) {
      let size = 1;
      for (;;) {
        c = src.charCodeAt(i);
        if (c === COLON) return scanAutolinkUrl(src, i + 1);
        if ((c === 43 || c === DASH || c === 46 || isAsciiAlphanumeric(c)) && size++ < 32) {
          i++;
          continue;
        }
        break;
      }
    }
  }
  return scanAutolinkEmail(src, i);
}

function scanAutolinkUrl(src: string, i: number): number {
  for (;;) {
    const c = src.charCodeAt(i);
    if (c === GT) return i + 1;
    if (Number.isNaN(c) || c === SPACE || c === LT || isAsciiControl(c)) return -1;
    i++;
  }
}

function scanAutolinkEmail(src: string, i: number): number {
  for (;;) {
    const c = src.charCodeAt(i);
    if (c === AT) break;
    if (!isAsciiAtext(c)) return -1;
    i++;
  }
  i++;
  if (!isAsciiAlphanumeric(src.charCodeAt(i))) return -1;
  let size = 0;
  let afterDash = false;
  for (;;) {
    const c = src.charCodeAt(i);
    if (!afterDash) {
      if (c === 46) {
        i++;
        size = 0;
        if (!isAsciiAlphanumeric(src.charCodeAt(i))) return -1;
        continue;
      }
      if (c === GT) return i + 1;
    }
    if ((c === DASH || isAsciiAlphanumeric(c)) && size++ < 63) {
      afterDash = c === DASH;
      i++;
      continue;
    }
    return -1;
  }
}

/** Forward search for one fixed closer, memoized for queries at non-decreasing positions. */
class ForwardSearch {
  private lastFrom = -1;
  private lastFound = -2;
  constructor(
    private readonly src: string,
    private readonly needle: string,
  ) {}
  find(from: number): number {
    if (this.lastFound !== -2 && from >= this.lastFrom && (this.lastFound === -1 || from <= this.lastFound)) {
      return this.lastFound;
    }
    this.lastFrom = from;
    this.lastFound = this.src.indexOf(this.needle, from);
    return this.lastFound;
  }
}

/** Raw inline HTML as micromark's htmlText reads it; call scan() at increasing positions. */
export class HtmlScanner {
  private readonly comment: ForwardSearch;
  private readonly instruction: ForwardSearch;
  private readonly cdata: ForwardSearch;
  private readonly declaration: ForwardSearch;
  /** Result of an open tag's attribute list from a "between attributes" entry point. */
  private readonly between = new Map<number, number>();

  constructor(private readonly src: string) {
    this.comment = new ForwardSearch(src, '-->');
    this.instruction = new ForwardSearch(src, '?>');
    this.cdata = new ForwardSearch(src, ']]>');
    this.declaration = new ForwardSearch(src, '>');
  }

  /** The index after the construct's `>`, or -1 (src[p] === '<'). */
  scan(p: number): number {
    const src = this.src;
    const c = src.charCodeAt(p + 1);
    if (c === 33) {
      const d = src.charCodeAt(p + 2);
      if (d === DASH) {
        if (src.charCodeAt(p + 3) !== DASH) return -1;
        const at = this.comment.find(p + 2);
        return at < 0 ? -1 : at + 3;
      }
      if (d === LBRACKET) {
        if (!src.startsWith('CDATA[', p + 3)) return -1;
        const at = this.cdata.find(p + 9);
        return at < 0 ? -1 : at + 3;
      }
      if (isAsciiAlpha(d)) {
        const at = this.declaration.find(p + 3);
        return at < 0 ? -1 : at + 1;
      }
      return -1;
    }
    if (c === 63) {
      const at = this.instruction.find(p + 2);
      return at < 0 ? -1 : at + 2;
    }
    if (c === SLASH) return this.closingTag(p + 2);
    if (isAsciiAlpha(c)) return this.openTag(p + 2);
    return -1;
  }

  private closingTag(i: number): number {
    const src = this.src;
    if (!isAsciiAlpha(src.charCodeAt(i))) return -1;
    i++;
    while (src.charCodeAt(i) === DASH || isAsciiAlphanumeric(src.charCodeAt(i))) i++;
    while (isSpaceOrEol(src.charCodeAt(i))) i++;
    return src.charCodeAt(i) === GT ? i + 1 : -1;
  }

  private openTag(i: number): number {
    const src = this.src;
    while (src.charCodeAt(i) === DASH || isAsciiAlphanumeric(src.charCodeAt(i))) i++;
    const c = src.charCodeAt(i);
    if (!(c === SLASH || c === GT || isSpaceOrEol(c))) return -1;
    return this.attributes(i);
  }

  /** The "between attributes" state from i onwards; every entry point is memoized with the outcome. */
  private attributes(i: number): number {
    const src = this.src;
    const entries: number[] = [];
    let result = -1;
    for (;;) {
      const known = this.between.get(i);
      if (known !== undefined) {
        result = known;
        break;
      }
      entries.push(i);
      while (isSpaceOrEol(src.charCodeAt(i))) i++;
      let c = src.charCodeAt(i);
      if (c === SLASH) {
        result = src.charCodeAt(i + 1) === GT ? i + 2 : -1;
        break;
      }
      if (!(c === COLON || c === UNDERSCORE || isAsciiAlpha(c))) {
        result = c === GT ? i + 1 : -1;
        break;
      }
      i++;
      for (;;) {
        c = src.charCodeAt(i);
        if (c === DASH || c === 46 || c === COLON || c === UNDERSCORE || isAsciiAlphanumeric(c)) i++;
        else break;
      }
      let j = i;
      while (isSpaceOrEol(src.charCodeAt(j))) j++;
      if (src.charCodeAt(j) !== EQUALS) {
        i = j;
        continue;
      }
      j++;
      while (isSpaceOrEol(src.charCodeAt(j))) j++;
      c = src.charCodeAt(j);
      if (Number.isNaN(c) || c === LT || c === EQUALS || c === GT || c === BACKTICK) break;
      if (c === QUOTE || c === APOSTROPHE) {
        const close = src.indexOf(c === QUOTE ? '"' : "'", j + 1);
        if (close < 0) break;
        i = close + 1;
        c = src.charCodeAt(i);
        if (!(c === SLASH || c === GT || isSpaceOrEol(c))) break;
        continue;
      }
      j++;
      for (;;) {
        c = src.charCodeAt(j);
        if (Number.isNaN(c) || c === QUOTE || c === APOSTROPHE || c === LT || c === EQUALS || c === BACKTICK) {
          j = -1;
          break;
        }
        if (c === SLASH || c === GT || isSpaceOrEol(c)) break;
        j++;
      }
      if (j < 0) break;
      i = j;
    }
    for (const entry of entries) this.between.set(entry, result);
    return result;
  }
}

/**
 * Link resources `(dest "title")` and whitespace runs, with next-occurrence tables
 * (built lazily, once per source) so repeated attempts never rescan titles or spaces.
 */
export class LinkScanner {
  private nextNonSpace: Int32Array | null = null;
  private parens: ParenTables | null = null;
  private readonly titleEnds = new Map<number, Int32Array>();

  constructor(private readonly src: string) {}

  /** First index >= i that is not a space, tab or line ending. */
  skipSpace(i: number): number {
    if (!isSpaceOrEol(this.src.charCodeAt(i))) return i;
    if (this.nextNonSpace === null) {
      const src = this.src;
      const table = new Int32Array(src.length + 1);
      table[src.length] = src.length;
      for (let k = src.length - 1; k >= 0; k--) table[k] = isSpaceOrEol(src.charCodeAt(k)) ? (table[k + 1] as number) : k;
      this.nextNonSpace = table;
    }
    return this.nextNonSpace[i] as number;
  }

  /** The index of the title's closing marker for a title whose content starts at i, or -1. */
  private titleEnd(close: number, i: number): number {
    let table = this.titleEnds.get(close);
    if (table === undefined) {
      const src = this.src;
      const n = src.length;
      table = new Int32Array(n + 2);
      table[n] = -1;
      table[n + 1] = -1;
      for (let k = n - 1; k >= 0; k--) {
        const c = src.charCodeAt(k);
        if (c === close) table[k] = k;
        else if (c === BACKSLASH && k + 1 < n && (src.charCodeAt(k + 1) === close || src.charCodeAt(k + 1) === BACKSLASH)) {
          table[k] = table[k + 2] as number;
        } else table[k] = table[k + 1] as number;
      }
      this.titleEnds.set(close, table);
    }
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
      if (c === QUOTE || c === APOSTROPHE || c === LPAREN) {
        const end = this.titleEnd(c === LPAREN ? RPAREN : c, i + 1);
        if (end < 0) return -1;
        i = this.skipSpace(end + 1);
        c = src.charCodeAt(i);
      }
    }
    return c === RPAREN ? i + 1 : -1;
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

  private rawDestination(i: number): number {
    const src = this.src;
    const c = src.charCodeAt(i);
    if (Number.isNaN(c) || c === SPACE || c === RPAREN || isAsciiControl(c)) return -1;
    if (this.parens !== null) return this.parens.destinationEnd(i);
    // Direct scan; after a long one, switch to the paren tables so no stretch is rescanned.
    const end = scanRawDestination(src, i, 64);
    if (end !== -2) return end;
    this.parens = new ParenTables(src);
    return this.parens.destinationEnd(i);
  }
}

/**
 * micromark's raw destination (factoryDestination, paren depth limit 32) from i: its end, -1
 * when it fails, or -2 when it runs past `budget` characters undecided.
 */
function scanRawDestination(src: string, i: number, budget: number): number {
  const stop = i + budget;
  let balance = 0;
  for (;;) {
    if (i >= stop) return -2;
    const c = src.charCodeAt(i);
    const end = Number.isNaN(c);
    if (balance === 0 && (end || c === RPAREN || isSpaceOrEol(c))) return i;
    if (c === LPAREN && balance < 32) {
      balance++;
      i++;
      continue;
    }
    if (c === RPAREN) {
      balance--;
      i++;
      continue;
    }
    if (end || c === SPACE || c === LPAREN || isAsciiControl(c)) return -1;
    i++;
    if (c === BACKSLASH) {
      const d = src.charCodeAt(i);
      if (d === LPAREN || d === RPAREN || d === BACKSLASH) i++;
    }
  }
}

/**
 * Raw destinations in O(1) amortized each, for queries at increasing start positions. With
 * depth[j] = unescaped '(' minus ')' before j, a destination starting at s ends at the first
 * of: the ')' that takes depth below depth[s] (success), the '(' that takes it to
 * depth[s] + 33 (failure: micromark's limit), or the next space, control or end (success only
 * at depth[s]). The first index reaching a depth is found with one cursor per depth value.
 */
class ParenTables {
  private readonly depth: Int32Array;
  private readonly minDepth: number;
  /** Indices j where depth[j] becomes each value, grouped by value (CSR), ascending within a value. */
  private readonly reach: Int32Array;
  private readonly reachEnd: Int32Array;
  /** Per value: the next candidate in `reach` (queries arrive at increasing positions). */
  private readonly cursor: Int32Array;
  private readonly nextStop: Int32Array;

  constructor(private readonly src: string) {
    const n = src.length;
    const depth = new Int32Array(n + 1);
    let d = 0;
    let min = 0;
    let max = 0;
    let changes = 0;
    let k = 0;
    while (k < n) {
      const c = src.charCodeAt(k);
      depth[k] = d;
      if (c === BACKSLASH) {
        const e = src.charCodeAt(k + 1);
        if (e === LPAREN || e === RPAREN || e === BACKSLASH) {
          depth[k + 1] = d;
          k += 2;
          continue;
        }
      }
      k++;
      if (c === LPAREN || c === RPAREN) {
        d += c === LPAREN ? 1 : -1;
        if (d < min) min = d;
        if (d > max) max = d;
        changes++;
      }
    }
    depth[n] = d;
    this.depth = depth;
    this.minDepth = min;
    // Counting pass, then fill: the index just after each paren, under the depth it leads to.
    const values = max - min + 1;
    const starts = new Int32Array(values + 1);
    for (let j = 1; j <= n; j++) {
      if (depth[j] !== depth[j - 1]) starts[(depth[j] as number) - min + 1]++;
    }
    for (let v = 0; v < values; v++) starts[v + 1] = (starts[v + 1] as number) + (starts[v] as number);
    const fill = starts.slice(0, values);
    const reach = new Int32Array(changes);
    for (let j = 1; j <= n; j++) {
      if (depth[j] !== depth[j - 1]) {
        const v = (depth[j] as number) - min;
        reach[fill[v] as number] = j;
        fill[v] = (fill[v] as number) + 1;
      }
    }
    this.reach = reach;
    this.reachEnd = starts.slice(1);
    this.cursor = starts.slice(0, values);
    const nextStop = new Int32Array(n + 1);
    nextStop[n] = n;
    for (let j = n - 1; j >= 0; j--) {
      const c = src.charCodeAt(j);
      nextStop[j] = c === SPACE || isAsciiControl(c) ? j : (nextStop[j + 1] as number);
    }
    this.nextStop = nextStop;
  }

  private firstReach(value: number, after: number): number {
    const v = value - this.minDepth;
    if (v < 0 || v >= this.cursor.length) return Number.POSITIVE_INFINITY;
    let at = this.cursor[v] as number;
    const end = this.reachEnd[v] as number;
    while (at < end && (this.reach[at] as number) <= after) at++;
    this.cursor[v] = at;
    return at < end ? (this.reach[at] as number) : Number.POSITIVE_INFINITY;
  }

  destinationEnd(s: number): number {
    const base = this.depth[s] as number;
    const stop = this.nextStop[s] as number;
    // A reach index is just after the paren that changed the depth.
    const close = this.firstReach(base - 1, s) - 1;
    const overflow = this.firstReach(base + 33, s) - 1;
    if (close < stop && close < overflow) return close;
    if (overflow < stop) return -1;
    if ((this.depth[stop] as number) !== base) return -1;
    const c = this.src.charCodeAt(stop);
    return Number.isNaN(c) || isSpaceOrEol(c) ? stop : -1;
  }
}

/** A full reference label `[label]` at p (src[p] === '['): the index after its `]`, or -1. */
export function scanReferenceLabel(src: string, p: number): number {
  let i = p + 1;
  let size = 0;
  let seen = false;
  for (;;) {
    let c = src.charCodeAt(i);
    if (size > 999 || Number.isNaN(c) || c === LBRACKET || (c === RBRACKET && !seen)) return -1;
    if (c === RBRACKET) return i + 1;
    if (c === LF || c === CR) {
      i++;
      continue;
    }
    for (;;) {
      c = src.charCodeAt(i);
      if (Number.isNaN(c) || c === LBRACKET || c === RBRACKET || c === LF || c === CR || size++ > 999) break;
      i++;
      if (!seen) seen = c !== SPACE && c !== TAB;
      if (c === BACKSLASH) {
        const d = src.charCodeAt(i);
        if (d === LBRACKET || d === BACKSLASH || d === RBRACKET) {
          i++;
          size++;
        }
      }
    }
  }
}
