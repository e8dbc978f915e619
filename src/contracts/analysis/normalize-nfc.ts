/**
 * NFC that stays linear: `normalizeNfc(text) === text.normalize('NFC')` for every string.
 *
 * The engine's NFC is quadratic on a long run of combining marks that is out of canonical
 * order (it inserts each mark into place one by one), and linear when the run is already in
 * order. So every stretch of 32+ code units at or above U+0300 (the first combining mark; no
 * code point below it has a non-zero combining class or decomposes to start with one) is
 * rewritten to a canonically equivalent form first: each code point is replaced by its
 * canonical decomposition and every run of non-starters is stably sorted by combining class
 * (counting sort). The result is canonically equivalent to the input, so its NFC is the
 * input's NFC, and the engine then normalizes it in one linear pass.
 *
 * Combining classes are never tabulated here: they are learned from the engine itself, one
 * code point at a time (cached for the call, forgotten when it returns), by asking whether two
 * marks swap under NFD. Classes are kept as an ordered list of representatives, so a new mark
 * is placed by binary search.
 *
 * Linear bound: one scan; per code point in a rewritten stretch one Map lookup (plus engine
 * calls on 2-code-point strings, once per distinct code point); counting sort per run.
 */

const FIRST_COMBINING = 0x300;
const MIN_STRETCH = 32;
const LONG_STRETCH = /[\u0300-\uffff]{32}/;
/** COMBINING GREEK YPOGEGRAMMENI (class 240, the highest) and COMBINING TILDE OVERLAY (class 1). */
const HIGHEST_CLASS_MARK = '\u0345';
const LOWEST_CLASS_MARK = '\u0334';

interface CombiningClass {
  /** Permanent (creation order). */
  id: number;
  representative: string;
  /** Position in canonical order among the classes learned so far (changes as classes are learned). */
  rank: number;
}

interface CodePointInfo {
  /** The canonical decomposition, split into code points. */
  parts: string[];
  /** Per part: null for a starter, else its combining class. */
  classes: (CombiningClass | null)[];
}

const classes: CombiningClass[] = [];
/** rankById[id] = classes[...].rank, kept in step with `classes`. */
const rankById: number[] = [];
const partClass = new Map<string, CombiningClass | null>();
const infoCache = new Map<number, CodePointInfo>();

/** Whether any of the learned state above (or bmpKind below) holds an entry. */
let learned = false;

/**
 * Forgets everything learned: nothing derived from one text (not even which code points it
 * used) outlives the call that normalized it.
 */
function forget(): void {
  if (!learned) return;
  classes.length = 0;
  rankById.length = 0;
  partClass.clear();
  infoCache.clear();
  bmpKind.fill(0);
  bmpClassId.fill(0);
  learned = false;
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
    learned = true;
    const parts = Array.from(String.fromCodePoint(codePoint).normalize('NFD'));
    info = { parts, classes: parts.map(classOf) };
    infoCache.set(codePoint, info);
  }
  return info;
}

/**
 * Per BMP code unit: 0 unknown; 1 its decomposition holds no non-starter (copied as is);
 * 2 a non-starter that NFD keeps as is; 3 other (decomposed before sorting; also surrogates).
 */
const bmpKind = new Uint8Array(0x10000);
/** For kind 2: the id of its class. */
const bmpClassId = new Uint16Array(0x10000);

function kindOf(unit: number): number {
  let kind = bmpKind[unit] as number;
  if (kind === 0) {
    kind = 3;
    if (unit < 0xd800 || unit > 0xdfff) {
      const info = infoOf(unit);
      if (info.classes.every((c) => c === null)) kind = 1;
      else if (info.parts.length === 1 && info.parts[0] === String.fromCharCode(unit)) {
        kind = 2;
        bmpClassId[unit] = (info.classes[0] as CombiningClass).id;
      }
    }
    bmpKind[unit] = kind;
  }
  return kind;
}

/**
 * Decomposes text[start, end) code point by code point and stably sorts each run of
 * non-starters by class. Output code units go to `units`; `ids` holds each non-starter
 * unit's class id (an astral mark's two units share one id and stay adjacent).
 */
