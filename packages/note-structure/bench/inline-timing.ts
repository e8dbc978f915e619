/**
 * Timing printout for the linear inline pass (not a test): every pathological shape
 * (src/pathological.ts, inline shapes) at 100 KB and at 1,000,000 characters through
 * inlineText + headingTextOf (the heading text as the analysis makes it), plus long combining-mark runs
 * through normalizeNfc.
 * Prints CPU ms (best of 5), MB/s at 1M and the growth per doubling between 500,000 and
 * 1,000,000 characters. On a shared machine the figures vary: the first line prints a
 * calibration (a plain charCodeAt scan of 1M characters, about 1 ms on an idle core) so they
 * can be scaled.
 *
 *   npm run inline-timing (node --import tsx bench/inline-timing.ts)
 */
import { headingTextOf } from '../src/heading-text';
import { inlineText, normalizeLabel } from '../src/inline';
import { normalizeNfc } from '../src/normalize-nfc';
import { PATHOLOGICAL_SHAPES } from '../src/pathological';

/** Best of 5 in process CPU time (user + system, ms): steadier than wall time on a shared machine. */
function best(run: () => unknown): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const started = process.cpuUsage();
    run();
    const used = process.cpuUsage(started);
    fastest = Math.min(fastest, (used.user + used.system) / 1000);
  }
  return fastest;
}

const calibrationText = 'x'.repeat(1_000_000);
const calibration = best(() => {
  let sum = 0;
  for (let i = 0; i < calibrationText.length; i++) sum += calibrationText.charCodeAt(i);
  return sum;
});
console.log(`calibration: charCodeAt scan of 1,000,000 chars = ${calibration.toFixed(2)} ms`);

const rows: string[] = [];
const header = ['shape', '100 KB ms', '500K ms', '1M ms', '1M MB/s', 'growth/doubling'];
function measure(name: string, make: (size: number) => string, work: (text: string) => unknown): void {
  const small = make(100_000);
  const half = make(500_000);
  const full = make(1_000_000);
  const msSmall = best(() => work(small));
  const msHalf = best(() => work(half));
  const msFull = best(() => work(full));
  const mbps = full.length / 1e6 / (msFull / 1000);
  rows.push([name, msSmall.toFixed(2), msHalf.toFixed(2), msFull.toFixed(2), mbps.toFixed(0), (msFull / msHalf).toFixed(2)].join(' | '));
}

for (const shape of PATHOLOGICAL_SHAPES.filter((each) => each.kind === 'inline')) {
  const definitions = new Set((shape.labels?.(1_000_000) ?? []).map(normalizeLabel));
  measure(shape.name, shape.build, (text) => headingTextOf(inlineText([text], definitions)));
}
const marks = (unit: string) => (size: number) => 'a' + unit.repeat(Math.floor(size / unit.length));
measure('NFC: out-of-order marks (normalizeNfc)', marks('\u0301\u0316'), normalizeNfc);
measure('NFC: astral marks (normalizeNfc)', marks('\u{1D165}\u0334\u{101FD}'), normalizeNfc);
measure('NFC: Hangul and jamo (normalizeNfc)', marks('가\u1100\u1161\u11A8'), normalizeNfc);

console.log(`| ${header.join(' | ')} |`);
console.log(`| ${header.map(() => '---').join(' | ')} |`);
for (const row of rows) console.log(`| ${row} |`);
