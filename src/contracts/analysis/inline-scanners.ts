/**
 * Bounded lookahead scanners for the inline pass (src/contracts/analysis/inline.ts):
 * code span closers, character references, autolinks, raw inline HTML and full reference labels, each as
 * micromark 4.0.3 tokenizes it, over the prepared inline source (lines joined with '\n',
 * line prefixes stripped). Link resources live in inline-links.ts (re-exported here).
 *
 * Invariant: a scanner only reads, never consumes; it answers "the construct
 * starting at p ends at e" or -1, exactly where micromark would accept it.
 *
 * Linear bound: every scan that can run far is memoized so that no position is
 * rescanned more than a constant number of times over one inline source:
 * - HTML closers (`-->`, `?>`, `]]>`, `>`) use one forward search per closer kind
 *   (queries arrive in increasing order, each search starts past the last hit);
 * - an open tag's failed attribute list is marked (one bit per position) at the points where
 *   it enters the "between attributes" state and a later attempt can reach (see HtmlScanner),
 *   so two attempts that converge share one scan (scan() is called at increasing positions,
 *   never inside a construct it accepted);
 * - code span closers: one lazy forward scan shared by every run length (see BacktickRuns);
 * - character references read at most 33 chars, autolinks at most until the first
 *   char they refuse (a `<` or a space ends every one), full reference labels stop at
 *   1000 characters or at the next bracket;
 * - link resources: see inline-links.ts.
 */

import { decodeNamedCharacterReference } from 'decode-named-character-reference';
import * as chars from './chars';
import * as growth from './growth';

export { LinkScanner } from './inline-links';

// Imported values are bound once, at load (see chars.ts).
const {
  APOS, AT, BACKSLASH, BACKTICK, BANG, COLON, CR, DASH, DIGIT_ZERO, DOT, EQUALS, GT, HASH, LBRACKET, LF, LOWER_X, LT, PLUS,
  QUESTION, QUOTE, RBRACKET, SEMICOLON, SLASH, SPACE, TAB, UNDERSCORE, UPPER_X, isAsciiAlpha, isAsciiAlphanumeric,
  isAsciiAtext, isAsciiControl, isDigit, isSpaceOrEol,
} = chars;
const { widened } = growth;

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

/** An autolink `<scheme:...>` or `<local@domain>` at p (src[p] === '<'); the index after `>` or -1. */
export function scanAutolink(src: string, p: number): number {
  let i = p + 1;
  let c = src.charCodeAt(i);
  if (c === AT) return -1;
  if (isAsciiAlpha(c)) {
    i++;
    c = src.charCodeAt(i);
    if (c === PLUS || c === DASH || c === DOT || isAsciiAlphanumeric(c)) {
      let size = 1;
      for (;;) {
        c = src.charCodeAt(i);
        if (c === COLON) return scanAutolinkUrl(src, i + 1);
        if ((c === PLUS || c === DASH || c === DOT || isAsciiAlphanumeric(c)) && size++ < 32) {
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
      if (c === DOT) {
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

/** Raw inline HTML as micromark's htmlText reads it; call scan() at increasing positions. */
export class HtmlScanner {
  /** One search per closer kind, made when first needed. */
  private comment: ForwardSearch | null = null;
  private instruction: ForwardSearch | null = null;
  private cdata: ForwardSearch | null = null;
  private declaration: ForwardSearch | null = null;
  /**
   * Bit i set: the attribute list fails from the "between attributes" entry point i. Only
   * failed lists are recorded, and only where another tag's attributes can reach them (see
   * attributes()); null until the first record, then one bit per source position.
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
      if (failing !== null && ((failing[i >>> 5] as number) & (1 << (i & 31))) !== 0) break;
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
      const bits = (this.failing ??= new Uint32Array((src.length >>> 5) + 1));
      for (let k = 0; k < this.entryCount; k++) {
        const entry = this.entries[k] as number;
        bits[entry >>> 5] = (bits[entry >>> 5] as number) | (1 << (entry & 31));
      }
    }
    return result;
  }

  private addEntry(i: number): void {
    if (this.entryCount === this.entries.length) this.entries = widened(this.entries, this.entryCount + 1);
    this.entries[this.entryCount++] = i;
  }
}

/** Run lengths below this keep their last start in a table; longer ones (at most n / SHORT_RUNS of them) in a Map. */
const SHORT_RUNS = 64;

/**
 * Closing backtick runs for code spans: one lazy forward scan from the query point records the
 * last start of every run length it passes, and stops at the first run of the wanted length. A
 * scan that fails reaches the end of the source, so afterwards every length's last start is
 * known (and no longer recorded: later scans read runs before it) and a query with no run of its
 * length ahead is answered without reading anything.
 * Queries arrive at increasing positions and the pass skips a code span it finds whole, so each
 * successful scan reads source no other scan reads, and at most one scan fails: O(n) overall.
 */
export class BacktickRuns {
  /** Whether a scan reached the end of the source. */
  private complete = false;
  /**
   * Per length below SHORT_RUNS, the start of the last run seen plus one (0: none); as long as the
   * longest length seen needs, made at the first run recorded. It starts at 16 ints: a typed array of
   * at most 64 bytes is made on the engine's heap, a larger one outside it at about 10x the cost,
   * more than a whole pass over a short source.
   */
  private lastShort: Int32Array | null = null;
  private lastLong: Map<number, number> | null = null;

  constructor(private readonly src: string) {}

  /**
   * The start of the first backtick run of exactly `size` at or after `from`, or -1; src[from] is
   * not a backtick (from ends the opening run) and runs count from any backtick, escaped or not.
   */
  close(size: number, from: number): number {
    if (this.complete && this.lastStart(size) < from) return -1;
    const src = this.src;
    let at = src.indexOf('`', from);
    while (at >= 0) {
      let end = at + 1;
      while (src.charCodeAt(end) === BACKTICK) end++;
      const length = end - at;
      // Once a scan has reached the end, every last start is final: a later scan reads earlier runs.
      if (!this.complete) {
        if (length < SHORT_RUNS) {
          let table = (this.lastShort ??= new Int32Array(16));
          if (length >= table.length) table = this.lastShort = widened(table, length + 1);
          table[length] = at + 1;
        } else (this.lastLong ??= new Map()).set(length, at);
      }
      if (length === size) return at;
      at = src.indexOf('`', end);
    }
    this.complete = true;
    return -1;
  }

  private lastStart(length: number): number {
    if (length < SHORT_RUNS) {
      const table = this.lastShort;
      return table !== null && length < table.length ? (table[length] as number) - 1 : -1;
    }
    return this.lastLong?.get(length) ?? -1;
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
