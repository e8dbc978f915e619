/**
 * Throughput and peak heap of the four contracts, the micromark oracle
 * (analyzeWithMdast) against the linear analysis on the request path
 * (analyzeNote), over the shared corpus and synthetic 10 KB / 100 KB /
 * 1,000,000-char notes; the analysis alternatives; the pathological inputs
 * of cmark and md4c in ATX heading, setext heading and paragraph positions
 * (ms, MB/s, growth per doubling, heap); then per-request time through the
 * bundled Worker in Miniflare (workerd) with a loopback canister.
 *
 *   node --import tsx scripts/bench.ts [--runs N] [--quick] [--no-e2e] [--no-pathological] [--only TEXT]
 *
 * --only TEXT: the pathological table alone, for the shapes whose name
 * holds TEXT (a quick before/after check without the rest of the bench).
 *
 * --quick (under 20 s): the oracle once, on the 10 KB note only; pathological
 * shapes once each at 100 KB and 200 KB (ATX and block positions); fewer
 * requests through the Worker.
 *
 * Timing: median CPU time (process.cpuUsage, user + system, so other
 * processes on a shared machine do not inflate it) of N runs after
 * warm-up. In the pathological table every input is warmed until steady
 * (at least 5 warm-up runs, more while a run is still over 10% faster than
 * the one before, at most 12) and timed as the median of 9; because the
 * first run after switching shapes is JIT warm-up (2-10x the steady time),
 * the first run of each 100K input is also printed, as "100K cold ms",
 * never folded into the median. Each shape is also timed at 125K, 250K,
 * 500K and 1M chars, the four sizes sampled in turn (7 samples per size
 * after 4 warm-up runs each) so that a change in machine speed mid-row lands on
 * all of them; growth per doubling is fitted over those four medians
 * (fittedGrowth) rather than read from one ratio of two. In the contracts table one run = the four
 * contracts on every note of the input (three analyses per note, as the
 * builders do). MB/s means millions of UTF-16 chars per second (the inputs
 * are ASCII apart from a few corpus chars, so chars ~ bytes).
 *
 * Peak heap: after warm-up, gc(), then v8.GCProfiler around one run.
 * Memory counted is V8's used heap plus its external memory (ArrayBuffer
 * storage: typed-array tables live there, outside the used heap). Both only
 * grow between collections, so the peak is the largest of their sum just
 * before each collection in the run and at the end; the figure is that peak
 * minus the sum after the gc() (input strings and buffers kept between calls
 * already live), divided by the input's chars.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { parse, postprocess, preprocess } from 'micromark';
import { CONTRACTS, decodeWireFrontmatter } from '../src/contracts';
import { analyzeWithMdast } from '../src/contracts/markdown';
import { analyzeNote, runContractsWith, scanBlocks, type Analyzer } from '../src/contracts/analysis';
import type { Frontmatter } from '../src/contracts/types';
import { pathologicalCases, pathologicalNote } from '../test/support/markdown/pathological';
import { cpuMs, workerdPids } from './lib/process.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sharedRoot = path.resolve(repoRoot, '../shared');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runsArg = args.indexOf('--runs');
const RUNS = runsArg !== -1 ? Number(args[runsArg + 1]) : quick ? 3 : 7;
const WARMUP = quick ? 1 : 2;
const onlyArg = args.indexOf('--only');
const only = onlyArg !== -1 ? args[onlyArg + 1] : null;

const gc = exposeGc();

interface Note {
  path: string;
  frontmatter: Frontmatter;
  body: string;
}

interface Input {
  name: string;
  notes: Note[];
  chars: number;
}

// ------------------------------------------------------------------ inputs

/** mulberry32: a small deterministic PRNG, so every run benches the same notes. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'note vault edge worker canister outline section heading tree facet project tag review plan ' +
  'meeting agenda decision follow up draft summary context memory index query token schema ' +
  'payload contract source parity latency cache build deploy release migration storage sync ' +
  'agent prompt model embedding search result episode chain entity author date update status'
).split(' ');

/**
 * Realistic Markdown of exactly `chars` chars: a heading (h1-h4, some with
 * inline markup) every ~2,000 chars, paragraphs with emphasis, code and
 * links, nested lists, block quotes with lazy lines, fenced code holding
 * fake headings, pipe tables as plain text, the odd thematic break.
 */
