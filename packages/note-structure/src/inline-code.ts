/**
 * micromark's code span (code-text.js) for the inline pass (inline.ts): where the closing backtick
 * run of an opening one is (BacktickRuns), and which padding micromark strips from the content
 * (codePadding). The pass records a span as one WRAP item (inline-items.ts) over its content.
 *
 * Invariant: a run closes a span exactly when micromark 4.0.3's would: the next backtick run of the
 * same length, escaped or not; the value keeps the content but one leading and one trailing space
 * or line ending when both are there and the content is not all of them.
 * Linear bound: one lazy forward scan shared by every run length (see BacktickRuns): O(n) over a
 * pass; codePadding reads the content once.
 */
import * as chars from './chars';
import * as growth from './growth';

// Imported values are bound once, at load (see chars.ts).
const { BACKTICK, LF, SPACE } = chars;
const { widened } = growth;

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

/**
 * Whether micromark strips one padding char from each side of the code span content [from, to):
 * both ends are a space or line ending and the rest is not all padding.
 */
export function codePadding(src: string, from: number, to: number): boolean {
  if (to - from < 2) return false;
  const first = src.charCodeAt(from);
  const last = src.charCodeAt(to - 1);
  if ((first !== SPACE && first !== LF) || (last !== SPACE && last !== LF)) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = src.charCodeAt(i);
    if (c !== SPACE && c !== LF) return true;
  }
  return false;
}