function reorderStretch(text: string, start: number, end: number): string {
  let units = new Uint16Array((end - start) * 2 + 16);
  let ids = new Uint16Array(units.length);
  let length = 0;
  let runStart = 0;
  const ensure = (extra: number) => {
    if (length + extra <= units.length) return;
    const grownUnits = new Uint16Array((length + extra) * 2);
    grownUnits.set(units);
    units = grownUnits;
    const grownIds = new Uint16Array(grownUnits.length);
    grownIds.set(ids);
    ids = grownIds;
  };
  const flush = () => {
    if (length - runStart > 1) {
      const counts = new Int32Array(classes.length + 2);
      for (let i = runStart; i < length; i++) counts[(rankById[ids[i] as number] as number) + 1]++;
      for (let r = 1; r < counts.length; r++) counts[r] = (counts[r] as number) + (counts[r - 1] as number);
      const sortedUnits = new Uint16Array(length - runStart);
      const sortedIds = new Uint16Array(length - runStart);
      for (let i = runStart; i < length; i++) {
        const rank = rankById[ids[i] as number] as number;
        const slot = counts[rank] as number;
        sortedUnits[slot] = units[i] as number;
        sortedIds[slot] = ids[i] as number;
        counts[rank] = slot + 1;
      }
      units.set(sortedUnits, runStart);
      ids.set(sortedIds, runStart);
    }
    runStart = length;
  };
  let at = start;
  while (at < end) {
    const unit = text.charCodeAt(at);
    const kind = kindOf(unit);
    if (kind === 1) {
      // No non-starter in its decomposition: canonically it is a starter sequence; keep it whole.
      flush();
      ensure(1);
      units[length++] = unit;
      runStart = length;
      at++;
      continue;
    }
    if (kind === 2) {
      ensure(1);
      ids[length] = bmpClassId[unit] as number;
      units[length++] = unit;
      at++;
      continue;
    }
    const codePoint = text.codePointAt(at) as number;
    at += codePoint > 0xffff ? 2 : 1;
    const info = infoOf(codePoint);
    for (let i = 0; i < info.parts.length; i++) {
      const c = info.classes[i] as CombiningClass | null;
      const part = info.parts[i] as string;
      if (c === null) flush();
      ensure(part.length);
      for (let k = 0; k < part.length; k++) {
        if (c !== null) ids[length] = c.id;
        units[length++] = part.charCodeAt(k);
      }
      if (c === null) runStart = length;
    }
  }
  flush();
  const chunks: string[] = [];
  for (let i = 0; i < length; i += 8192) chunks.push(String.fromCharCode.apply(null, units.subarray(i, Math.min(length, i + 8192)) as unknown as number[]));
  return chunks.join('');
}

/** Identical to `text.normalize('NFC')`, in time linear in the text's length. */
export function normalizeNfc(text: string): string {
  // No 32 consecutive units at or above U+0300: no long mark run is possible; the engine is linear here.
  if (!LONG_STRETCH.test(text)) return text.normalize('NFC');
  try {
    return normalizeWithLearning(text);
  } finally {
    forget();
  }
}

function normalizeWithLearning(text: string): string {
  const n = text.length;
  let pieces: string[] | null = null;
  let copied = 0;
  let at = 0;
  while (at < n) {
    const unit = text.charCodeAt(at);
    if (unit < FIRST_COMBINING || kindOf(unit) === 1) {
      at++;
      continue;
    }
    // A stretch of units that are, or may decompose to, non-starters.
    let end = at + 1;
    for (;;) {
      if (end >= n) break;
      const next = text.charCodeAt(end);
      if (next < FIRST_COMBINING || kindOf(next) === 1) break;
      end++;
    }
    if (end - at >= MIN_STRETCH) {
      // Include the code point before the stretch: its decomposition may end in a non-starter.
      let start = at > copied ? at - 1 : at;
      if (start > copied && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) start--;
      pieces ??= [];
      pieces.push(text.slice(copied, start), reorderStretch(text, start, end));
      copied = end;
    }
    at = end;
  }
  if (pieces === null) return text.normalize('NFC');
  pieces.push(text.slice(copied));
  return pieces.join('').normalize('NFC');
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