export function syntheticNote(chars: number, seed: number): string {
  const random = prng(seed);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
  const word = (): string => pick(WORDS);
  const phrase = (count: number): string => Array.from({ length: count }, word).join(' ');
  const sentence = (): string => {
    const parts = [phrase(int(3, 9))];
    const roll = random();
    if (roll < 0.15) parts.push(`*${phrase(int(1, 3))}*`);
    else if (roll < 0.25) parts.push(`**${phrase(int(1, 2))}**`);
    else if (roll < 0.4) parts.push(`\`${word()}.${word()}()\``);
    else if (roll < 0.5) parts.push(`[${phrase(int(1, 3))}](https://example.com/${word()}/${int(1, 999)})`);
    parts.push(phrase(int(2, 8)));
    const text = parts.join(' ');
    return text[0].toUpperCase() + text.slice(1) + '.';
  };
  const paragraph = (): string => Array.from({ length: int(2, 5) }, sentence).join(' ');
  const blocks: (() => string)[] = [
    paragraph,
    paragraph,
    paragraph,
    () =>
      Array.from({ length: int(3, 6) }, () =>
        random() < 0.2 ? `- ${sentence()}\n  - ${phrase(int(2, 6))}` : `- ${sentence()}`,
      ).join('\n'),
    () => Array.from({ length: int(2, 5) }, (_, index) => `${index + 1}. ${sentence()}`).join('\n'),
    () => `> ${sentence()}\n> ${sentence()}\n${phrase(int(3, 7))}.`,
    () =>
      '```' + pick(['ts', 'md', 'sh', '']) + '\n' +
      `# not a heading ${word()}\nconst ${word()} = ${int(1, 99)};\n## also not ${word()}\n` + '```',
    () =>
      `| ${word()} | ${word()} | ${word()} |\n| --- | --- | --- |\n` +
      Array.from({ length: int(2, 4) }, () => `| ${word()} | ${int(1, 99)} | ${phrase(2)} |`).join('\n'),
    () => (random() < 0.5 ? '---' : paragraph()),
  ];
  const out: string[] = [];
  let length = 0;
  let sinceHeading = Number.POSITIVE_INFINITY;
  while (length < chars) {
    let block: string;
    if (sinceHeading >= 1900 + int(0, 200)) {
      const level = pick([1, 2, 2, 3, 3, 3, 4, 4]);
      const roll = random();
      const title = roll < 0.1 ? `${phrase(2)} *${word()}*` : roll < 0.2 ? `${phrase(2)} \`${word()}\`` : phrase(int(2, 5));
      block = `${'#'.repeat(level)} ${title[0].toUpperCase()}${title.slice(1)}`;
      sinceHeading = 0;
    } else {
      block = pick(blocks)();
    }
    out.push(block);
    length += block.length + 2;
    sinceHeading += block.length + 2;
  }
  return out.join('\n\n').slice(0, chars);
}

/**
 * `body` as the Worker holds a note it read: JSON.parse of the canister's response makes each
 * string one flat piece. A body built here by joining, slicing or concatenating is held as a
 * slice or a cons string instead, which V8 reads through a pointer on every char (1.1-1.2x on
 * the block rows at 1M, PERFORMANCE.md "Bench choices"), a cost the Worker never pays.
 */
function asTheWorkerReadsIt(body: string): string {
  return (JSON.parse(JSON.stringify({ body })) as { body: string }).body;
}

function loadCorpus(): Input | null {
  const file = path.join(sharedRoot, 'corpus', 'knowtation-notes.json');
  if (!existsSync(file)) return null;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { path: string; frontmatter: unknown; body: string }[];
  const notes = raw.map((note) => ({
    path: note.path,
    frontmatter: decodeWireFrontmatter(JSON.stringify(note.frontmatter)) as Frontmatter,
    body: note.body,
  }));
  return { name: `corpus (${notes.length} notes)`, notes, chars: notes.reduce((sum, note) => sum + note.body.length, 0) };
}

function syntheticInput(name: string, chars: number, seed: number): Input {
  return { name, notes: [{ path: `bench/${name}.md`, frontmatter: {}, body: asTheWorkerReadsIt(syntheticNote(chars, seed)) }], chars };
}

// ------------------------------------------------------------------ measurement

function exposeGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

