/**
 * The inventory of the state the analysis keeps in the isolate from one call to the next, and the
 * one reset that clears what a note left in it: analyzeNoteColumns (analyze.ts) runs
 * resetNoteScratch after each note, whether it returns or throws. Each piece is declared by the
 * module that uses it, with its types, and is listed here:
 * - the inline pass's record buffers (inline-record-buffers.ts): zeroed as each pass gives them
 *   back, so the reset has nothing to do for them;
 * - the ASCII decoding bytes (utf16-units.ts, resetAsciiBytes);
 * - the label case folds and the key index of the note's definitions (inline-labels.ts,
 *   resetLabelState);
 * - the combining classes NFC learns from the engine (normalize-nfc.ts, resetNfcLearning).
 * The owners never import this module, so the analysis's imports hold no circle
 * (test/import-graph.test.ts).
 *
 * Invariant: after resetNoteScratch nothing kept holds anything derived from a note: the kept
 * buffers and tables hold only zeros, the caches are empty (noteScratchLeftovers checks it).
 * Between the calls of one note the caches keep what they learnt: every entry is a pure fact
 * about a char or about that note's definitions, so sharing it changes no answer.
 * Linear bound: the reset costs O(what the note wrote): the learnt units, the written prefix of
 * the ASCII bytes, and two fixed tables only when the note taught NFC anything.
 */
import * as recordBuffers from './inline-record-buffers';
import * as labels from './inline-labels';
import * as nfc from './normalize-nfc';
import * as utf16 from './utf16-units';

// Imported values are bound once, at load (see chars.ts).
const { keptRecordBuffers } = recordBuffers;
const { caseFolds, labelKeys, resetLabelState } = labels;
const { nfcLearning, resetNfcLearning } = nfc;
const { keptAsciiBytes, resetAsciiBytes } = utf16;

/** Clears everything a note left in the kept state (records are zeroed as each pass gives them back). */
export function resetNoteScratch(): void {
  resetAsciiBytes();
  resetLabelState();
  resetNfcLearning();
}

/** The parts of the kept state that hold anything (none right after resetNoteScratch); read by tests. */
export function noteScratchLeftovers(): string[] {
  const zero = (array: ArrayLike<number>): boolean => Array.prototype.every.call(array, (value: number) => value === 0);
  const leftovers: string[] = [];
  const records = keptRecordBuffers();
  if (records !== null) {
    for (const [name, buffer] of Object.entries(records)) if (!zero(buffer)) leftovers.push(`record buffer ${name}`);
  }
  if (!zero(keptAsciiBytes())) leftovers.push('ASCII bytes');
  if (caseFolds.learnt.length > 0 || caseFolds.expansions.size > 0 || (caseFolds.table !== null && !zero(caseFolds.table))) leftovers.push('case folds');
  if (labelKeys.definitions !== null || labelKeys.index !== null) leftovers.push('label keys');
  const learning = nfcLearning;
  if (
    learning.learned ||
    learning.classes.length > 0 ||
    learning.rankById.length > 0 ||
    learning.partClass.size > 0 ||
    learning.infoCache.size > 0 ||
    !zero(learning.bmpKind) ||
    !zero(learning.bmpClassId)
  ) {
    leftovers.push('NFC learning');
  }
  return leftovers;
}
