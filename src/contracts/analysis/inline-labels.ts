/**
 * Reference-label lookup for the inline pass (inline.ts): whether the text between a bracket
 * opener and a `]` names a definition, compared the way micromark 4.0.3 compares it (the raw
 * source of the span, escapes NOT resolved, through normalizeIdentifier).
 *
 * Invariant: `LabelLookup.defined(start, end)` is exactly
 * `definitions.has(normalizeLabel(src.slice(start, end)))`, given that every entry of
 * `definitions` is the normalized label of a CommonMark definition. It answers false early,
 * without normalizing, when the span holds a bare bracket: a `[` or `]` after an even run of
 * backslashes (none included). A definition label never holds one (the label rule ends or
 * refuses the label there), and normalization keeps every bracket and backslash and their
 * adjacency (it only folds whitespace runs to one space, trims the ends and case-folds, and no
 * case mapping yields a bracket or a backslash), so such a span can never match.
 *
 * Linear bound: O(n) over all calls of one pass, however long the defined labels. The
 * bare-bracket test is O(1) amortized: one forward cursor over the source, as the closers come
 * in source order. Only spans without a bare bracket are normalized, and those are disjoint:
 * every `]` the pass treats as a closer is itself bare (after an odd run of backslashes the
 * pass reads it as escaped, and every construct it skips ends in `` ` ``, `>`, `;`, `)` or a
 * consumed `]`, never in a backslash), so a span that contains an earlier closer fails the
 * test. Full-reference labels (`[text][label]`) are bounded by scanReferenceLabel and also
 * disjoint. Memory: O(1) beyond the normalized strings.
 */

import { fromCodeUnits } from './inline-buffers';

const TAB = 9;
const LF = 10;
const CR = 13;
const SPACE = 32;
const LBRACKET = 91;
const BACKSLASH = 92;
const RBRACKET = 93;

/** micromark's normalizeIdentifier: collapse [\t\n\r ]+ to ' ', trim, toLowerCase().toUpperCase(). */
export function normalizeLabel(label: string): string {
  // One scan decides which steps can change anything: whitespace folding only when a tab, a
  // line ending, an end space or two spaces in a row occur; for ASCII, lower- then
  // upper-casing is plain upper-casing.
  const n = label.length;
  let ascii = true;
  let fold = false;
  for (let i = 0; i < n; i++) {
    const c = label.charCodeAt(i);
    if (c >= 127) ascii = false;
    else if (c === SPACE) {
      if (i === 0 || i === n - 1 || label.charCodeAt(i + 1) <= SPACE) fold = true;
    } else if (c === TAB || c === LF || c === CR) fold = true;
  }
  const folded = fold ? foldWhitespace(label) : label;
  return ascii ? folded.toUpperCase() : folded.toLowerCase().toUpperCase();
}

/** `label` with every [\t\n\r ]+ run turned into one space and none at either end. */
function foldWhitespace(label: string): string {
  const out = new Uint16Array(label.length);
  let w = 0;
  let pending = false;
  for (let i = 0; i < label.length; i++) {
    const c = label.charCodeAt(i);
    if (c === SPACE || c === TAB || c === LF || c === CR) pending = w > 0;
    else {
      if (pending) out[w++] = SPACE;
      pending = false;
      out[w++] = c;
    }
  }
  return fromCodeUnits(out, w);
}

/** Label lookups of one inline pass over `src`. */
export class LabelLookup {
  /** Positions below this have been read for bare brackets. */
  private cursor = 0;
  /** Length of the backslash run that ends right before `cursor`. */
  private backslashes = 0;
  /** The last bare bracket below `cursor`, or -1. */
  private lastBare = -1;

  constructor(
    private readonly src: string,
    private readonly definitions: ReadonlySet<string>,
  ) {}

  /**
   * Whether the span [start, end) between an opener and the `]` at `end` names a definition.
   * Preconditions: src[start - 1] is the opener's `[`, and `end` never decreases between calls.
   */
  defined(start: number, end: number): boolean {
    if (this.definitions.size === 0) return false;
    this.advance(end);
    if (this.lastBare >= start) return false;
    return this.definitions.has(normalizeLabel(this.src.slice(start, end)));
  }

  /** Whether the full-reference label [start, end) (as scanReferenceLabel delimits it) names a definition. */
  definedLabel(start: number, end: number): boolean {
    return this.definitions.size > 0 && this.definitions.has(normalizeLabel(this.src.slice(start, end)));
  }

  private advance(end: number): void {
    const src = this.src;
    let backslashes = this.backslashes;
    let lastBare = this.lastBare;
    for (let k = this.cursor; k < end; k++) {
      const c = src.charCodeAt(k);
      if (c === BACKSLASH) {
        backslashes++;
        continue;
      }
      if ((c === LBRACKET || c === RBRACKET) && (backslashes & 1) === 0) lastBare = k;
      backslashes = 0;
    }
    if (end > this.cursor) this.cursor = end;
    this.backslashes = backslashes;
    this.lastBare = lastBare;
  }
}