function runInput(analyze: Analyzer, input: Input): number {
  let sink = 0;
  for (const note of input.notes) {
    const payloads = runContractsWith(analyze, note.path, note.frontmatter, note.body);
    sink += payloads.section_source.sections.length + payloads.note_outline.headings.length;
  }
  return sink;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** CPU ms (user + system) per call of `work`, over `repeat` calls in a row. */
function cpuMsPerCall(work: () => unknown, repeat = 1): number {
  const start = process.cpuUsage();
  for (let index = 0; index < repeat; index++) work();
  const spent = process.cpuUsage(start);
  return (spent.user + spent.system) / 1000 / repeat;
}

/** Median CPU ms per call over `runs` samples after `warmup` calls; a call under MIN_SAMPLE_MS is repeated within each sample. */
function timeMedian(work: () => unknown, runs: number, warmup: number): number {
  let last = Infinity;
  for (let index = 0; index < warmup; index++) last = cpuMsPerCall(work);
  const repeat = warmup === 0 ? 1 : Math.min(1000, Math.max(1, Math.ceil(MIN_SAMPLE_MS / Math.max(last, 0.001))));
  const times: number[] = [];
  for (let index = 0; index < runs; index++) times.push(cpuMsPerCall(work, repeat));
  return median(times);
}

/** Below this, one call is timed in a batch of calls, so timer and scheduler jitter stay small beside it. */
const MIN_SAMPLE_MS = 2;

/**
 * Steady-state timing: the first (cold) run, warm-up until steady, then the median of `runs` samples.
 * A call that takes under MIN_SAMPLE_MS is repeated within each sample (the sample divided by the
 * repeat count), so the growth of a 0.05 ms row is a ratio of times, not of jitter.
 */
function timeSteady(work: () => unknown, runs: number, minWarmup = 3, maxWarmup = 10): { cold: number; median: number } {
  const batch = (repeat: number): number => cpuMsPerCall(work, repeat);
  const cold = batch(1);
  let previous = cold;
  for (let index = 0; index < maxWarmup; index++) {
    const spent = batch(1);
    const improving = spent < 0.9 * previous;
    previous = spent;
    if (index + 1 >= minWarmup && !improving) break;
  }
  const repeat = Math.min(1000, Math.max(1, Math.ceil(MIN_SAMPLE_MS / Math.max(previous, 0.001))));
  const times: number[] = [];
  for (let index = 0; index < runs; index++) times.push(batch(repeat));
  return { cold, median: median(times) };
}

interface HeapPeak {
  bytes: number;
  collections: number;
}

function peakHeap(work: () => unknown): HeapPeak {
  gc();
  gc();
  const inUse = (): number => {
    const stats = v8.getHeapStatistics();
    return stats.used_heap_size + stats.external_memory;
  };
  const baseline = inUse();
  const profiler = new v8.GCProfiler();
  profiler.start();
  work();
  const atEnd = inUse();
  const { statistics } = profiler.stop();
  let peak = atEnd;
  for (const entry of statistics) peak = Math.max(peak, entry.beforeGC.heapStatistics.usedHeapSize + entry.beforeGC.heapStatistics.externalMemory);
  return { bytes: peak - baseline, collections: statistics.length };
}

const mbPerSecond = (chars: number, ms: number): string => (chars / 1e6 / (ms / 1000)).toFixed(2);
const fixed = (value: number, digits: number): string => value.toFixed(digits);

function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row: string[]): string =>
    '| ' + row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join(' | ') + ' |';
  return [line(rows[0]), '|' + widths.map((width, column) => (column === 0 ? '-'.repeat(width + 2) : '-'.repeat(width + 1) + ':')).join('|') + '|', ...rows.slice(1).map(line)].join('\n');
}

// ------------------------------------------------------------------ sections

function contractsSection(inputs: Input[]): void {
  const LINEAR_RUNS = quick ? RUNS : Math.max(RUNS, 15);
  const LINEAR_WARMUP = WARMUP + (quick ? 0 : 2);
  console.log(`\n## Four contracts: micromark oracle (analyzeWithMdast) vs linear (analyzeNote)\n`);
  console.log(`median of ${RUNS} runs after ${WARMUP} warm-up (the linear pass: of ${LINEAR_RUNS} after ${LINEAR_WARMUP}), after warm-up a call under ${MIN_SAMPLE_MS} ms repeated within each run; heap = peak growth of used heap plus ArrayBuffer memory, per input char`);
  console.log(quick ? '(--quick: the oracle runs once, on the 10 KB note only)\n' : '');
  const rows = [['input', 'chars', 'oracle MB/s', 'linear MB/s', 'speed-up', 'oracle heap B/char', 'linear heap B/char']];
  const widths = [24, 8, 11, 11, 8, 18, 18];
  const print = (row: string[]): void => console.log('| ' + row.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]) : cell.padStart(widths[index]))).join(' | ') + ' |');
  print(rows[0]);
  for (const input of inputs) {
    const withOracle = !quick || (input.chars <= 10_000 && input.notes.length === 1);
    // No forced collection between the two: after gc() the linear pass ran up to 5x slower for
    // a while (10 KB and 100 KB notes, a standalone loop), a state a Worker isolate never sees.
    const reference = withOracle ? timeMedian(() => runInput(analyzeWithMdast, input), quick ? 1 : RUNS, quick ? 0 : WARMUP) : NaN;
    const linear = timeMedian(() => runInput(analyzeNote, input), LINEAR_RUNS, LINEAR_WARMUP);
    const referenceHeap = withOracle && !quick ? peakHeap(() => runInput(analyzeWithMdast, input)) : null;
    const linearHeap = peakHeap(() => runInput(analyzeNote, input));
    const row = [
      input.name,
      String(input.chars),
      withOracle ? mbPerSecond(input.chars, reference) : '-',
      mbPerSecond(input.chars, linear),
      withOracle ? `${fixed(reference / linear, 1)}x` : '-',
      referenceHeap ? fixed(referenceHeap.bytes / input.chars, 1) : '-',
      `${fixed(linearHeap.bytes / input.chars, 2)}${linearHeap.collections === 0 ? '' : ` (${linearHeap.collections} gc)`}`,
    ];
    rows.push(row);
    print(row);
  }
}

