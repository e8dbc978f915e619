/**
 * Every buffer and cache the analysis keeps in the isolate from one call to the next, declared
 * here and nowhere else, and the one reset that clears what a note left in them:
 * analyzeNoteColumns (analyze.ts) runs resetNoteScratch after each note, whether it returns or
 * throws.
 * - record buffers of the inline pass (inline.ts): a pass takes them whole and gives them back
 *   zeroed over what it wrote, at most RECORD_BUDGET ints in all (a pass that throws gives
 *   nothing back, and the next one starts from fresh buffers);
 * - the ASCII decoding bytes of utf16-units.ts, up to ASCII_SCRATCH_BYTES;
 * - the label case folds learnt by inline-labels.ts, and the key index of the note's definitions;
 * - the combining classes normalize-nfc.ts learns from the engine.
 *
 * Invariant: after resetNoteScratch nothing here holds anything derived from a note: the kept
 * buffers and tables hold only zeros, the caches are empty (noteScratchLeftovers checks it).
 * Between the calls of one note the caches keep what they learnt: every entry is a pure fact
 * about a char or about that note's definitions, so sharing it changes no answer.
 * Linear bound: the reset costs O(what the note wrote): the learnt units, the written prefix of
 * the ASCII bytes, and two fixed tables only when the note taught NFC anything.
 */
import type { KeyIndex } from './inline-labels';
import type { CodePointInfo, CombiningClass } from './normalize-nfc';

// ---------------------------------------------------------------- inline pass records

/** The record buffers of one pass, by stream. */
export interface RecordBuffers {
  items: Int32Array<ArrayBuffer>;
  delimiters: Int32Array<ArrayBuffer>;
  brackets: Int32Array<ArrayBuffer>;
  /** Open brackets (ids), never more entries than brackets were recorded. */
  stack: Int32Array<ArrayBuffer>;
}

/**
 * Record buffers kept from one pass to the next, so a pass writes into memory that is already
 * mapped (on emphasis-dense notes, fresh pages cost about as much as the pass's own work).
 * Between passes they hold only zeros and at most RECORD_BUDGET ints (8 MiB) in all.
 */
const RECORD_BUDGET = 1 << 21;
let keptRecords: RecordBuffers | null = null;

/** The kept buffers, or fresh small ones; the caller owns them until it gives them back. */
export function takeRecordBuffers(): RecordBuffers {
  const taken = keptRecords;
  keptRecords = null;
  return taken ?? freshRecordBuffers({});
}

/** `kept`, with a fresh small buffer for every stream it lacks. */
function freshRecordBuffers(kept: Partial<RecordBuffers>): RecordBuffers {
  return {
    items: kept.items ?? new Int32Array(64),
    delimiters: kept.delimiters ?? new Int32Array(96),
    brackets: kept.brackets ?? new Int32Array(32),
    stack: kept.stack ?? new Int32Array(16),
  };
}

/**
 * Gives a pass's buffers back, with the ints it wrote at the start of each: each is zeroed over
 * that prefix and kept while the kept total stays within the budget. Within it (every pass but
 * one that grew a stream past it) the same buffers are kept as they are, with no allocation.
 * Over it, a buffer over the budget left is dropped for a fresh small one: the stream this pass
 * wrote most (with the stack, when that is the brackets) claims the budget first, so a large
 * buffer that an earlier, different source left in another stream cannot crowd out the one a
 * later pass on this kind of source needs again; the rest claim it in a fixed order.
 */
export function giveBackRecordBuffers(buffers: RecordBuffers, items: number, delimiters: number, brackets: number, stack: number): void {
  if (buffers.items.length + buffers.delimiters.length + buffers.brackets.length + buffers.stack.length <= RECORD_BUDGET) {
    zeroPrefix(buffers.items, items);
    zeroPrefix(buffers.delimiters, delimiters);
    zeroPrefix(buffers.brackets, brackets);
    zeroPrefix(buffers.stack, stack);
    keptRecords = buffers;
    return;
  }
  const used: Record<keyof RecordBuffers, number> = { items, delimiters, brackets, stack };
  const claims: (keyof RecordBuffers)[] =
    items >= delimiters && items >= brackets
      ? ['items', 'delimiters', 'brackets', 'stack']
      : brackets >= delimiters
        ? ['brackets', 'stack', 'delimiters', 'items']
        : ['delimiters', 'items', 'brackets', 'stack'];
  const kept: Partial<RecordBuffers> = {};
  let room = RECORD_BUDGET;
  for (const name of claims) {
    const buffer = buffers[name];
    if (buffer.length > room) continue;
    room -= buffer.length;
    zeroPrefix(buffer, used[name]);
    kept[name] = buffer;
  }
  keptRecords = freshRecordBuffers(kept);
}

