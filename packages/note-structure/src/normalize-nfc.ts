/**
 * NFC that stays linear: `normalizeNfc(text) === text.normalize('NFC')` for every string.
 *
 * The engine's NFC is quadratic on a long run of combining marks that is out of canonical
 * order (it inserts each mark into place one by one), and even in order costs far more per
 * mark than per plain char. So every stretch of 32+ code units at or above U+0300 (the first
 * combining mark; no code point below it has a non-zero combining class or decomposes to
 * start with one) is rewritten to a canonically equivalent form first: each code point is
 * replaced by its canonical decomposition and every run of non-starters is stably sorted by
 * combining class (counting sort). Of each class group in a sorted run the engine then sees
 * only the first KEEP_UNITS units; the rest is spliced back after the group's marks that
 * stayed uncomposed (sound by the blocking rule, see emitStretch; checked per group, and
 * the call starts over without cuts if the check fails). Text with no unit at or above U+0300
 * is NFC as it is.
 *
 * Combining classes are never tabulated here: they are learned from the engine itself, one
 * code point at a time (kept in nfcLearning for the note, forgotten after it), by asking whether two
 * marks swap under NFD. Classes are kept as an ordered list of representatives, so a new mark
 * is placed by binary search.
 *
 * Linear bound: one scan; per code point in a rewritten stretch one table or Map lookup (plus
 * engine calls on 2-code-point strings, once per distinct code point); counting sort per run;
 * the engine sees each char outside cut groups once, and at most KEEP_UNITS + 1 units per
 * cut group; the walk back over each engine answer is bounded by the units it was given.
 */

import * as chars from './chars';
import * as growth from './growth';
import * as utf16 from './utf16-units';
import type { UnitsKind } from './utf16-units';

// Imported values are bound once, at load (see chars.ts).
const {
  FIRST_COMBINING, HIGHEST_CLASS_MARK_CODE, LOWEST_CLASS_MARK_CODE, isHighSurrogate, isLowSurrogate, isSurrogate,
} = chars;
const { grown } = growth;
const { unitsToString } = utf16;

const MIN_STRETCH = 32;
const ABOVE_LATIN = /[^\0-\u02ff]/;
/** 32 units at or above U+0300 (spelled so: V8 runs `[...]{32}` about 4x slower on two-byte text). */
const LONG_STRETCH = /[\u0300-\uffff][\u0300-\uffff]{31}/;
const HIGHEST_CLASS_MARK = String.fromCharCode(HIGHEST_CLASS_MARK_CODE);
const LOWEST_CLASS_MARK = String.fromCharCode(LOWEST_CLASS_MARK_CODE);

export interface CombiningClass {
  /** Permanent (creation order). */
  id: number;
  representative: string;
  /** Position in canonical order among the classes learned so far (changes as classes are learned). */
  rank: number;
}

export interface CodePointInfo {
  /** The canonical decomposition, split into code points. */
  parts: string[];
  /** Per part: null for a starter, else its combining class. */
  classes: (CombiningClass | null)[];
}

/** What the engine says a BMP code unit is (bmpKind); Unknown until learnt. */
const enum UnitKind {
  Unknown = 0,
  /** Its decomposition holds no non-starter: copied as is. */
  StartersOnly = 1,
  /** A non-starter that NFD keeps as is: its class id is in bmpClassId. */
  Mark = 2,
  /** Anything else, surrogates included: decomposed before sorting. */
  Decomposed = 3,
}

/**
 * What is learnt from the engine, kept for the note and forgotten after it (resetNfcLearning,
 * which scratch.ts runs after each note): the classes in canonical order; rankById[id] =
 * classes[...].rank, kept in step with `classes`; the class of each decomposition part and the
 * decomposition of each code point; per BMP code unit its UnitKind and, for a Mark, the id of
 * its class. `learned` says whether any of it holds an entry.
 */