const TEXT_CONSTRUCTS = [
  'attention', 'autolink', 'characterEscape', 'characterReference', 'codeText', 'hardBreakEscape',
  'htmlText', 'labelEnd', 'labelStartImage', 'labelStartLink',
];

function alternativesSection(input: Input): void {
  const body = input.notes[0].body;
  const noInline = { extensions: [{ disable: { null: TEXT_CONSTRUCTS } }] };
  const events = (options?: typeof noInline) =>
    postprocess(parse(options).document().write(preprocess()(body, undefined, true))).length;
  const candidates: [string, () => unknown][] = [
    ['fromMarkdown (reference analyzer: micromark + mdast)', () => analyzeWithMdast(body)],
    ['micromark events only (no mdast)', () => events()],
    ['micromark events, inline constructs disabled', () => events(noInline)],
    ['fromMarkdown, inline constructs disabled', () => fromMarkdown(body, noInline)],
    ['linear: block scan only (scanBlocks)', () => scanBlocks(body)],
    ['linear: analyzeNote (block scan + inline pass + NFC)', () => analyzeNote(body)],
  ];
  console.log(`\n## One analysis of the ${input.name} note, alternatives (MB/s, median of ${RUNS})\n`);
  const rows = [['analyzer', 'MB/s', 'vs fromMarkdown']];
  let baseline = 0;
  for (const [name, work] of candidates) {
    const ms = timeMedian(work, RUNS, WARMUP);
    if (baseline === 0) baseline = ms;
    rows.push([name, mbPerSecond(body.length, ms), `${fixed(baseline / ms, 1)}x`]);
  }
  console.log(table(rows));
}

// ------------------------------------------------------------------ pathological inputs

/** One request's contract work in-process: section_source = one analysis + outline + tree + sections. */
function requestWork(body: string): number {
  return CONTRACTS.section_source('bench/pathological.md', {}, body).sections.length;
}

/**
 * Per-doubling growth fitted over (chars, ms) points: 2 ** (least-squares slope of log2 ms on
 * log2 chars). Linear work gives 2.0, quadratic 4.0; one noisy point moves it far less than it
 * moves a ratio of two medians.
 */
