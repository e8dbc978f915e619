/**
 * micromark's raw inline HTML (html-text.js) for the inline pass (inline.ts): comments,
 * processing instructions, CDATA, declarations, closing tags and open tags with attributes, over
 * the prepared inline source.
 *
 * Invariant: HtmlScanner.scan only reads; it answers the index after the construct's `>` or -1,
 * exactly where micromark 4.0.3 would accept it, for queries at increasing positions, never inside
 * a construct it accepted (as the pass makes them).
 * Linear bound: every scan that can run far is memoized so that no position is rescanned more
 * than a constant number of times over one source:
 * - closers (`-->`, `?>`, `]]>`, `>`) use one forward search per closer kind (queries arrive in
 *   increasing order, each search starts past the last hit);
 * - an open tag's failed attribute list is marked (one bit per position) at the points where it
 *   enters the "between attributes" state and a later attempt can reach (see attributes()), so
 *   two attempts that converge share one scan.
 */
import * as chars from './chars';
import * as growth from './growth';

// Imported values are bound once, at load (see chars.ts).
const {
  APOS, BACKTICK, BANG, COLON, DASH, DOT, EQUALS, GT, LBRACKET, LT, QUESTION, QUOTE, SLASH, UNDERSCORE, isAsciiAlpha,
  isAsciiAlphanumeric, isSpaceOrEol,
} = chars;
const { widened } = growth;

/**
 * Forward search for one fixed closer, memoized for queries at non-decreasing positions. A
 * closer of two or three chars is found by leapfrogging its first and last char with indexOf
 * (each jump skips a stretch that holds one of them but not the other), which stays fast
 * where plain indexOf is slow: runs like `<?<?` full of the closer's first char.
 */
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
    this.lastFound = this.search(from);
    return this.lastFound;
  }

  /** src.indexOf(needle, from). */
  private search(from: number): number {
    const { src, needle } = this;
    const last = needle.length - 1;
    if (last === 0) return src.indexOf(needle, from);
    const first = needle[0] as string;
    const end = needle[last] as string;
    // a: next first char at or after from; b: next last char that could end a match at or after a.
    let a = src.indexOf(first, from);
    let b = a < 0 ? -1 : src.indexOf(end, a + last);
    while (a >= 0 && b >= 0) {
      const start = b - last;
      if (start === a) {
        if (src.startsWith(needle, a)) return a;
        a = src.indexOf(first, a + 1);
      } else if (a < start) a = src.indexOf(first, start);
      else b = src.indexOf(end, a + last);
    }
    return -1;
  }
}

/** A set of positions in [0, length]: one bit per position, 32 to a word. */
function positionSet(length: number): Uint32Array {
  return new Uint32Array((length >>> 5) + 1);
}

function hasPosition(set: Uint32Array, at: number): boolean {
  return ((set[at >>> 5] as number) & (1 << (at & 31))) !== 0;
}

function addPosition(set: Uint32Array, at: number): void {
  set[at >>> 5] = (set[at >>> 5] as number) | (1 << (at & 31));
}

/** Raw inline HTML as micromark's htmlText reads it; call scan() at increasing positions. */
export class HtmlScanner {
  /** One search per closer kind, made when first needed. */
  private comment: ForwardSearch | null = null;
  private instruction: ForwardSearch | null = null;
  private cdata: ForwardSearch | null = null;
  private declaration: ForwardSearch | null = null;
  /**
   * Holds i: the attribute list fails from the "between attributes" entry point i. Only failed
   * lists are recorded, and only where another tag's attributes can reach them (see
   * attributes()); null until the first record, then a positionSet over the source.
   */
  private failing: Uint32Array | null = null;
  /** Entry points of the current attribute list still to record: entries[0, entryCount) (reused). */
  private entries: Int32Array = new Int32Array(16);
  private entryCount = 0;

  constructor(private readonly src: string) {}

  /** The index after the construct's `>`, or -1 (src[p] === '<'). */
  scan(p: number): number {
    const src = this.src;
    const c = src.charCodeAt(p + 1);
    if (c === BANG) {
      const d = src.charCodeAt(p + 2);
      if (d === DASH) {
        if (src.charCodeAt(p + 3) !== DASH) return -1;
        const at = (this.comment ??= new ForwardSearch(src, '-->')).find(p + 2);
        return at < 0 ? -1 : at + 3;
      }
      if (d === LBRACKET) {
        if (!src.startsWith('CDATA[', p + 3)) return -1;
        const at = (this.cdata ??= new ForwardSearch(src, ']]>')).find(p + 9);
        return at < 0 ? -1 : at + 3;
      }
      if (isAsciiAlpha(d)) {
        const at = (this.declaration ??= new ForwardSearch(src, '>')).find(p + 3);
        return at < 0 ? -1 : at + 1;
      }
      return -1;
    }
    if (c === QUESTION) {
      const at = (this.instruction ??= new ForwardSearch(src, '?>')).find(p + 2);
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

  /**
   * The "between attributes" state from i onwards. A failed list's entry points are marked in
   * `failing`, so a later attempt that converges with it stops there. Another tag's attributes can only reach
   * positions this list also reads if that tag's `<` lies inside one of this list's quoted
   * values (names, unquoted values and whitespace never hold a `<`) and this list failed (the
   * pass skips an accepted tag whole); so only a failed list's entry points after a quoted
   * value that holds a `<` are recorded, and a flood of plain tags (`<a `, `<a b="c" `) or of
   * accepted ones records nothing.
   */
  private attributes(i: number): number {
    const src = this.src;
    const failing = this.failing;
    this.entryCount = 0;
    let record = false;
    let result = -1;
    for (;;) {
      if (failing !== null && hasPosition(failing, i)) break;
      if (record) this.addEntry(i);
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
        if (c === DASH || c === DOT || c === COLON || c === UNDERSCORE || isAsciiAlphanumeric(c)) i++;
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
      if (c === QUOTE || c === APOS) {
        const close = src.indexOf(c === QUOTE ? '"' : "'", j + 1);
        if (close < 0) break;
        for (let k = j + 1; k < close && !record; k++) record = src.charCodeAt(k) === LT;
        i = close + 1;
        c = src.charCodeAt(i);
        if (!(c === SLASH || c === GT || isSpaceOrEol(c))) break;
        continue;
      }
      j++;
      for (;;) {
        c = src.charCodeAt(j);
        if (Number.isNaN(c) || c === QUOTE || c === APOS || c === LT || c === EQUALS || c === BACKTICK) {
          j = -1;
          break;
        }
        if (c === SLASH || c === GT || isSpaceOrEol(c)) break;
        j++;
      }
      if (j < 0) break;
      i = j;
    }
    // An accepted tag is skipped whole by the pass, so no later attempt starts inside it.
    if (this.entryCount > 0 && result < 0) {
      const failed = (this.failing ??= positionSet(src.length));
      for (let k = 0; k < this.entryCount; k++) addPosition(failed, this.entries[k] as number);
    }
    return result;
  }

  private addEntry(i: number): void {
    if (this.entryCount === this.entries.length) this.entries = widened(this.entries, this.entryCount + 1);
    this.entries[this.entryCount++] = i;
  }
}