export const nfcLearning: {
  readonly classes: CombiningClass[];
  readonly rankById: number[];
  readonly partClass: Map<string, CombiningClass | null>;
  readonly infoCache: Map<number, CodePointInfo>;
  readonly bmpKind: Uint8Array;
  readonly bmpClassId: Uint16Array;
  learned: boolean;
} = {
  classes: [],
  rankById: [],
  partClass: new Map(),
  infoCache: new Map(),
  bmpKind: new Uint8Array(0x10000),
  bmpClassId: new Uint16Array(0x10000),
  learned: false,
};
const { classes, rankById, partClass, infoCache, bmpKind, bmpClassId } = nfcLearning;

/** Forgets what the note taught (O(1) when it taught nothing; else two fixed tables are cleared). */
export function resetNfcLearning(): void {
  if (!nfcLearning.learned) return;
  classes.length = 0;
  rankById.length = 0;
  partClass.clear();
  infoCache.clear();
  bmpKind.fill(0);
  bmpClassId.fill(0);
  nfcLearning.learned = false;
}

/** Whether NFD puts b before a in "a b" (both single, fully decomposed code points). */
function swaps(a: string, b: string): boolean {
  return (a + b).normalize('NFD') === b + a;
}

/** The combining class of one fully decomposed code point (null for a starter), learned from the engine. */
function classOf(part: string): CombiningClass | null {
  const known = partClass.get(part);
  if (known !== undefined) return known;
  let found: CombiningClass | null = null;
  const nonStarter = part === HIGHEST_CLASS_MARK || swaps(HIGHEST_CLASS_MARK, part) || swaps(part, LOWEST_CLASS_MARK);
  if (nonStarter) {
    let low = 0;
    let high = classes.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      const other = (classes[mid] as CombiningClass).representative;
      if (swaps(part, other)) low = mid + 1;
      else if (swaps(other, part)) high = mid;
      else {
        found = classes[mid] as CombiningClass;
        break;
      }
    }
    if (found === null) {
      found = { id: rankById.length, representative: part, rank: 0 };
      rankById.push(0);
      classes.splice(low, 0, found);
      for (let i = 0; i < classes.length; i++) {
        const c = classes[i] as CombiningClass;
        c.rank = i + 1;
        rankById[c.id] = i + 1;
      }
    }
  }
  partClass.set(part, found);
  return found;
}

function infoOf(codePoint: number): CodePointInfo {
  let info = infoCache.get(codePoint);
  if (info === undefined) {
    nfcLearning.learned = true;
    const parts = Array.from(String.fromCodePoint(codePoint).normalize('NFD'));
    info = { parts, classes: parts.map(classOf) };
    infoCache.set(codePoint, info);
  }
  return info;
}

function kindOf(unit: number): UnitKind {
  let kind = bmpKind[unit] as UnitKind;
  if (kind === UnitKind.Unknown) {
    kind = UnitKind.Decomposed;
    if (!isSurrogate(unit)) {
      const info = infoOf(unit);
      if (info.classes.every((c) => c === null)) kind = UnitKind.StartersOnly;
      else if (info.parts.length === 1 && info.parts[0] === String.fromCharCode(unit)) {
        kind = UnitKind.Mark;
        bmpClassId[unit] = (info.classes[0] as CombiningClass).id;
      }
    }
    nfcLearning.learned = true;
    bmpKind[unit] = kind;
  }
  return kind;
}

/** The class id of the code point ending at text[at - 1] (-1 for a starter or a code point never learned). */
function classIdBefore(text: string, at: number): number {
  const low = text.charCodeAt(at - 1);
  const start = at >= 2 && isLowSurrogate(low) && isHighSurrogate(text.charCodeAt(at - 2)) ? at - 2 : at - 1;
  const c = partClass.get(text.slice(start, at));
  return c === undefined || c === null ? -1 : c.id;
}

/** The numbers of a class group in CutRuns, in order, then the group's length. */
const enum Group {
  Id,
  KeepEnd,
  End,
  Stride,
}

