/**
 * Reference-label lookup for the inline pass (inline.ts): whether the text between a bracket
 * opener and a `]` names a definition, compared the way micromark 4.0.3 compares it (the raw
 * source of the span, escapes NOT resolved, through normalizeIdentifier).
 *
 * Invariant: `LabelLookup.defined(start, end)` is exactly
 * `definitions.has(normalizeLabel(src.slice(start, end)))`, given that every entry of
 * `definitions` is the normalized label of a CommonMark definition and that the set is not
 * changed once a lookup has used it. It answers false early, without normalizing, when the span
 * holds a bare bracket: a `[` or `]` after an even run of backslashes (none included). A
 * definition label never holds one (the label rule ends or refuses the label there), and
 * normalization keeps every bracket and backslash and their adjacency (it only folds whitespace
 * runs to one space, trims the ends and case-folds, and no case mapping yields a bracket or a
 * backslash), so such a span can never match. An all-ASCII span is normalized on the fly into a
 * hash and compared, without building a string, with the one key that has that hash (keys per
 * hash are indexed once per definitions set); any other span is sliced and normalized.
 *
 * Linear bound: O(n) over all calls of one pass, however long the defined labels. The
 * bare-bracket test reads the span backwards from its end and stops at the first bare bracket
 * (counting the backslash run before each bracket it meets). Every `]` the pass treats as a
 * closer is itself bare (after an odd run of backslashes the pass reads it as escaped, and
 * every construct it skips ends in `` ` ``, `>`, `;`, `)` or a consumed `]`, never in a
 * backslash) and closers come in source order, so the stretches read back from successive
 * closers are disjoint, and so are the spans without a bare bracket (a span that contains an
 * earlier closer has one); only those are normalized, each read at most three times in all.
 * Full-reference labels (`[text][label]`) are bounded by scanReferenceLabel and also
 * disjoint. The hash index costs O(total key length) once per definitions set (a WeakMap
 * keeps it across the passes of one note). Memory: O(number of definitions).
 */

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

function isLabelSpace(c: number): boolean {
  return c === SPACE || c === TAB || c === LF || c === CR;
}

/** `label` with every [\t\n\r ]+ run turned into one space and none at either end. */
function foldWhitespace(label: string): string {
  const words: string[] = [];
  const n = label.length;
  let i = 0;
  for (;;) {
    while (i < n && isLabelSpace(label.charCodeAt(i))) i++;
    if (i === n) return words.join(' ');
    const from = i;
    while (i < n && !isLabelSpace(label.charCodeAt(i))) i++;
    words.push(label.slice(from, i));
  }
}

// FNV-1a over UTF-16 code units, kept to 30 bits so it stays a small integer under pointer compression.
const HASH_START = 0x811c9dc5 | 0;
const HASH_MASK = 0x3fffffff;
function mix(hash: number, c: number): number {
  return Math.imul(hash ^ c, 0x01000193);
}

/** A definitions set's keys by hash; null where two keys share one (those spans take the slow path). */
const indexes = new WeakMap<ReadonlySet<string>, Map<number, string | null>>();

function keysByHash(definitions: ReadonlySet<string>): Map<number, string | null> {
  let index = indexes.get(definitions);
  if (index !== undefined) return index;
  index = new Map();
  for (const key of definitions) {
    let hash = HASH_START;
    for (let i = 0; i < key.length; i++) hash = mix(hash, key.charCodeAt(i));
    hash &= HASH_MASK;
    index.set(hash, index.has(hash) ? null : key);
  }
  indexes.set(definitions, index);
  return index;
}

/** Label lookups of one inline pass over `src`. */
export class LabelLookup {
  private keys: Map<number, string | null> | null = null;

  constructor(
    private readonly src: string,
    private readonly definitions: ReadonlySet<string>,
  ) {}

  /**
   * Whether the span [start, end) between an opener and the `]` at `end` names a definition.
   * Preconditions: src[start - 1] is the opener's `[`, src[end] is a bare `]`, and calls come
   * in increasing `end` (for the bound only).
   */
  defined(start: number, end: number): boolean {
    if (this.definitions.size === 0) return false;
    const src = this.src;
    for (let k = end - 1; k >= start; k--) {
      const c = src.charCodeAt(k);
      if (c !== LBRACKET && c !== RBRACKET) continue;
      let run = k - 1;
      while (run >= 0 && src.charCodeAt(run) === BACKSLASH) run--;
      if (((k - 1 - run) & 1) === 0) return false;
      // Escaped: go on below its backslash run.
      k = run + 1;
    }
    return this.names(start, end);
  }

  /** Whether the full-reference label [start, end) (as scanReferenceLabel delimits it) names a definition. */
  definedLabel(start: number, end: number): boolean {
    return this.definitions.size > 0 && this.names(start, end);
  }

  /** definitions.has(normalizeLabel(src.slice(start, end))), without a string for ASCII spans. */
  private names(start: number, end: number): boolean {
    const src = this.src;
    let hash = HASH_START;
    let length = 0;
    let pending = false;
    for (let k = start; k < end; k++) {
      let c = src.charCodeAt(k);
      if (c >= 128) return this.definitions.has(normalizeLabel(src.slice(start, end)));
      if (c === SPACE || c === TAB || c === LF || c === CR) {
        pending = length > 0;
        continue;
      }
      if (pending) {
        hash = mix(hash, SPACE);
        length++;
        pending = false;
      }
      if (c >= 97 && c <= 122) c -= 32;
      hash = mix(hash, c);
      length++;
    }
    this.keys ??= keysByHash(this.definitions);
    const key = this.keys.get(hash & HASH_MASK);
    if (key === undefined) return false;
    if (key === null) return this.definitions.has(normalizeLabel(src.slice(start, end)));
    if (key.length !== length) return false;
    // Second reading: the span's normalized code units against the key's.
    let at = 0;
    pending = false;
    for (let k = start; k < end; k++) {
      let c = src.charCodeAt(k);
      if (c === SPACE || c === TAB || c === LF || c === CR) {
        pending = at > 0;
        continue;
      }
      if (pending) {
        if (key.charCodeAt(at++) !== SPACE) return false;
        pending = false;
      }
      if (c >= 97 && c <= 122) c -= 32;
      if (key.charCodeAt(at++) !== c) return false;
    }
    return true;
  }
}
