/**
 * Reference labels for the inline pass (inline.ts): the full reference label after a `]`
 * (scanReferenceLabel, as micromark 4.0.3's factoryLabel reads it: at most 999 chars, no
 * unescaped bracket, not blank), and the lookup of whether the text between a bracket opener and a
 * `]` names a definition, compared the way micromark compares it (the raw source of the span,
 * escapes NOT resolved, through micromark-util-normalize-identifier).
 *
 * Invariant: `LabelLookup.defined(start, end)` is exactly
 * `definitions.has(normalizeLabel(src.slice(start, end)))`, given that every entry of
 * `definitions` is the normalized label of a CommonMark definition and that the set is not
 * changed once a lookup has used it. It answers false early, without normalizing, when the span
 * holds a bare bracket: a `[` or `]` after an even run of backslashes (none included). A
 * definition label never holds one (the label rule ends or refuses the label there), and
 * normalization keeps every bracket and backslash and their adjacency (it only folds whitespace
 * runs to one space, trims the ends and case-folds, and no case mapping yields a bracket or a
 * backslash), so such a span can never match. Any other span is normalized on the fly, unit by
 * unit, into a hash and compared in place with the one key that has that hash (KeyIndex, built
 * once per definitions set), without building a string: whitespace runs fold as they are read,
 * and each UTF-16 unit is case-folded through caseFold, which is exact per unit (see there).
 * Only a span holding a surrogate, or one whose hash two keys share, is sliced and normalized.
 * The last span asked is remembered with its answer, which is reused for the next span when
 * that is the same span (a full-reference label is asked again as the shortcut label of its own
 * `]`) or holds the same units (a label used again, as in `[1] ... [1]`).
 *
 * Linear bound: O(n) over all calls of one pass, however long the defined labels. The
 * bare-bracket test reads the span backwards from its end and stops at the first bare bracket
 * (counting the backslash run before each bracket it meets). Every `]` the pass treats as a
 * closer is itself bare (after an odd run of backslashes the pass reads it as escaped, and
 * every construct it skips ends in `` ` ``, `>`, `;`, `)` or a consumed `]`, never in a
 * backslash) and closers come in source order, so the stretches read back from successive
 * closers are disjoint, and so are the spans without a bare bracket (a span that contains an
 * earlier closer has one); only those are normalized, each read at most three times in all.
 * Comparing a span with the remembered one reads at most twice the span's length.
 * Full-reference labels (`[text][label]`) are bounded by scanReferenceLabel and also
 * disjoint. A lookup in the hash index reads at most MAX_PROBE + 1 slots and one key
 * whatever the keys (crafted collisions only send spans to the slow path); the index costs
 * O(total key length) once per definitions set (kept here across the passes of one note, in
 * labelKeys). caseFold learns each distinct unit once per note (one short string each, at most
 * one per span char) into caseFolds, which resetLabelState clears after the note (scratch.ts
 * runs it), so the table never tells which chars an earlier note used. Memory: O(number of
 * definitions), plus one 128 KiB table per isolate once a non-ASCII label char is read (all
 * zeros between notes).
 */

import * as chars from './chars';

// Imported values are bound once, at load (see chars.ts).
const { BACKSLASH, CR, DEL, LBRACKET, LF, RBRACKET, SPACE, TAB, asciiUpper, isAsciiLower, isSpaceOrEol, isSurrogate } = chars;

// ---------------------------------------------------------------- kept state (cleared after each note)

/**
 * Case folds of label code units: `table[c]` is what c folds to (0 = not asked yet; the table
 * exists once a non-ASCII label unit is read), `expansions` the folds longer than one unit,
 * `learnt` every unit set in the table since the last reset.
 */
export const caseFolds: { table: Uint16Array | null; readonly expansions: Map<number, string>; readonly learnt: number[] } = {
  table: null,
  expansions: new Map(),
  learnt: [],
};

/** The key index of the definitions set the note's passes share. */
export const labelKeys: { definitions: ReadonlySet<string> | null; index: KeyIndex | null } = { definitions: null, index: null };