/**
 * The runs of a rewritten stretch that hold a class group longer than the keep limit, each with
 * every class group it holds, in canonical (rising class) order: the group's class id, keepEnd and
 * end. The engine sees a group's units up to keepEnd; units[keepEnd, end) is the part of a long
 * group it never sees (keepEnd = end for the others); a group starts where the one before it ends.
 * One flat list, read and written only here: per run its group count, then Group.Stride numbers per
 * group. A run is a handle (its index in the list); runs go from 0 to `end`, `next` steps.
 */
class CutRuns {
  private readonly list: number[] = [];

  get end(): number {
    return this.list.length;
  }

  /** The run after `run`. */
  next(run: number): number {
    return run + 1 + Group.Stride * this.groupCount(run);
  }

  groupCount(run: number): number {
    return this.list[run] as number;
  }

  /** Group g of `run`: a handle for groupId, keepEnd and groupEnd. */
  group(run: number, g: number): number {
    return run + 1 + Group.Stride * g;
  }

  groupId(group: number): number {
    return this.list[group + Group.Id] as number;
  }

  keepEnd(group: number): number {
    return this.list[group + Group.KeepEnd] as number;
  }

  groupEnd(group: number): number {
    return this.list[group + Group.End] as number;
  }

  /** Starts a run with no group; returns it. */
  openRun(): number {
    this.list.push(0);
    return this.list.length - 1;
  }

  /** Appends a group to `run`, the last run opened. */
  addGroup(run: number, id: number, keepEnd: number, end: number): void {
    this.list.push(id, keepEnd, end);
    this.list[run] = (this.list[run] as number) + 1;
  }

  /** Takes back `run`, the last run opened, with its groups. */
  dropRun(run: number): void {
    this.list.length = run;
  }
}

/**
 * A stretch rewritten: its canonical decomposition with every run of non-starters stably
 * sorted by class, in units[0, length), and the runs whose long class groups the engine is
 * spared (`cuts`).
 */
interface Stretch {
  /** Where the stretch ends in the text (the first unit below U+0300 or StartersOnly). */
  end: number;
  units: Uint16Array;
  length: number;
  cuts: CutRuns;
  /** Whether units[] holds a lone surrogate (copied from the text as a starter). */
  loneSurrogate: boolean;
}

/** Runs this long or shorter are sorted in place by insertion; longer ones by counting. */
const SHORT_RUN = 16;

/**
 * Decomposes text from `start` up to the stretch's end (the first unit past `start` below
 * U+0300 or StartersOnly) code point by code point, and stably sorts each run of non-starters by
 * class. A stable sort keeps an astral mark's two units (same class) adjacent.
 */
function reorderStretch(text: string, start: number, keepUnits: number): Stretch {
  const writer = new StretchWriter(Math.min(text.length - start, 1 << 16) * 2 + 16, keepUnits, text.length - start);
  const n = text.length;
  let at = start;
  while (at < n) {
    const unit = text.charCodeAt(at);
    let kind = bmpKind[unit] as UnitKind;
    if (kind === UnitKind.Unknown) kind = kindOf(unit);
    if (kind === UnitKind.Mark) {
      at = writer.pushMarks(text, at);
      continue;
    }
    if (at > start && (unit < FIRST_COMBINING || kind === UnitKind.StartersOnly)) break;
    if (kind === UnitKind.StartersOnly) {
      // No non-starter in its decomposition: canonically it is a starter sequence; keep it whole.
      writer.pushStarter(unit);
      at++;
      continue;
    }
    const codePoint = text.codePointAt(at) as number;
    at += codePoint > 0xffff ? 2 : 1;
    if (isSurrogate(codePoint)) writer.loneSurrogate = true;
    const info = infoOf(codePoint);
    for (let i = 0; i < info.parts.length; i++) {
      const c = info.classes[i] as CombiningClass | null;
      const part = info.parts[i] as string;
      if (c === null) {
        writer.pushStarter(part.charCodeAt(0));
        if (part.length === 2) writer.pushStarterUnit(part.charCodeAt(1));
      } else for (let k = 0; k < part.length; k++) writer.pushMark(part.charCodeAt(k), c.id);
    }
  }
  writer.flush();
  return { end: at, units: writer.units, length: writer.length, cuts: writer.cuts, loneSurrogate: writer.loneSurrogate };
}

