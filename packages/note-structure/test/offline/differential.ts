/**
 * Offline differential run: generated notes through the linear analysis
 * and the micromark oracle, the NoteStructure of each compared. Prints progress as it goes and ends with a
 * `mismatches: N` line; exits 1 when N > 0. Mismatching notes are written
 * (JSON strings) to the file given by --out, never printed.
 *
 *   npm run differential -- --count 500000 [--seed 1] [--out /tmp/mismatches.json] [--help]
 */
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  deepNestingNote, emphasisNote, grammarNote, inlineFloodNote, inlineNote, nestedNote, preprocessNote, rawNote,
} from '../support/arbitraries';
import { differential } from '../support/differential';
import { readRunOptions } from './options';

const USAGE = 'usage: npm run differential -- [--count N (default 10000)] [--seed N (default 1)] [--out FILE]';

const { count, seed, out } = readRunOptions(process.argv.slice(2), USAGE, { count: 10_000, seed: 1 }, true);

/** Weighted mix of every generator, inline floods and block grammar most. */
const note = fc.oneof(
  { weight: 5, arbitrary: inlineFloodNote },
  { weight: 4, arbitrary: grammarNote },
  { weight: 2, arbitrary: inlineNote },
  { weight: 2, arbitrary: rawNote },
  { weight: 2, arbitrary: nestedNote },
  { weight: 1, arbitrary: emphasisNote },
  { weight: 1, arbitrary: deepNestingNote },
  { weight: 1, arbitrary: preprocessNote },
);

const started = performance.now();
const mismatches: string[] = [];
const batch = 1000;
let done = 0;
let lastReport = started;
for (let round = 0; done < count; round++) {
  const size = Math.min(batch, count - done);
  for (const body of fc.sample(note, { numRuns: size, seed: seed * 1_000_003 + round })) {
    const difference = differential(body);
    if (difference !== null) {
      mismatches.push(body);
      console.log(`mismatch #${mismatches.length} (note ${done + 1}): ${difference.split('\n')[0]}`);
    }
    done++;
  }
  const now = performance.now();
  if (now - lastReport > 5_000 || done === count) {
    lastReport = now;
    const seconds = (now - started) / 1000;
    console.log(`${done}/${count} notes, ${mismatches.length} mismatches, ${seconds.toFixed(0)} s (${(done / seconds).toFixed(0)} notes/s)`);
  }
}
if (out && mismatches.length > 0) writeFileSync(out, JSON.stringify(mismatches, null, 1));
console.log(`notes: ${done}, seed: ${seed}`);
console.log(`mismatches: ${mismatches.length}`);
process.exitCode = mismatches.length === 0 ? 0 : 1;