/** Below this many ints a loop zeros a prefix faster than a call to fill (most passes write a few records). */
const FILL_FROM = 64;

/** Zeros `buffer[0, used)`. */
function zeroPrefix(buffer: Int32Array, used: number): void {
  if (used >= FILL_FROM) buffer.fill(0, 0, used);
  else for (let at = 0; at < used; at++) buffer[at] = 0;
}

// ---------------------------------------------------------------- ASCII decoding bytes

/** The kept ASCII bytes are at most this long; a longer request gets a buffer of its own. */
const ASCII_SCRATCH_BYTES = 1 << 20;
let asciiBytes = new Uint8Array(0);
/** The kept bytes at or past this index are zero. */
let asciiWritten = 0;

/**
 * A byte buffer of at least `length` bytes for an ASCII decode that writes bytes [0, length): the
 * kept one (zeroed by the reset), or a fresh one past its limit.
 */
export function asciiBuffer(length: number): Uint8Array {
  if (length > ASCII_SCRATCH_BYTES) return new Uint8Array(length);
  if (asciiBytes.length < length) {
    asciiBytes.fill(0, 0, asciiWritten);
    asciiBytes = new Uint8Array(Math.min(ASCII_SCRATCH_BYTES, Math.max(length, 2 * asciiBytes.length, 4096)));
    asciiWritten = 0;
  }
  if (length > asciiWritten) asciiWritten = length;
  return asciiBytes;
}

// ---------------------------------------------------------------- label case folds and keys

/**
 * Case folds of label code units (inline-labels.ts): `table[c]` is what c folds to (0 = not
 * asked yet; the table exists once a non-ASCII label unit is read), `expansions` the folds longer
 * than one unit, `learnt` every unit set in the table since the last reset.
 */
export const caseFolds: { table: Uint16Array | null; readonly expansions: Map<number, string>; readonly learnt: number[] } = {
  table: null,
  expansions: new Map(),
  learnt: [],
};

/** The key index of the definitions set the note's passes share (inline-labels.ts). */
export const labelKeys: { definitions: ReadonlySet<string> | null; index: KeyIndex | null } = { definitions: null, index: null };

// ---------------------------------------------------------------- NFC learning

/**
 * What normalize-nfc.ts learns from the engine: the combining classes seen (in canonical order,
 * with each one's rank by id), each code point's decomposition, and per BMP unit its kind (0 =
 * not learnt yet) and, for a mark NFD keeps as is, its class id. `learned` says whether any of
 * it holds an entry.
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

// ---------------------------------------------------------------- the reset

/** Clears everything a note left in the kept state (records are zeroed as each pass gives them back). */
export function resetNoteScratch(): void {
  asciiBytes.fill(0, 0, asciiWritten);
  asciiWritten = 0;
  const { table, expansions, learnt } = caseFolds;
  if (table !== null) for (const c of learnt) table[c] = 0;
  learnt.length = 0;
  expansions.clear();
  labelKeys.definitions = null;
  labelKeys.index = null;
  if (nfcLearning.learned) {
    nfcLearning.classes.length = 0;
    nfcLearning.rankById.length = 0;
    nfcLearning.partClass.clear();
    nfcLearning.infoCache.clear();
    nfcLearning.bmpKind.fill(0);
    nfcLearning.bmpClassId.fill(0);
    nfcLearning.learned = false;
  }
}

/** The parts of the kept state that hold anything (none right after resetNoteScratch); read by tests. */
export function noteScratchLeftovers(): string[] {
  const zero = (array: ArrayLike<number>): boolean => Array.prototype.every.call(array, (value: number) => value === 0);
  const leftovers: string[] = [];
  if (keptRecords !== null) {
    for (const [name, buffer] of Object.entries(keptRecords)) if (!zero(buffer)) leftovers.push(`record buffer ${name}`);
  }
  if (!zero(asciiBytes)) leftovers.push('ASCII bytes');
  if (caseFolds.learnt.length > 0 || caseFolds.expansions.size > 0 || (caseFolds.table !== null && !zero(caseFolds.table))) leftovers.push('case folds');
  if (labelKeys.definitions !== null || labelKeys.index !== null) leftovers.push('label keys');
  const nfc = nfcLearning;
  if (nfc.learned || nfc.classes.length > 0 || nfc.rankById.length > 0 || nfc.partClass.size > 0 || nfc.infoCache.size > 0 || !zero(nfc.bmpKind) || !zero(nfc.bmpClassId)) {
    leftovers.push('NFC learning');
  }
  return leftovers;
}