/** Class ids are below this: one per distinct combining class, and classes are bytes. */
const MAX_CLASSES = 256;

/**
 * The growing output of reorderStretch; runs of non-starters are sorted as they end.
 * A Mark unit has class id bmpClassId[unit]; ids[] is written only for the other
 * mark units (decomposition parts, astral marks), so idAt reads whichever applies.
 */
class StretchWriter {
  units: Uint16Array;
  /** Per mark unit that is not a Mark (and per unit of a sorted short run): its class id. */
  ids: Uint16Array;
  /** Per class id: its units in the current run. Zero between runs. */
  readonly counts = new Int32Array(MAX_CLASSES);
  length = 0;
  runStart = 0;
  /** Whether units[runStart, length) is in canonical order (relative ranks never change). */
  ordered = true;
  /** The class id of the run's last mark (-1: none yet). */
  lastId = -1;
  loneSurrogate = false;
  readonly cuts = new CutRuns();

  constructor(
    capacity: number,
    private readonly keepUnits: number,
    /** Units from the stretch's start to the end of the text. */
    private readonly textLeft: number,
  ) {
    this.units = new Uint16Array(capacity);
    this.ids = new Uint16Array(capacity);
  }

  private idAt(i: number): number {
    const unit = this.units[i] as number;
    return bmpKind[unit] === UnitKind.Mark ? (bmpClassId[unit] as number) : (this.ids[i] as number);
  }

  pushMark(unit: number, id: number): void {
    const length = this.length;
    if (length === this.units.length) this.grow();
    if (this.ordered && id !== this.lastId) {
      if (this.lastId >= 0 && (rankById[this.lastId] as number) > (rankById[id] as number)) this.ordered = false;
      this.lastId = id;
    }
    this.counts[id]++;
    this.ids[length] = id;
    this.units[length] = unit;
    this.length = length + 1;
  }

  /** Appends text[at] and the Mark units right after it (text[at] is one); returns where they stop. */
  pushMarks(text: string, at: number): number {
    const { counts } = this;
    const n = text.length;
    let units = this.units;
    let length = this.length;
    let ordered = this.ordered;
    let lastId = this.lastId;
    while (at < n) {
      const unit = text.charCodeAt(at);
      if (bmpKind[unit] !== UnitKind.Mark) break;
      if (length === units.length) {
        this.length = length;
        this.grow();
        units = this.units;
      }
      const id = bmpClassId[unit] as number;
      if (ordered && id !== lastId) {
        if (lastId >= 0 && (rankById[lastId] as number) > (rankById[id] as number)) ordered = false;
        lastId = id;
      }
      counts[id]++;
      units[length] = unit;
      length++;
      at++;
    }
    this.length = length;
    this.ordered = ordered;
    this.lastId = lastId;
    return at;
  }

  /** Ends the current run and appends a starter unit. */
  pushStarter(unit: number): void {
    this.flush();
    this.pushStarterUnit(unit);
  }

  pushStarterUnit(unit: number): void {
    if (this.length === this.units.length) this.grow();
    this.units[this.length++] = unit;
    this.runStart = this.length;
  }

  /**
   * Doubles the buffers, or once the stretch is long (its end is unknown until reached) sizes
   * them for all the text from the stretch's start on, so a long stretch is copied about once.
   */
  private grow(): void {
    const size = this.units.length;
    this.units = grown(this.units, size >= 1 << 16 ? Math.max(size * 2, this.textLeft + 64) : size * 2);
    this.ids = grown(this.ids, this.units.length);
  }