export function fittedGrowth(points: ReadonlyArray<readonly [chars: number, ms: number]>): number {
  const xs = points.map(([chars]) => Math.log2(chars));
  const ys = points.map(([, ms]) => Math.log2(Math.max(ms, 1e-6)));
  const meanX = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const meanY = ys.reduce((sum, y) => sum + y, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  xs.forEach((x, index) => {
    covariance += (x - meanX) * ((ys[index] as number) - meanY);
    variance += (x - meanX) ** 2;
  });
  return 2 ** (covariance / variance);
}

/**
 * Medians per size with the sizes sampled in turn (pass r times every size before pass r + 1),
 * so a change in machine speed during the row lands on every size alike instead of on one.
 */
function timeInterleaved(works: ReadonlyArray<() => unknown>, runs: number): number[] {
  const repeats = works.map((work) => {
    let spent = cpuMsPerCall(work);
    for (let index = 0; index < 3; index++) spent = cpuMsPerCall(work);
    return Math.min(1000, Math.max(1, Math.ceil(MIN_SAMPLE_MS / Math.max(spent, 0.001))));
  });
  const samples = works.map((): number[] => []);
  for (let round = 0; round < runs; round++) works.forEach((work, index) => samples[index]?.push(cpuMsPerCall(work, repeats[index])));
  return samples.map(median);
}

function pathologicalSection(): void {
  const small = 100_000;
  // Growth is fitted over these sizes; the last one is the rate's size.
  const ladder = quick ? [100_000, 200_000] : [125_000, 250_000, 500_000, 1_000_000];
  const top = ladder[ladder.length - 1] as number;
  const topLabel = quick ? '200K' : '1M';
  const runs = quick ? 1 : 7;
  console.log(`\n## Pathological inputs (cmark and md4c test/pathological_tests.py, issue 10), one request's contract work in-process\n`);
  console.log(
    (quick
      ? 'one run each after 1 warm-up (--quick: indicative only); '
      : `100K = median of 9 samples after warm-up until steady (5-12 runs); 100K cold = the first run of that input, before any warm-up; ` +
        `125K, 250K, 500K and 1M = medians of ${runs} samples taken in turn across the four sizes after 4 warm-up runs each; a call under ${MIN_SAMPLE_MS} ms is repeated within each sample; `) +
      `growth = per-doubling growth fitted over ${quick ? '100K and 200K' : '125K-1M (2 ** slope of log time on log chars; linear = 2.0, quadratic = 4.0)'}; ` +
      `${quick ? '' : '1M/500K = the ratio of those two medians alone (shown, no target); '}` +
      `targets: <= 10 ms at 100K, growth <= 2.3x, >= 20 MB/s at ${topLabel}, heap (used heap + ArrayBuffers, probed once every row is timed) <= 16 B/char (! marks a miss)\n`,
  );
  const header = ['shape', 'position', '100K cold ms', '100K ms', `${topLabel} ms`, `MB/s ${topLabel}`, 'growth', ...(quick ? [] : ['1M/500K', 'heap B/char'])];
  const widths = [46, 9, 12, 8, 8, 9, 7, 7, 11];
  const print = (row: string[]): void => console.log('| ' + row.map((cell, index) => (index < 2 ? cell.padEnd(widths[index]) : cell.padStart(widths[index]))).join(' | ') + ' |');
  print(header);
  let worstSmall = 0;
  let worstCold = 0;
  let worstGrowth = 0;
  let worstRate = Number.POSITIVE_INFINITY;
  let worstHeap = 0;
  // --quick: every shape once, in its worst position for time (the ATX heading) or as the whole note.
  const cases = pathologicalCases().filter(
    (each) => (!quick || each.position === 'atx' || each.position === 'block') && (only === null || each.shape.name.includes(only)),
  );
  // Every row is timed first, then every row's memory is probed: a probe forces full collections,
  // which would otherwise change how the next rows' runs are collected and so their times.
  const rows: string[][] = [];
  for (const { shape, position } of cases) {
    const smallBody = asTheWorkerReadsIt(pathologicalNote(shape, position, small));
    const { cold: coldSmall, median: atSmall } = quick
      ? { cold: NaN, median: timeMedian(() => requestWork(smallBody), runs, 1) }
      : timeSteady(() => requestWork(smallBody), 9, 5, 12);
    const bodies = ladder.map((chars) => asTheWorkerReadsIt(pathologicalNote(shape, position, chars)));
    const times = quick
      ? bodies.map((body) => timeMedian(() => requestWork(body), runs, 1))
      : timeInterleaved(bodies.map((body) => () => requestWork(body)), runs);
    const atTop = times[times.length - 1] as number;
    const growth = fittedGrowth(ladder.map((chars, index) => [chars, times[index] as number]));
    const rate = top / 1e6 / (atTop / 1000);
    worstSmall = Math.max(worstSmall, atSmall);
    if (!quick) worstCold = Math.max(worstCold, coldSmall);
    worstGrowth = Math.max(worstGrowth, growth);
    worstRate = Math.min(worstRate, rate);
    rows.push([
      shape.name,
      position,
      quick ? '-' : fixed(coldSmall, 2),
      `${fixed(atSmall, 2)}${atSmall > 10 ? '!' : ''}`,
      fixed(atTop, 1),
      `${fixed(rate, 1)}${rate < 20 ? '!' : ''}`,
      `${fixed(growth, 2)}${growth > 2.3 ? '!' : ''}`,
      ...(quick ? [] : [fixed(atTop / (times[times.length - 2] as number), 2)]),
    ]);
  }
  if (!quick) {
    cases.forEach(({ shape, position }, index) => {
      const body = asTheWorkerReadsIt(pathologicalNote(shape, position, top));
      const heap = peakHeap(() => requestWork(body)).bytes / body.length;
      worstHeap = Math.max(worstHeap, heap);
      rows[index]?.push(`${fixed(heap, 2)}${heap > 16 ? '!' : ''}`);
    });
  }
  rows.forEach(print);
  console.log(
    `\nworst: ${fixed(worstSmall, 2)} ms at 100K${quick ? '' : ` (cold first run ${fixed(worstCold, 2)} ms)`}, growth ${fixed(worstGrowth, 2)}x per doubling, ${fixed(worstRate, 1)} MB/s at ${topLabel}` +
      (quick ? '' : `, heap ${fixed(worstHeap, 2)} B/char`),
  );
}

// ------------------------------------------------------------------ end to end

const BENCH_CANISTER_SECRET = 'bench-canister-secret';
const BENCH_SESSION_SECRET = 'bench-session-secret-0123456789abcdef';
type MiniflareWorker = { ready: Promise<URL>; dispose(): Promise<void> };
type Send = (notePath: string) => Promise<Response>;
type McpEra = '2025-11-25' | '2026-07-28';

interface BenchCanister {
  url: string;
  /** Requests received, and those refused for a wrong X-Gateway-Auth. */
  calls: number;
  refusals: number;
  close(): void;
}

/** What the Worker wrote: JSON log lines are counted, error output kept. */
interface WorkerOutput {
  logLines: number;
  errorText: string;
}

interface BenchClient {
  health: Send;
  noteOutline: Send;
  noteOutlineWithoutToken: Send;
  mcp(era: McpEra): Send;
}

/** One measured batch: sorted latencies, and workerd CPU ms per request (0 without /proc). */
interface Batch {
  latencies: number[];
  cpu: number;
}

/** A loopback canister holding the bench notes: 401 without the gateway secret, 404 for an unknown path. */
async function startBenchCanister(notes: Input[]): Promise<BenchCanister> {
  const bodies = new Map(notes.flatMap((input) => input.notes.map((note): [string, string] => [note.path, note.body])));
  const canister: BenchCanister = { url: '', calls: 0, refusals: 0, close: () => server.close() };
  const server = http.createServer((request, response) => {
    canister.calls++;
    if (request.headers['x-gateway-auth'] !== BENCH_CANISTER_SECRET) {
      canister.refusals++;
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const match = /^\/api\/v1\/notes\/(.+)$/.exec(new URL(request.url ?? '/', 'http://x').pathname);
    const notePath = match ? decodeURIComponent(match[1]) : '';
    const body = bodies.get(notePath);
    if (body === undefined) response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: notePath, frontmatter: '{}', body }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  canister.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return canister;
}

/** The Worker bundle as `wrangler deploy` would upload it (--dry-run, into outDir). */
function buildWorkerBundle(outDir: string): void {
  execFileSync(process.execPath, [path.join(repoRoot, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', outDir], {
    cwd: repoRoot,
    stdio: 'pipe',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
  });
}

/** The bundled Worker in Miniflare (workerd) on a loopback port, reading notes from the canister. */
async function startWorker(outDir: string, canisterUrl: string, output: WorkerOutput): Promise<MiniflareWorker> {
  const { Miniflare } = await import('miniflare');
  return new Miniflare({
    scriptPath: path.join(outDir, 'index.js'),
    modules: true,
    modulesRoot: outDir,
    compatibilityDate: '2026-04-01',
    host: '127.0.0.1',
    port: 0,
    // The Worker logs one JSON line per request; count them instead of printing them.
    handleRuntimeStdio: (stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) => {
      stdout.on('data', (chunk: Buffer) => (output.logLines += chunk.toString().split('\n').filter(Boolean).length));
      stderr.on('data', (chunk: Buffer) => (output.errorText += chunk.toString()));
    },
    handleStructuredLogs: (entry: { level: string; message: string }) => {
      if (entry.level === 'error') output.errorText += entry.message;
      else output.logLines++;
    },
    bindings: {
      CANISTER_URL: canisterUrl,
      CANISTER_AUTH_SECRET: BENCH_CANISTER_SECRET,
      SESSION_SECRET: BENCH_SESSION_SECRET,
      ENVIRONMENT: 'local',
      CANISTER_TIMEOUT_MS: '30000',
    },
  }) as unknown as MiniflareWorker;
}

/** A one-hour viewer session token for the bench user. */
async function benchToken(): Promise<string> {
  const { SignJWT } = await import('jose');
  return new SignJWT({ type: 'session', role: 'viewer' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench-user')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(BENCH_SESSION_SECRET));
}

/** The same tool call on each MCP era: 2025-11-25 (stateless after initialize) and 2026-07-28 (sessionless, _meta and headers). */
function mcpToolCall(base: URL, token: string, era: McpEra, notePath: string): Promise<Response> {
  const params: Record<string, unknown> = { name: 'get_note_outline', arguments: { path: notePath } };
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': era,
  };
  if (era === '2026-07-28') {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': era,
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    Object.assign(headers, { 'mcp-method': 'tools/call', 'mcp-name': 'get_note_outline' });
  }
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
  return fetch(new URL('/mcp', base), { method: 'POST', headers, body });
}

function benchClient(base: URL, token: string): BenchClient {
  const outline = (notePath: string): URL => new URL(`/api/v1/note-outline?path=${encodeURIComponent(notePath)}`, base);
  return {
    health: () => fetch(new URL('/health', base)),
    noteOutline: (notePath) => fetch(outline(notePath), { headers: { authorization: `Bearer ${token}` } }),
    noteOutlineWithoutToken: (notePath) => fetch(outline(notePath)),
    mcp: (era) => (notePath) => mcpToolCall(base, token, era, notePath),
  };
}

/**
 * Null when the Worker serves note outlines through the canister, else why the section is skipped.
 * Throws when the canister does not refuse a request without its secret. Resets the canister counters.
 */
async function probeWorker(canister: BenchCanister, client: BenchClient, notePath: string): Promise<string | null> {
  const unauthenticated = await fetch(`${canister.url}/api/v1/notes/${encodeURIComponent(notePath)}`);
  await unauthenticated.arrayBuffer();
  if (unauthenticated.status !== 401) throw new Error('the loopback canister did not refuse a request without X-Gateway-Auth');
  canister.calls = 0;
  canister.refusals = 0;
  const probe = await client.noteOutline(notePath);
  const probeText = await probe.text();
  if (probe.status === 404 && canister.calls === 0) return `skipped: GET /api/v1/note-outline is not served yet (404: ${probeText.slice(0, 120)})`;
  if (probe.status !== 200) return `skipped: the probe answered ${probe.status} ${probeText.slice(0, 200)}`;
  return null;
}

/**
 * `count` sequential requests over `paths` (after a few warm-up ones), each expected to answer
 * `expected`; workerd's CPU ticks are read around the batch.
 */
async function measure(workerd: number[], label: string, paths: string[], count: number, expected: number, send: Send): Promise<Batch> {
  for (let index = 0; index < Math.min(quick ? 3 : 10, count); index++) await (await send(paths[index % paths.length])).arrayBuffer();
  const latencies: number[] = [];
  const cpuBefore = await cpuMs(workerd);
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    const response = await send(paths[index % paths.length]);
    await response.arrayBuffer();
    latencies.push(performance.now() - start);
    if (response.status !== expected) throw new Error(`status ${response.status} for ${label}`);
  }
  const cpu = ((await cpuMs(workerd)) - cpuBefore) / count;
  latencies.sort((a, b) => a - b);
  process.stdout.write(`  measured ${label}: ${count} requests\n`);
  return { latencies, cpu };
}

const at = (latencies: number[], quantile: number): number =>
  latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(quantile * latencies.length) - 1))];

/** CONTRACTS.note_outline per note in Node, for comparison with the Worker. */
const inProcessMs = (input: Input): number =>
  timeMedian(() => {
    for (const note of input.notes) CONTRACTS.note_outline(note.path, {}, note.body);
  }, quick ? 3 : 7, 1) / input.notes.length;

/** Measures and tabulates the requests through the Worker: the three baselines, then per input REST and (single notes) both MCP eras. */
class EndToEndTable {
  readonly rows = [['request', 'chars/request', 'requests', 'p50 ms', 'p99 ms', 'p50 - 404', 'workerd CPU ms', 'CPU - health', 'in-process ms']];
  private readonly small = quick ? 30 : 300;
  private readonly client: BenchClient;
  private readonly workerd: number[];
  private healthCpu = 0;
  private missingP50 = 0;

  constructor(client: BenchClient, workerd: number[]) {
    this.client = client;
    this.workerd = workerd;
  }

  private cpu(value: number): string {
    return this.workerd.length > 0 ? fixed(value, 2) : '-';
  }

  private row(label: string, chars: number, batch: Batch, beyond404: string, cpuBeyondHealth: string, inProcess: string): void {
    const { latencies, cpu } = batch;
    this.rows.push([label, String(chars), String(latencies.length), fixed(at(latencies, 0.5), 2), fixed(at(latencies, 0.99), 2), beyond404, this.cpu(cpu), cpuBeyondHealth, inProcess]);
  }

  async measureBaselines(firstPath: string): Promise<void> {
    const health = await measure(this.workerd, 'GET /health', ['/health'], this.small, 200, this.client.health);
    const refused = await measure(this.workerd, 'no token (401)', [firstPath], this.small, 401, this.client.noteOutlineWithoutToken);
    const missing = await measure(this.workerd, 'missing note (404)', ['bench/missing.md'], this.small, 404, this.client.noteOutline);
    this.healthCpu = health.cpu;
    this.missingP50 = at(missing.latencies, 0.5);
    this.row('GET /health (no auth, no canister)', 0, health, '-', '0', '-');
    this.row('401 (routing, token refused)', 0, refused, '-', this.cpu(refused.cpu - this.healthCpu), '-');
    this.row('404 (JWT verify + canister round trip)', 0, missing, '0', this.cpu(missing.cpu - this.healthCpu), '-');
  }

  private requestCount(input: Input): number {
    if (input.chars / input.notes.length > 500_000) return quick ? 5 : 40;
    return input.notes.length > 1 ? (quick ? input.notes.length : 3 * input.notes.length) : this.small;
  }

  private addRequestRow(label: string, chars: number, batch: Batch, inProcess: string): void {
    const beyond404 = fixed(at(batch.latencies, 0.5) - this.missingP50, 2);
    this.row(label, chars, batch, beyond404, this.cpu(batch.cpu - this.healthCpu), inProcess);
  }

  async measureInput(input: Input): Promise<void> {
    const paths = input.notes.map((note) => note.path);
    const count = this.requestCount(input);
    const rest = await measure(this.workerd, input.name, paths, count, 200, this.client.noteOutline);
    this.addRequestRow(`note-outline ${input.name}`, Math.round(input.chars / input.notes.length), rest, fixed(inProcessMs(input), 2));
    if (input.notes.length !== 1) return;
    for (const era of ['2025-11-25', '2026-07-28'] as const) {
      const probeCall = await this.client.mcp(era)(paths[0]);
      const probeBody = await probeCall.text();
      if (probeCall.status !== 200 || probeBody.includes('"isError":true') || probeBody.includes('"error":{')) {
        throw new Error(`MCP ${era}: status ${probeCall.status} for ${input.name}`);
      }
      const mcp = await measure(this.workerd, `${input.name} MCP ${era}`, paths, count, 200, this.client.mcp(era));
      this.addRequestRow(`MCP tools/call ${era} ${input.name}`, input.chars, mcp, '-');
    }
  }
}

function printEndToEnd(rows: string[][], canister: BenchCanister, output: WorkerOutput, workerdFound: boolean): void {
  console.log('');
  console.log(table(rows));
  console.log(`\ncanister calls ${canister.calls}, refused for a wrong X-Gateway-Auth: ${canister.refusals}; Worker log lines ${output.logLines}`);
  if (output.errorText) console.log(`Worker stderr: ${output.errorText.slice(0, 500)}`);
  console.log(
    '(sequential requests over loopback HTTP. workerd CPU ms = user+system CPU of the workerd process (from /proc) over\n' +
      'the run, divided by the requests: the Worker\'s own CPU per request including workerd\'s HTTP handling; "CPU -\n' +
      'health" takes away what a no-op request costs. "p50 - 404" = wall time beyond a request that pays the same JWT\n' +
      'check and canister round trip. in-process ms = CONTRACTS.note_outline per note in Node, for comparison.)',
  );
  if (!workerdFound) console.log('(workerd process not found under this process: CPU columns not measured)');
}

/** Probes the running Worker, measures every row and prints the table. */
async function measureThroughWorker(notes: Input[], canister: BenchCanister, worker: MiniflareWorker, output: WorkerOutput): Promise<void> {
  const client = benchClient(await worker.ready, await benchToken());
  const firstPath = notes[0].notes[0].path;
  const skipped = await probeWorker(canister, client, firstPath);
  if (skipped !== null) {
    console.log(skipped);
    return;
  }
  // workerd processes started (through Miniflare) by this process.
  const workerd = await workerdPids((pid) => pid === process.pid);
  const measured = new EndToEndTable(client, workerd);
  await measured.measureBaselines(firstPath);
  for (const input of notes) await measured.measureInput(input);
  printEndToEnd(measured.rows, canister, output, workerd.length > 0);
}

async function endToEndSection(notes: Input[]): Promise<void> {
  console.log(`\n## End to end: note outline over REST and over MCP tools/call on each era (single-note inputs) through the Worker (Miniflare/workerd), loopback canister\n`);
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-'));
  const canister = await startBenchCanister(notes);
  const output: WorkerOutput = { logLines: 0, errorText: '' };
  let worker: MiniflareWorker | undefined;
  try {
    console.log('building the Worker bundle (wrangler deploy --dry-run) and starting Miniflare...');
    buildWorkerBundle(outDir);
    worker = await startWorker(outDir, canister.url, output);
    await measureThroughWorker(notes, canister, worker, output);
  } catch (error) {
    console.log(`skipped: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  } finally {
    await worker?.dispose();
    canister.close();
    rmSync(outDir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const cpus = os.cpus();
  console.log(`# bench: ${os.cpus().length} cpus, ${cpus[0]?.model ?? 'unknown cpu'}, node ${process.version}`);
  if (only !== null) {
    pathologicalSection();
    return;
  }
  const corpus = loadCorpus();
  if (!corpus) console.warn(`corpus not found at ${sharedRoot}/corpus: benching synthetic notes only`);
  const synthetic = [
    syntheticInput('synthetic-10k', 10_000, 10),
    syntheticInput('synthetic-100k', 100_000, 100),
    syntheticInput('synthetic-1m', 1_000_000, 1000),
  ];
  contractsSection([...(corpus ? [corpus] : []), ...(quick ? [synthetic[0], synthetic[2]] : synthetic)]);
  if (!quick) alternativesSection(synthetic[2]);
  if (!args.includes('--no-pathological')) pathologicalSection();
  if (!args.includes('--no-e2e')) await endToEndSection([...(corpus ? [corpus] : []), synthetic[0], synthetic[2]]);
}

// Runs only as a script, so the synthetic-note generator can be imported.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