/** Forgets what the note taught caseFolds and labelKeys (scratch.ts runs it after each note): O(units learnt). */
export function resetLabelState(): void {
  const { table, expansions, learnt } = caseFolds;
  if (table !== null) for (const c of learnt) table[c] = 0;
  learnt.length = 0;
  expansions.clear();
  labelKeys.definitions = null;
  labelKeys.index = null;
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

/** micromark's normalizeIdentifier: collapse [\t\n\r ]+ to ' ', trim, toLowerCase().toUpperCase(). */
export function normalizeLabel(label: string): string {
  // One scan decides which steps can change anything: whitespace folding only when a tab, a
  // line ending, an end space or two spaces in a row occur; for ASCII, lower- then
  // upper-casing is plain upper-casing.
  const n = label.length;
  let ascii = true;
  let lower = false;
  let fold = false;
  for (let i = 0; i < n; i++) {
    const c = label.charCodeAt(i);
    if (c >= DEL) ascii = false;
    else if (isAsciiLower(c)) lower = true;
    else if (c === SPACE) {
      if (i === 0 || i === n - 1 || label.charCodeAt(i + 1) <= SPACE) fold = true;
    } else if (c === TAB || c === LF || c === CR) fold = true;
  }
  const folded = fold ? foldWhitespace(label) : label;
  // ASCII without a lower-case letter is already upper case (digits, the common numbered labels).
  if (ascii) return lower ? folded.toUpperCase() : folded;
  return folded.toLowerCase().toUpperCase();
}

/** `label` with every [\t\n\r ]+ run turned into one space and none at either end. */
function foldWhitespace(label: string): string {
  const words: string[] = [];
  const n = label.length;
  let i = 0;
  for (;;) {
    while (i < n && isSpaceOrEol(label.charCodeAt(i))) i++;
    if (i === n) return words.join(' ');
    const from = i;
    while (i < n && !isSpaceOrEol(label.charCodeAt(i))) i++;
    words.push(label.slice(from, i));
  }
}

/** Sentinels: lone surrogates, which no single non-surrogate unit folds to. */
const EXPANDS = 0xd800;
const SURROGATE = 0xdc00;

/**
 * caseFold(c) for a UTF-16 unit c >= 128: `String.fromCharCode(c).toLowerCase().toUpperCase()`
 * as one unit, EXPANDS when that is longer (the units are in caseFolds.expansions), or SURROGATE.
 * Exact per unit: for a string without surrogates, `toLowerCase().toUpperCase()` is the
 * concatenation of this mapping over its units, because the one context-dependent lower-case
 * mapping applied without a locale is Final_Sigma (Σ to σ or ς), whose results both upper-case
 * to Σ, and upper-casing without a locale depends on no context (a unit test checks every BMP
 * unit and random strings against normalizeLabel). Learnt lazily into caseFolds.table.
 */
function caseFold(c: number): number {
  const table = (caseFolds.table ??= new Uint16Array(0x10000));
  const known = table[c] as number;
  return known !== 0 ? known : learnCaseFold(table, c);
}

/** The label fold of one UTF-16 unit: ASCII a-z upper-cased, others through caseFold (EXPANDS, SURROGATE). */
function foldUnit(c: number): number {
  if (c < 128) return isAsciiLower(c) ? asciiUpper(c) : c;
  return caseFold(c);
}

function learnCaseFold(table: Uint16Array, c: number): number {
  caseFolds.learnt.push(c);
  if (isSurrogate(c)) return (table[c] = SURROGATE);
  const mapped = String.fromCharCode(c).toLowerCase().toUpperCase();
  if (mapped.length === 1) return (table[c] = mapped.charCodeAt(0));
  caseFolds.expansions.set(c, mapped);
  return (table[c] = EXPANDS);
}

// FNV-1a over UTF-16 code units.
const HASH_START = 0x811c9dc5 | 0;
function mix(hash: number, c: number): number {
  return Math.imul(hash ^ c, 0x01000193);
}

/** Home slot of a hash: its bits mixed (FNV's low bits depend only on the chars' low bits). */
function home(hash: number, mask: number): number {
  const h = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  return (h ^ (h >>> 13)) & mask;
}

/** Longest probe: keys sit at most this far from their home slot, or the index is not used. */
const MAX_PROBE = 32;
/** Slot of two keys with the same hash: spans with that hash take the slow path. */
const SHARED = -1;

/**
 * The keys of one definitions set in an open-addressing table (linear probing, load at most
 * 1/4), so a lookup reads at most MAX_PROBE + 1 slots and compares with at most one key. Keys
 * that would sit further (crafted to collide) leave the index unusable: lookups then slice and
 * normalize, as without it.
 */
export class KeyIndex {
  readonly mask: number;
  readonly slotHash: Int32Array;
  /** Index into `keys` plus one; 0 = empty slot; SHARED. */
  readonly slotKey: Int32Array;
  readonly keys: string[];
  readonly usable: boolean;

  constructor(definitions: ReadonlySet<string>) {
    let size = 16;
    while (size < definitions.size * 4) size *= 2;
    const mask = size - 1;
    const slotHash = new Int32Array(size);
    const slotKey = new Int32Array(size);
    const keys = [...definitions];
    let usable = true;
    for (let k = 0; k < keys.length && usable; k++) {
      const key = keys[k] as string;
      let hash = HASH_START;
      for (let i = 0; i < key.length; i++) hash = mix(hash, key.charCodeAt(i));
      let slot = home(hash, mask);
      for (let probe = 0; ; probe++) {
        if (probe > MAX_PROBE) {
          usable = false;
          break;
        }
        if (slotKey[slot] === 0) {
          slotHash[slot] = hash;
          slotKey[slot] = k + 1;
          break;
        }
        if (slotHash[slot] === hash) {
          slotKey[slot] = SHARED;
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    this.mask = mask;
    this.slotHash = slotHash;
    this.slotKey = slotKey;
    this.keys = keys;
    this.usable = usable;
  }
}

/** The index of `definitions`: the one the note's earlier passes built for the same set, or a new one kept for the later ones. */
function keyIndex(definitions: ReadonlySet<string>): KeyIndex {
  if (labelKeys.definitions !== definitions || labelKeys.index === null) {
    labelKeys.definitions = definitions;
    labelKeys.index = new KeyIndex(definitions);
  }
  return labelKeys.index;
}

/** Label lookups of one inline pass over `src`. */
export class LabelLookup {
  private index: KeyIndex | null = null;
  /** Whether `definitions` is empty (read once: the set does not change while it is used). */
  private readonly none: boolean;
  /** The last span `names` answered, and its answer. */
  private lastStart = -1;
  private lastEnd = -1;
  private lastAnswer = false;

  constructor(
    private readonly src: string,
    private readonly definitions: ReadonlySet<string>,
  ) {
    this.none = definitions.size === 0;
  }

  /**
   * Whether the span [start, end) between an opener and the `]` at `end` names a definition.
   * Preconditions: src[start - 1] is the opener's `[`, src[end] is a bare `]`, and calls come
   * in increasing `end` (for the bound only).
   */
  defined(start: number, end: number): boolean {
    if (this.none) return false;
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
    return !this.none && this.names(start, end);
  }

  /** definitions.has(normalizeLabel(src.slice(start, end))), remembering the last answer. */
  private names(start: number, end: number): boolean {
    if (start === this.lastStart ? end === this.lastEnd : end - start === this.lastEnd - this.lastStart && this.sameAsLast(start, end)) {
      return this.lastAnswer;
    }
    const answer = this.lookup(start, end);
    this.lastStart = start;
    this.lastEnd = end;
    this.lastAnswer = answer;
    return answer;
  }

  /** Whether [start, end), as long as the last span answered and elsewhere, holds the same units (a label used again). */
  private sameAsLast(start: number, end: number): boolean {
    const last = this.lastStart;
    const src = this.src;
    for (let k = 0; k < end - start; k++) if (src.charCodeAt(start + k) !== src.charCodeAt(last + k)) return false;
    return true;
  }

  /** definitions.has(normalizeLabel(src.slice(start, end))), without a string unless a surrogate or a shared hash. */
  private lookup(start: number, end: number): boolean {
    const src = this.src;
    let hash = HASH_START;
    let length = 0;
    let pending = false;
    for (let k = start; k < end; k++) {
      let c = src.charCodeAt(k);
      if (c <= SPACE && isSpaceOrEol(c)) {
        pending = length > 0;
        continue;
      }
      if (pending) {
        hash = mix(hash, SPACE);
        length++;
        pending = false;
      }
      c = foldUnit(c);
      if (c === SURROGATE) return this.definitions.has(normalizeLabel(src.slice(start, end)));
      if (c === EXPANDS) {
        const units = caseFolds.expansions.get(src.charCodeAt(k)) as string;
        for (let u = 0; u < units.length; u++) hash = mix(hash, units.charCodeAt(u));
        length += units.length;
        continue;
      }
      hash = mix(hash, c);
      length++;
    }
    const index = (this.index ??= keyIndex(this.definitions));
    if (!index.usable) return this.definitions.has(normalizeLabel(src.slice(start, end)));
    const { mask, slotHash, slotKey } = index;
    let slot = home(hash, mask);
    for (let probe = 0; probe <= MAX_PROBE; probe++) {
      const entry = slotKey[slot] as number;
      if (entry === 0) return false;
      if (slotHash[slot] === hash) {
        if (entry === SHARED) return this.definitions.has(normalizeLabel(src.slice(start, end)));
        const key = index.keys[entry - 1] as string;
        return key.length === length && this.spells(key, start, end);
      }
      slot = (slot + 1) & mask;
    }
    return false;
  }

  /** Whether the surrogate-free span [start, end), normalized, reads `key` (same length). */
  private spells(key: string, start: number, end: number): boolean {
    const src = this.src;
    let at = 0;
    let pending = false;
    for (let k = start; k < end; k++) {
      let c = src.charCodeAt(k);
      if (c <= SPACE && isSpaceOrEol(c)) {
        pending = at > 0;
        continue;
      }
      if (pending) {
        if (key.charCodeAt(at++) !== SPACE) return false;
        pending = false;
      }
      c = foldUnit(c);
      if (c === EXPANDS) {
        const units = caseFolds.expansions.get(src.charCodeAt(k)) as string;
        for (let u = 0; u < units.length; u++) if (key.charCodeAt(at++) !== units.charCodeAt(u)) return false;
        continue;
      }
      if (key.charCodeAt(at++) !== c) return false;
    }
    return true;
  }
}