  /** Ends the run of non-starters units[runStart, length): sorts it, records its long groups. */
  flush(): void {
    const { units, ids, runStart, length, keepUnits, counts } = this;
    const runLength = length - runStart;
    if (runLength > 0) {
      const short = runLength <= SHORT_RUN;
      if (short) for (let i = runStart; i < length; i++) ids[i] = this.idAt(i);
      if (!this.ordered && short) {
        for (let i = runStart + 1; i < length; i++) {
          const unit = units[i] as number;
          const id = ids[i] as number;
          const rank = rankById[id] as number;
          let j = i;
          for (; j > runStart && (rankById[ids[j - 1] as number] as number) > rank; j--) {
            units[j] = units[j - 1] as number;
            ids[j] = ids[j - 1] as number;
          }
          units[j] = unit;
          ids[j] = id;
        }
      } else if (!this.ordered) {
        // slots[id]: where the next unit of class id goes, classes taken in rank order.
        const slots = new Int32Array(MAX_CLASSES);
        let slot = 0;
        for (const c of classes) {
          slots[c.id] = slot;
          slot += counts[c.id] as number;
        }
        const sorted = new Uint16Array(runLength);
        for (let i = runStart; i < length; i++) {
          const unit = units[i] as number;
          const id = bmpKind[unit] === UnitKind.Mark ? (bmpClassId[unit] as number) : (ids[i] as number);
          sorted[slots[id] as number] = unit;
          slots[id] = (slots[id] as number) + 1;
        }
        units.set(sorted, runStart);
      }
      if (runLength > keepUnits) this.recordGroups();
      if (short) for (let i = runStart; i < length; i++) counts[ids[i] as number] = 0;
      else for (const c of classes) counts[c.id] = 0;
    }
    this.runStart = length;
    this.ordered = true;
    this.lastId = -1;
  }

  /** Appends the run and its groups to `cuts` if one of them is longer than keepUnits. */
  private recordGroups(): void {
    const { cuts, keepUnits, units, counts } = this;
    const run = cuts.openRun();
    let long = false;
    let groupStart = this.runStart;
    for (const c of classes) {
      const count = counts[c.id] as number;
      if (count === 0) continue;
      const groupEnd = groupStart + count;
      let keepEnd = groupEnd;
      if (count > keepUnits) {
        long = true;
        keepEnd = groupStart + keepUnits;
        // Never split an astral mark.
        if (isLowSurrogate(units[keepEnd] as number)) keepEnd++;
      }
      cuts.addGroup(run, c.id, keepEnd, groupEnd);
      groupStart = groupEnd;
    }
    if (!long) cuts.dropRun(run);
  }
}

/**
 * Appends the stretch to `pending` (text for one engine call), and for each run with a long
 * group ends that call at the run's end: the engine composes the run with each long group cut
 * to its first units, and the rest of the group is put back right after the group's marks
 * that did not compose. Returns false if some long group had no such mark (then the cut
 * proves nothing and the caller starts over without cuts).
 *
 * Why the cut is sound: in a canonically ordered run a mark is blocked from the starter
 * exactly when an earlier mark of its own class stayed uncomposed, so once one mark of a
 * group stays, every later mark of that group stays, in order, after it; and the engine's
 * NFC splits at a run's end, since the next unit is a starter that a non-starter blocks.
 */
