/**
 * Offline differential run of the linear inline pass against the micromark oracle.
 *
 *   npm run differential:inline -- [--count 500000] [--seed 20261122] [--help]
 *
 * Each generated case (test/support/inline-generators.ts) is parsed once by the reference
 * pipeline as a paragraph followed by a heading (ATX for one line, setext otherwise) and
 * compared, in both positions, with normalizeHeadingText(inlinePlainText(...)). Cases whose
 * lines happen to form other blocks are counted as skipped. Prints progress and ends with
 * `mismatches: N`; exits 1 when N > 0.
 */
import fc from 'fast-check';
import { inlineCase } from '../support/inline-generators';
import { oracleTexts, passText } from '../support/inline-oracle';
import { readRunOptions } from './options';

const USAGE = 'usage: npm run differential:inline -- [--count N (default 500000)] [--seed N (default 20261122)]';

const { count, seed } = readRunOptions(process.argv.slice(2), USAGE, { count: 500_000, seed: 20261122 });
const batch = 10_000;
const started = Date.now();
let done = 0;
let compared = 0;
let skipped = 0;
let mismatches = 0;
for (let round = 0; done < count; round++) {
  const size = Math.min(batch, count - done);
  for (const c of fc.sample(inlineCase, { seed: seed + round, numRuns: size })) {
    const expected = oracleTexts(c.lines, c.labels);
    if (expected === null) {
      skipped++;
      continue;
    }
    compared++;
    const actual = passText(c.lines, c.labels);
    if (actual !== expected.paragraph || actual !== expected.heading) {
      mismatches++;
      if (mismatches <= 20) {
        console.log('MISMATCH', JSON.stringify({ lines: c.lines, labels: c.labels, expected, actual }));
      }
    }
  }
  done += size;
  const seconds = (Date.now() - started) / 1000;
  console.log(`${done}/${count} cases, ${compared} compared, ${skipped} skipped, ${mismatches} mismatches, ${seconds.toFixed(0)} s`);
}
console.log(`cases: ${done} compared: ${compared} skipped: ${skipped} seed: ${seed}`);
console.log(`time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`mismatches: ${mismatches}`);
process.exitCode = mismatches > 0 ? 1 : 0;