function emitStretch(stretch: Stretch, pending: string[], out: string[]): boolean {
  const { units, cuts } = stretch;
  const kind: UnitsKind = stretch.loneSurrogate ? 'any' : 'well-formed';
  let position = 0;
  for (let run = 0; run < cuts.end; run = cuts.next(run)) {
    const count = cuts.groupCount(run);
    for (let g = 0; g < count; g++) {
      const group = cuts.group(run, g);
      pending.push(unitsToString(units, position, cuts.keepEnd(group), kind));
      position = cuts.groupEnd(group);
    }
    const composed = pending.join('').normalize('NFC');
    pending.length = 0;
    // Where each group's uncomposed marks end in `composed` (groups run in rising class order).
    // The walk stops at the run's starter: it is a starter part, or a composite, which is never
    // a fully decomposed part and so has no learned class.
    const ends: number[] = new Array(count);
    let at = composed.length;
    for (let g = count - 1; g >= 0; g--) {
      const group = cuts.group(run, g);
      ends[g] = at;
      const id = cuts.groupId(group);
      let kept = 0;
      while (at > 0 && classIdBefore(composed, at) === id) {
        at -= isLowSurrogate(composed.charCodeAt(at - 1)) && at >= 2 && isHighSurrogate(composed.charCodeAt(at - 2)) ? 2 : 1;
        kept++;
      }
      if (kept === 0 && cuts.keepEnd(group) < cuts.groupEnd(group)) return false;
    }
    let from = 0;
    for (let g = 0; g < count; g++) {
      const group = cuts.group(run, g);
      const keepEnd = cuts.keepEnd(group);
      const end = cuts.groupEnd(group);
      if (keepEnd === end) continue;
      out.push(composed.slice(from, ends[g]), unitsToString(units, keepEnd, end, 'well-formed'));
      from = ends[g] as number;
    }
    out.push(composed.slice(from));
  }
  pending.push(unitsToString(units, position, stretch.length, kind));
  return true;
}

/** Group units the engine sees per long group: 8 or more marks, past any chain of compositions in Unicode. */
const KEEP_UNITS = 16;

/** Identical to `text.normalize('NFC')`, in time linear in the text's length. */
export function normalizeNfc(text: string): string {
  // Every string of code units below U+0300 is NFC (test/normalize-nfc.test.ts checks every pair).
  if (!ABOVE_LATIN.test(text)) return text;
  // No 32 consecutive units at or above U+0300: no long mark run is possible; the engine is linear here.
  if (!LONG_STRETCH.test(text)) return text.normalize('NFC');
  return normalizeNfcKeeping(text, KEEP_UNITS);
}

/** normalizeNfc with the group cut at `keepUnits` units (exported so tests can cut short groups). */
export function normalizeNfcKeeping(text: string, keepUnits: number): string {
  return normalizeWithLearning(text, keepUnits) ?? normalizeWithLearning(text, Number.POSITIVE_INFINITY) ?? '';
}

/** null when a cut proved unsound (see emitStretch). */
function normalizeWithLearning(text: string, keepUnits: number): string | null {
  const n = text.length;
  const out: string[] = [];
  const pending: string[] = [];
  let rewritten = false;
  let copied = 0;
  let at = 0;
  while (at < n) {
    if (startsNoStretch(text.charCodeAt(at))) {
      at++;
      continue;
    }
    // A stretch of units that are, or may decompose to, non-starters: rewritten if 32+ long.
    let end = at + 1;
    while (end < n && end - at < MIN_STRETCH && !startsNoStretch(text.charCodeAt(end))) end++;
    if (end - at < MIN_STRETCH) {
      at = end;
      continue;
    }
    // Include the code point before the stretch: its decomposition may end in a non-starter.
    let start = at > copied ? at - 1 : at;
    if (start > copied && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) start--;
    pending.push(text.slice(copied, start));
    const stretch = reorderStretch(text, start, keepUnits);
    if (!emitStretch(stretch, pending, out)) return null;
    rewritten = true;
    copied = at = stretch.end;
  }
  if (!rewritten) return text.normalize('NFC');
  pending.push(text.slice(copied));
  out.push(pending.join('').normalize('NFC'));
  return out.length === 1 ? (out[0] as string) : out.join('');
}

/** Whether a unit ends a stretch (or starts none): below U+0300, or StartersOnly. */
function startsNoStretch(unit: number): boolean {
  if (unit < FIRST_COMBINING) return true;
  const kind = bmpKind[unit] as UnitKind;
  return (kind === UnitKind.Unknown ? kindOf(unit) : kind) === UnitKind.StartersOnly;
}
