/**
 * The bench of docs/PERFORMANCE.md: the Markdown analysis in-process, then the Worker end to end.
 * It prints a summary of the targets (PASS, FAIL or NOISY, by how much), and with --detail the detail:
 *
 * - Four contracts: throughput and peak heap of the four contracts, the micromark oracle
 *   (analyzeWithMdast) against the linear analysis on the request path (analyzeNote), over the
 *   shared corpus and synthetic 10 KB / 100 KB / 1,000,000-char notes.
 * - Alternatives (full run only): one analysis of the 1M-char note by each analyzer.
 * - Pathological inputs: the shapes of cmark and md4c test/pathological_tests.py (and more) in ATX
 *   heading, setext heading and paragraph positions or as the whole note, as one request's
 *   contract work: ms at 100K, growth per doubling, MB/s at 1M, heap per char.
 * - End to end (scripts/lib/bench-worker.ts): per-request time through the bundled Worker in
 *   Miniflare (workerd) with a loopback canister (the synthetic notes, and 1,000,000-char notes of
 *   short paragraphs with inline syntax, each at most 100 ms of workerd CPU), and the folders-only
 *   scope comparison.
 * - Startup (scripts/lib/bench-startup.ts): `wrangler check startup` run 5 times (CPU of each
 *   profile = sampled time minus idle and program; median and range, at most 30 ms), the dry-run
 *   bundle's size (wrangler's Total Upload line, gzip at most 150 KiB; bytes by module group from
 *   its metafile), and the first request a fresh Worker serves against its warm median (REST at
 *   most 5 ms over, MCP tools/call on each era at most 40 ms over), over 5 fresh starts per kind.
 * - Fixed cost (scripts/lib/bench-fixed.ts): workerd CPU per request by kind (/health, 401, 400,
 *   404, 200 outlines of a 10-char and a 5K-char note, MCP tools/call on each era), every kind a
 *   request at a time, interleaved, judged on medians; the fixed cost of a REST read (404 - /health,
 *   at most 1 ms), MCP tools/call over the same REST read (at most 0.3 ms), and the local rate-limit
 *   simulation measured apart. Then the read floor, in the same passes: our REST read of each corpus
 *   note against a minimal Worker that
 *   makes the same canister GET (scripts/lib/bench-floor-worker.js), both net of a no-op exchange,
 *   their ratio at most 1.5x, and MCP over that read; and where that read's CPU goes, phase by phase
 *   (scripts/lib/bench-phases.ts, a bench-only build).
 *
 *   node --expose-gc --import tsx scripts/bench.ts [--runs N] [--quick] [--no-e2e] [--no-pathological]
 *     [--no-startup] [--no-fixed] [--only TEXT] [--only-startup] [--only-fixed] [--only-e2e]
 *
 * Timing: median CPU time (process.cpuUsage, user + system, so other processes on a shared
 * machine do not inflate it) of N runs after warm-up; a call under MIN_SAMPLE_MS is repeated
 * within each sample. A ratio (speed-up) is printed only when both sides are medians of at least
 * MIN_RATIO_SAMPLES samples. In the pathological table every input is warmed until steady (at
 * least 5 warm-up runs, more while a run is still over 10% faster than the one before, at most
 * 12) and timed as the median of 9; because the first run after switching shapes is JIT warm-up
 * (2-10x the steady time), it is printed apart ("cold"), never folded into the median. Each shape
 * is also timed at 125K, 250K, 500K and 1M chars, the four sizes sampled in turn (7 samples per
 * size after 4 warm-up runs each) so that a change in machine speed mid-row lands on all of them;
 * growth per doubling is fitted over those four medians (fittedGrowth) rather than read from one
 * ratio of two. In the contracts table one run = the four contracts on every note of the input
 * (three analyses per note, as the builders do). MB/s means millions of UTF-16 chars per second.
 *
 * Verdicts (scripts/lib/bench-report.ts, judge): a target PASSes when the run's own spread of its figure
 * (min to max of a few repetitions, the interquartile range of more) meets the bound, FAILs when none
 * of it does, and is NOISY when the spread straddles the bound. Bundle size and heap per char are
 * deterministic: PASS or FAIL on the value. A figure the run has one sample of is judged on it.
 *
 * --quick (the same verdicts from fewer samples): the linear pass as in the full run;
 * the oracle once, on the 10 KB note only (so no speed-up); pathological shapes in the ATX and
 * block positions only, warmed until steady at 100K (median of 5), then 100K and 200K sampled in
 * turn (5 samples each), heap probed at 1M after one run there; fewer requests through the Worker;
 * 2 startup profiles and 2 fresh starts per kind (10 warm repeats); one pass over the corpus notes
 * per fixed-cost kind (three in a full run). --only-startup, --only-fixed and --only-e2e run just those Worker sections (combinable).
 *
 * Peak heap: after warm-up, gc(), then v8.GCProfiler around one run. Memory counted is V8's used
 * heap plus its external memory (ArrayBuffer storage: typed-array tables live there, outside the
 * used heap). Both only grow between collections, so the peak is the largest of their sum just
 * before each collection in the run and at the end; the figure is that peak minus the sum after
 * the gc() (input strings and buffers kept between calls already live), divided by the chars.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { parse, postprocess, preprocess } from 'micromark';
import { buildAllContracts, buildContract, decodeWireFrontmatter, structureAnalyzer, type Frontmatter } from '../src/contracts';
import { analyzeWithMdast } from './lib/markdown/oracle';
import { analyzeNote, scanBlocks, type NoteStructure } from '../src/contracts/analysis';

/** A Markdown analysis answering a NoteStructure: the linear one or the micromark oracle. */
type Analyzer = (body: string) => NoteStructure;
import { pathologicalCases, pathologicalNote, SHAPES, type Position } from './lib/markdown/pathological';
import { countOption, parseOptionsOrExit } from './cli-options.mjs';
import { isEntryPoint } from './lib/cli.mjs';
import { checkVerdict, figure, median, MIN_RATIO_SAMPLES, ratioOf, Report, spreadOf, verdictLine, WIDTH, wrap, type Spread, type TargetCheck, type Timing } from './lib/bench-report';
import { FIXED_TARGET, fixedCostSection, type FixedCostResult } from './lib/bench-fixed';
import { isJudgedFirst, STARTUP_TARGET, startupSection, type FirstKind, type FirstRequestRow, type StartupResult } from './lib/bench-startup';
import { endToEndSection, HEAVY_CPU_MS, type EndToEndResult } from './lib/bench-worker';
import { MCP_ERAS } from './lib/worker-api';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sharedRoot = path.resolve(repoRoot, '../shared');

const USAGE = [
  'usage: npm run bench -- [--quick] [--detail] [--runs N] [--no-e2e] [--no-pathological] [--no-startup]',
  '                        [--no-fixed] [--only TEXT] [--only-startup] [--only-fixed] [--only-e2e]',
  '  (= node --expose-gc --import tsx scripts/bench.ts ...; the full run takes 5-12 minutes)',
  '  --quick            a few minutes: fewer samples and sizes (more targets may read NOISY)',
  '  --detail           every section\'s tables and notes after the summary',
  '  --runs N           samples of the oracle and of the alternatives (default 7, --quick 3)',
  '  --no-e2e           skip every Worker section (end to end, startup, fixed cost)',
  '  --no-pathological  skip the pathological inputs',
  '  --no-startup       skip the startup section (wrangler check startup, bundle, first request)',
  '  --no-fixed         skip the fixed-cost section (workerd CPU per request by kind)',
  '  --only TEXT        the pathological table alone, for the shapes whose name holds TEXT',
  '  --only-startup     the startup section alone (with --only-fixed / --only-e2e: those too)',
  '  --only-fixed       the fixed-cost section alone (likewise)',
  '  --only-e2e         the end-to-end section alone, 1M inline-syntax rows included (likewise)',
].join('\n');

/** The Worker sections --only-* can pick. */
type WorkerSection = 'startup' | 'fixed' | 'e2e';

interface BenchOptions {
  quick: boolean;
  /** Print every section after the summary (else the summary alone). */
  detail: boolean;
  runs: number;
  warmup: number;
  e2e: boolean;
  pathological: boolean;
  startup: boolean;
  fixed: boolean;
  only: string | null;
  /** The Worker sections named by --only-*, alone; empty when none was. */
  onlySections: WorkerSection[];
}

function readOptions(argv: string[]): BenchOptions {
  const flags = { type: 'boolean' } as const;
  const options = {
    quick: flags,
    detail: flags,
    runs: { type: 'string' },
    'no-e2e': flags,
    'no-pathological': flags,
    'no-startup': flags,
    'no-fixed': flags,
    only: { type: 'string' },
    'only-startup': flags,
    'only-fixed': flags,
    'only-e2e': flags,
  } as const;
  return parseOptionsOrExit(argv, options, USAGE, (values, UsageError) => {
    const quick = values.quick === true;
    const runs = countOption(values, 'runs', quick ? 3 : 7, UsageError);
    if (runs < 1) throw new UsageError('--runs needs at least 1');
    if (values.only !== undefined && (typeof values.only !== 'string' || values.only === '')) throw new UsageError('--only needs a text');
    const onlySections = (['startup', 'fixed', 'e2e'] as const).filter((section) => values[`only-${section}`] === true);
    if (onlySections.length > 0 && values.only !== undefined) throw new UsageError('--only TEXT and --only-<section> exclude each other');
    for (const section of onlySections) {
      if (values[`no-${section}`] === true || values['no-e2e'] === true) throw new UsageError(`--only-${section} and --no-${values['no-e2e'] === true ? 'e2e' : section} exclude each other`);
    }
    const e2e = values['no-e2e'] !== true;
    return {
      quick,
      detail: values.detail === true,
      runs,
      warmup: quick ? 1 : 2,
      e2e,
      pathological: values['no-pathological'] !== true,
      startup: e2e && values['no-startup'] !== true,
      fixed: e2e && values['no-fixed'] !== true,
      only: typeof values.only === 'string' ? values.only : null,
      onlySections,
    };
  });
}

/** The targets of docs/PERFORMANCE.md that the bench measures. */
const TARGET = {
  /** Every pathological row at 100K chars: at most this many ms. */
  smallMs: 10,
  /** Fitted growth per doubling: at most. */
  growth: 2.3,
  /** Every pathological row at 1M chars: at least this many MB/s. */
  rate: 20,
  /** The four contracts on the corpus: at least this many MB/s. */
  corpusRate: 30,
  /** The four contracts on the 1,000,000-char synthetic note: at least this many MB/s. */
  noteRate: 40,
  /** Peak heap growth of a pathological row at 1M: at most this many B/char. */
  heap: 16,
} as const;

const gc = exposeGc();

/** A line on the terminal while the bench runs (stderr: not part of the report). */
function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

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

/**
 * The heavy rows through the Worker: 1,000,000-char notes of one short paragraph repeated, each
 * with inline syntax (the pathological list's `paragraphs of` shapes), and plain words as the baseline.
 */
function heavyInputs(): (Input & { heavy: true })[] {
  const chars = 1_000_000;
  const paragraphs = SHAPES.filter((shape) => shape.name.startsWith('paragraphs of '));
  const bodies: [name: string, body: string][] = [
    ...paragraphs.map((shape): [string, string] => [shape.name.slice('paragraphs of '.length).replace(/^`+ ?| ?`+$/g, ''), pathologicalNote(shape, 'block', chars)]),
    ['prose', 'Some plain words.\n\n'.repeat(Math.ceil(chars / 19)).slice(0, chars)],
  ];
  return bodies.map(([name, body], index) => ({
    name: `1m paras ${name}`,
    notes: [{ path: `bench/heavy-${index}.md`, frontmatter: {}, body: asTheWorkerReadsIt(body) }],
    chars,
    heavy: true,
  }));
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
    const payloads = buildAllContracts(note.path, note.frontmatter, note.body, { analyze: structureAnalyzer(analyze) });
    sink += payloads.section_source.sections.length + payloads.note_outline.headings.length;
  }
  return sink;
}

/** CPU ms (user + system) per call of `work`, over `repeat` calls in a row. */
function cpuMsPerCall(work: () => unknown, repeat = 1): number {
  const start = process.cpuUsage();
  for (let index = 0; index < repeat; index++) work();
  const spent = process.cpuUsage(start);
  return (spent.user + spent.system) / 1000 / repeat;
}

/** Below this, one call is timed in a batch of calls, so timer and scheduler jitter stay small beside it. */
const MIN_SAMPLE_MS = 2;

/** Calls per sample: enough for MIN_SAMPLE_MS at `ms` per call, at most 1000. */
const repeatFor = (ms: number): number => Math.min(1000, Math.max(1, Math.ceil(MIN_SAMPLE_MS / Math.max(ms, 0.001))));

/** Median CPU ms per call over `runs` samples after `warmup` calls; a call under MIN_SAMPLE_MS is repeated within each sample. */
function timeMedian(work: () => unknown, runs: number, warmup: number): Timing & { spread: Spread } {
  let last = Infinity;
  for (let index = 0; index < warmup; index++) last = cpuMsPerCall(work);
  const repeat = warmup === 0 ? 1 : repeatFor(last);
  const times: number[] = [];
  for (let index = 0; index < runs; index++) times.push(cpuMsPerCall(work, repeat));
  return { ms: median(times), samples: runs, spread: spreadOf(times) };
}

/**
 * Steady-state timing: the first (cold) run, warm-up until steady, then the median of `runs` samples.
 * A call that takes under MIN_SAMPLE_MS is repeated within each sample (the sample divided by the
 * repeat count), so the growth of a 0.05 ms row is a ratio of times, not of jitter.
 */
function timeSteady(work: () => unknown, runs: number, minWarmup = 3, maxWarmup = 10): { cold: number; median: number; spread: Spread } {
  const batch = (repeat: number): number => cpuMsPerCall(work, repeat);
  const cold = batch(1);
  let previous = cold;
  for (let index = 0; index < maxWarmup; index++) {
    const spent = batch(1);
    const improving = spent < 0.9 * previous;
    previous = spent;
    if (index + 1 >= minWarmup && !improving) break;
  }
  const repeat = repeatFor(previous);
  const times: number[] = [];
  for (let index = 0; index < runs; index++) times.push(batch(repeat));
  return { cold, median: median(times), spread: spreadOf(times) };
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

/** Millions of chars per second at `ms` per run. */
const rateOf = (chars: number, ms: number): number => chars / 1e6 / (ms / 1000);

// ------------------------------------------------------------------ four contracts

interface ContractsResult {
  /** Linear MB/s of the four contracts on the corpus and on the 1M-char synthetic note, when measured. */
  corpusRate?: number;
  noteRate?: number;
  /** Their spreads in MB/s, from the spread of the timing samples. */
  corpusSpread?: Spread;
  noteSpread?: Spread;
}

function contractsSection(inputs: Input[], options: BenchOptions, report: Report): ContractsResult {
  const { quick, runs, warmup } = options;
  // The linear pass is cheap: --quick times it as the full run does.
  const linearRuns = Math.max(runs, 15);
  const linearWarmup = 4;
  const result: ContractsResult = {};
  progress(`four contracts: ${inputs.length} inputs`);
  report.section('Four contracts: micromark oracle (analyzeWithMdast) vs linear (analyzeNote)');
  const rows: string[][] = [];
  for (const input of inputs) {
    const withOracle = !quick || (input.chars <= 10_000 && input.notes.length === 1);
    // No forced collection between the two: after gc() the linear pass ran up to 5x slower for
    // a while (10 KB and 100 KB notes, a standalone loop), a state a Worker isolate never sees.
    const oracle = withOracle ? timeMedian(() => runInput(analyzeWithMdast, input), quick ? 1 : runs, quick ? 0 : warmup) : null;
    const linear = timeMedian(() => runInput(analyzeNote, input), linearRuns, linearWarmup);
    const oracleHeap = withOracle && !quick ? peakHeap(() => runInput(analyzeWithMdast, input)) : null;
    const linearHeap = peakHeap(() => runInput(analyzeNote, input));
    const linearRate = rateOf(input.chars, linear.ms);
    const linearSpread = { low: rateOf(input.chars, linear.spread.high), high: rateOf(input.chars, linear.spread.low) };
    if (input.notes.length > 1) [result.corpusRate, result.corpusSpread] = [linearRate, linearSpread];
    else if (input.chars === 1_000_000) [result.noteRate, result.noteSpread] = [linearRate, linearSpread];
    rows.push([
      input.name,
      String(input.chars),
      oracle ? figure(rateOf(input.chars, oracle.ms), 2) : '-',
      figure(linearRate, 2),
      (oracle && ratioOf(oracle, linear)) ?? '-',
      oracleHeap ? figure(oracleHeap.bytes / input.chars, 1) : '-',
      `${figure(linearHeap.bytes / input.chars, 2)}${linearHeap.collections === 0 ? '' : ` (${linearHeap.collections} gc)`}`,
    ]);
  }
  report.table(
    [
      { header: 'input', text: true },
      { header: 'chars' },
      { header: 'oracle MB/s' },
      { header: 'linear MB/s' },
      { header: 'speed-up' },
      { header: 'oracle B/char' },
      { header: 'linear B/char' },
    ],
    rows,
  );
  report.legend([
    ['MB/s', 'millions of chars per second of CPU time; one run = the four contracts on every note (three analyses per note)'],
    [
      'samples',
      quick
        ? `the linear pass: median of ${linearRuns} after ${linearWarmup} warm-up runs; the oracle: ONE run, on the 10 KB note only (--quick)`
        : `the oracle: median of ${runs} after ${warmup} warm-up runs; the linear pass: of ${linearRuns} after ${linearWarmup}`,
    ],
    ['batching', `after warm-up, a call under ${MIN_SAMPLE_MS} ms is repeated within each sample`],
    ['speed-up', `oracle time / linear time, only when both are medians of ${MIN_RATIO_SAMPLES} or more samples`],
    ['B/char', 'peak growth of used heap plus ArrayBuffer memory during one run, per input char (gc = collections in the run)'],
  ]);
  return result;
}

const TEXT_CONSTRUCTS = [
  'attention', 'autolink', 'characterEscape', 'characterReference', 'codeText', 'hardBreakEscape',
  'htmlText', 'labelEnd', 'labelStartImage', 'labelStartLink',
];

function alternativesSection(input: Input, options: BenchOptions, report: Report): void {
  const body = (input.notes[0] as Note).body;
  const noInline = { extensions: [{ disable: { null: TEXT_CONSTRUCTS } }] };
  const events = (parseOptions?: typeof noInline) =>
    postprocess(parse(parseOptions).document().write(preprocess()(body, undefined, true))).length;
  const candidates: [string, () => unknown][] = [
    ['fromMarkdown (reference analyzer: micromark + mdast)', () => analyzeWithMdast(body)],
    ['micromark events only (no mdast)', () => events()],
    ['micromark events, inline constructs disabled', () => events(noInline)],
    ['fromMarkdown, inline constructs disabled', () => fromMarkdown(body, noInline)],
    ['linear: block scan only (scanBlocks)', () => scanBlocks(body)],
    ['linear: analyzeNote (block scan + inline pass + NFC)', () => analyzeNote(body)],
  ];
  progress(`alternatives: ${candidates.length} analyzers on ${input.name}`);
  report.section(`One analysis of the ${input.name} note, alternatives (median of ${options.runs})`);
  const rows: string[][] = [];
  let baseline: Timing | null = null;
  for (const [name, work] of candidates) {
    const timing = timeMedian(work, options.runs, options.warmup);
    baseline ??= timing;
    rows.push([name, figure(rateOf(body.length, timing.ms), 2), ratioOf(baseline, timing) ?? '-']);
  }
  report.table([{ header: 'analyzer', text: true }, { header: 'MB/s' }, { header: 'vs fromMarkdown' }], rows);
}

// ------------------------------------------------------------------ pathological inputs

/** One request's contract work in-process: section_source = one analysis + outline + tree + sections. */
function requestWork(body: string): number {
  // Unbounded: a shape whose section source would pass 4 MiB is still timed building it (the Worker would refuse it sized).
  const payload = buildContract('section_source', 'bench/pathological.md', {}, body, { maxBytes: Number.POSITIVE_INFINITY });
  return payload.sections.length;
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
function timeInterleaved(works: ReadonlyArray<() => unknown>, runs: number): { medians: number[]; spreads: Spread[] } {
  const repeats = works.map((work) => {
    let spent = cpuMsPerCall(work);
    for (let index = 0; index < 3; index++) spent = cpuMsPerCall(work);
    return repeatFor(spent);
  });
  const samples = works.map((): number[] => []);
  for (let round = 0; round < runs; round++) works.forEach((work, index) => samples[index]?.push(cpuMsPerCall(work, repeats[index] as number)));
  return { medians: samples.map(median), spreads: samples.map(spreadOf) };
}

/** One pathological row's figures. */
interface PathologicalRow {
  shape: string;
  position: Position;
  cold: number;
  small: number;
  smallSpread: Spread;
  top: number;
  rate: number;
  rateSpread: Spread;
  growth: number;
  /** The top size's median over the one below it (full run only). */
  lastRatio: number;
  heap: number;
}

interface PathologicalResult {
  rows: PathologicalRow[];
  /** The size of the rate column (1M; 200K in --quick) and the growth fit's range. */
  topLabel: string;
  fitLabel: string;
}

const POSITION_LABEL: Record<Position, string> = { atx: 'atx', setext: 'setext', paragraph: 'para', block: 'block' };

function pathologicalSection(options: BenchOptions, report: Report): PathologicalResult {
  const { quick, only } = options;
  const small = 100_000;
  // Growth is fitted over these sizes; the last one is the rate's size.
  const ladder = quick ? [100_000, 200_000] : [125_000, 250_000, 500_000, 1_000_000];
  const top = ladder[ladder.length - 1] as number;
  const topLabel = quick ? '200K' : '1M';
  const fitLabel = quick ? '100K-200K' : '125K-1M';
  const runs = quick ? 5 : 7;
  // --quick: every shape once, in its worst position for time (the ATX heading) or as the whole note.
  const cases = pathologicalCases().filter(
    (each) => (!quick || each.position === 'atx' || each.position === 'block') && (only === null || each.shape.name.includes(only)),
  );
  report.section('Pathological inputs (cmark and md4c test/pathological_tests.py), one request in-process');
  progress(`pathological inputs: ${cases.length} rows${cases.length > 20 && !quick ? ' (a few minutes)' : ''}`);
  // Every row is timed first, then every row's memory is probed: a probe forces full collections,
  // which would otherwise change how the next rows' runs are collected and so their times.
  const rows: PathologicalRow[] = [];
  for (const [index, { shape, position }] of cases.entries()) {
    if (process.stderr.isTTY) process.stderr.write(`\r  row ${index + 1} of ${cases.length}`);
    const smallBody = asTheWorkerReadsIt(pathologicalNote(shape, position, small));
    // Warmed until steady before any size is sampled, so the first size pays no JIT warm-up.
    const steady = timeSteady(() => requestWork(smallBody), quick ? 5 : 9, quick ? 3 : 5, quick ? 8 : 12);
    const bodies = ladder.map((chars) => asTheWorkerReadsIt(pathologicalNote(shape, position, chars)));
    const { medians: times, spreads } = timeInterleaved(bodies.map((body) => () => requestWork(body)), runs);
    const atTop = times[times.length - 1] as number;
    const topSpread = spreads[spreads.length - 1] as Spread;
    rows.push({
      shape: shape.name,
      position,
      cold: steady.cold,
      small: steady.median,
      smallSpread: steady.spread,
      top: atTop,
      rate: rateOf(top, atTop),
      rateSpread: { low: rateOf(top, topSpread.high), high: rateOf(top, topSpread.low) },
      growth: fittedGrowth(ladder.map((chars, at) => [chars, times[at] as number])),
      lastRatio: atTop / (times[times.length - 2] as number),
      heap: NaN,
    });
  }
  if (process.stderr.isTTY) process.stderr.write('\n');
  // Heap at 1M in both runs. --quick never timed that size, so one run first, as the full run's
  // timing runs did: buffers kept between calls then count in the baseline, not in the peak.
  const heapChars = 1_000_000;
  cases.forEach(({ shape, position }, index) => {
    const body = asTheWorkerReadsIt(pathologicalNote(shape, position, heapChars));
    if (quick) requestWork(body);
    (rows[index] as PathologicalRow).heap = peakHeap(() => requestWork(body)).bytes / body.length;
  });
  reportPathological(rows, { quick, topLabel, fitLabel, runs }, report);
  return { rows, topLabel, fitLabel };
}

function reportPathological(rows: PathologicalRow[], run: { quick: boolean; topLabel: string; fitLabel: string; runs: number }, report: Report): void {
  const { quick, topLabel, fitLabel } = run;
  // A full run marks each figure that misses its target; a --quick run has too few samples to say.
  const mark = (missed: boolean): string => (!quick && missed ? '!' : '');
  report.table(
    [
      { header: 'shape', text: true },
      { header: 'pos', text: true },
      { header: 'cold' },
      { header: '100K ms' },
      { header: `${topLabel} ms` },
      { header: 'MB/s' },
      { header: 'growth' },
      ...(quick ? [] : [{ header: '1M/500K' }]),
      { header: 'B/char' },
    ],
    rows.map((row) => [
      row.shape,
      POSITION_LABEL[row.position],
      figure(row.cold, 2),
      `${figure(row.small, 2)}${mark(row.small > TARGET.smallMs)}`,
      figure(row.top, 1),
      `${figure(row.rate, 1)}${mark(row.rate < TARGET.rate)}`,
      `${figure(row.growth, 2)}${mark(row.growth > TARGET.growth)}`,
      ...(quick ? [] : [figure(row.lastRatio, 2)]),
      `${figure(row.heap, 2)}${mark(row.heap > TARGET.heap)}`,
    ]),
  );
  report.legend([
    ['pos', 'atx = in an ATX heading, setext = in a setext heading, para = in a paragraph, block = the whole note'],
    ['cold', 'ms of the first run at 100K, before any warm-up (JIT warm-up after switching shapes); no target'],
    [
      '100K ms',
      quick
        ? 'median of 5 samples at 100K after warm-up until steady (3-8 runs)'
        : 'median of 9 samples at 100K after warm-up until steady (5-12 runs)',
    ],
    [
      `${topLabel} ms, MB/s`,
      quick
        ? `median at 200K of ${run.runs} samples, 100K and 200K sampled in turn after 4 warm-up runs each; MB/s at 200K`
        : `median at 1M of ${run.runs} samples, 125K, 250K, 500K and 1M sampled in turn after 4 warm-up runs each; MB/s at 1M`,
    ],
    ['growth', `per doubling, fitted over ${fitLabel} (2 ** slope of log time on log chars; linear 2.0, quadratic 4.0)`],
    ...(quick ? [] : ([['1M/500K', 'the ratio of those two medians alone (shown, no target)']] as [string, string][])),
    [
      'B/char',
      `peak used heap + ArrayBuffers of one run at 1M, per char, probed after every row is timed` +
        (quick ? ' (--quick: after one unmeasured run at 1M)' : ''),
    ],
    ['batching', `a call under ${MIN_SAMPLE_MS} ms is repeated within each sample`],
    [
      'targets',
      `at most ${TARGET.smallMs} ms at 100K, growth at most ${TARGET.growth}, at least ${TARGET.rate} MB/s at 1M, at most ${TARGET.heap} B/char` +
        (quick ? ' (--quick: not judged per row; see the summary)' : '; ! marks a miss'),
    ],
  ]);
  if (rows.length === 0) return;
  const worst = (pick: (row: PathologicalRow) => number, max = true): number =>
    rows.reduce((acc, row) => (max ? Math.max(acc, pick(row)) : Math.min(acc, pick(row))), max ? -Infinity : Infinity);
  report.raw('');
  report.text(
    `worst: ${figure(worst((row) => row.small), 2)} ms at 100K (cold first run ${figure(worst((row) => row.cold), 2)} ms), ` +
      `growth ${figure(worst((row) => row.growth), 2)}x per doubling, ${figure(worst((row) => row.rate, false), 1)} MB/s at ${topLabel}, ` +
      `heap ${figure(worst((row) => row.heap), 2)} B/char`,
  );
}

// ------------------------------------------------------------------ summary

/** What the summary reads from the sections that ran (each absent when it did not run). */
interface Results {
  contracts?: ContractsResult;
  corpusFound: boolean;
  pathological?: PathologicalResult;
  endToEnd?: EndToEndResult;
  startup?: StartupResult;
  fixed?: FixedCostResult;
}

type Section = 'contracts' | 'pathological' | WorkerSection;

/** The option that kept `section` from running (for a target's "not measured" reason). */
function skippedBy(section: Section, options: BenchOptions): string {
  if (options.only !== null) return '--only';
  if (options.onlySections.length > 0 && !(options.onlySections as Section[]).includes(section)) {
    return options.onlySections.map((each) => `--only-${each}`).join(' ');
  }
  if (section === 'pathological') return '--no-pathological';
  if (section === 'contracts') return 'not run';
  if (!options.e2e) return '--no-e2e';
  return section === 'startup' ? '--no-startup' : section === 'fixed' ? '--no-fixed' : 'not run';
}

/** A target over `values`, or not measured for `skipped`; `spreads` per value, or `deterministic`. */
function check(
  label: string,
  bound: number,
  values: number[] | undefined,
  skipped: string | undefined,
  unit: string,
  digits: number,
  judging: { kind?: 'max' | 'min'; spreads?: (Spread | undefined)[]; deterministic?: boolean } = {},
): TargetCheck {
  const { kind = 'max', spreads, deterministic } = judging;
  return {
    label,
    bound,
    kind,
    values: values ?? [],
    unit,
    digits,
    ...(spreads ? { spreads } : {}),
    ...(deterministic ? { deterministic } : {}),
    ...(skipped !== undefined || values === undefined ? { skipped: skipped ?? 'not measured' } : {}),
  };
}

/** The targets of the Worker sections: startup, fixed cost and the heavy rows through the Worker. */
function workerChecks(results: Results, options: BenchOptions): TargetCheck[] {
  const { startup, fixed, endToEnd } = results;
  const noStartup = startup === undefined ? skippedBy('startup', options) : undefined;
  const firstRows = (rest: boolean): FirstRequestRow[] | undefined =>
    startup?.first?.filter((row) => isJudgedFirst(row.kind) && (row.kind === 'rest') === rest);
  // The spread over the fresh starts of each one's first request over its own warm median.
  const firstSpread = (row: FirstRequestRow): Spread => spreadOf(row.first.map((first, index) => first - (row.warm[index] as number)));
  const firstCheck = (rest: boolean, bound: number): TargetCheck =>
    check(
      `first ${rest ? 'REST read' : 'MCP call'}, fresh isolate, at most +${bound} ms`,
      bound,
      firstRows(rest)?.map((row) => row.overWarm),
      noStartup ?? startup?.firstFailure,
      'ms',
      2,
      { spreads: firstRows(rest)?.map(firstSpread) },
    );
  const noFixed = fixed === undefined ? skippedBy('fixed', options) : fixed.skipped ?? (fixed.cpuMeasured ? undefined : 'no /proc');
  const noE2e = endToEnd === undefined ? skippedBy('e2e', options) : endToEnd.skipped ?? (endToEnd.cpuMeasured ? undefined : 'no /proc');
  const mcpOverRest = fixed?.mcpOverRest && [...fixed.mcpOverRest, ...(fixed.read?.mcpOverRead ?? [])];
  return [
    check(`startup CPU (check startup), at most ${STARTUP_TARGET.cpuMs} ms`, STARTUP_TARGET.cpuMs, startup?.cpu ? [startup.cpu.median] : undefined, noStartup ?? startup?.cpuFailure, 'ms', 2, {
      spreads: startup?.cpu ? [{ low: startup.cpu.min, high: startup.cpu.max }] : undefined,
    }),
    check(`bundle gzip, at most ${STARTUP_TARGET.gzipKiB} KiB`, STARTUP_TARGET.gzipKiB, startup?.bundle ? [startup.bundle.gzipKiB] : undefined, noStartup ?? startup?.bundleFailure, 'KiB', 2, {
      deterministic: true,
    }),
    firstCheck(true, STARTUP_TARGET.firstRestMs),
    firstCheck(false, STARTUP_TARGET.firstMcpMs),
    check(`REST read fixed CPU (404-health), at most ${FIXED_TARGET.restFixedMs} ms`, FIXED_TARGET.restFixedMs, fixed?.restFixed === undefined ? undefined : [fixed.restFixed.ms], noFixed, 'ms', 2, {
      spreads: fixed?.restFixed && [fixed.restFixed.spread],
    }),
    check(`MCP tools/call over REST, at most ${FIXED_TARGET.mcpOverRestMs} ms CPU`, FIXED_TARGET.mcpOverRestMs, mcpOverRest?.map((each) => each.ms), noFixed, 'ms', 2, {
      spreads: mcpOverRest?.map((each) => each.spread),
    }),
    check(
      `corpus REST read over the floor, at most ${FIXED_TARGET.readOverFloor}x`,
      FIXED_TARGET.readOverFloor,
      fixed?.read ? [fixed.read.ratio] : undefined,
      noFixed ?? (fixed?.read ? undefined : 'no corpus at ../shared/corpus'),
      'x',
      2,
      { spreads: fixed?.read && [fixed.read.ratioSpread] },
    ),
    check(`1M inline-syntax notes, at most ${HEAVY_CPU_MS} ms Worker CPU`, HEAVY_CPU_MS, endToEnd?.heavyRows?.map((row) => row.cpu), noE2e, 'ms', 1),
  ];
}

function targetChecks(results: Results, options: BenchOptions): TargetCheck[] {
  const rows = results.pathological?.rows ?? [];
  const topLabel = results.pathological?.topLabel ?? (options.quick ? '200K' : '1M');
  const noRows = results.pathological === undefined ? skippedBy('pathological', options) : undefined;
  const onRows = (
    label: string,
    bound: number,
    kind: 'max' | 'min',
    pick: (row: PathologicalRow) => number,
    unit: string,
    digits: number,
    judging: { spreadOf?: (row: PathologicalRow) => Spread; deterministic?: boolean } = {},
  ): TargetCheck => ({
    label,
    bound,
    kind,
    values: rows.map(pick),
    ...(judging.spreadOf ? { spreads: rows.map(judging.spreadOf) } : {}),
    ...(judging.deterministic ? { deterministic: true } : {}),
    unit,
    digits,
    ...(noRows ? { skipped: noRows } : rows.length === 0 ? { skipped: `no shape holds "${options.only}"` } : {}),
  });
  const contracts = results.contracts;
  const noContracts = contracts === undefined ? skippedBy('contracts', options) : undefined;
  const onInput = (label: string, bound: number, value: number | undefined, spread: Spread | undefined, missing: string): TargetCheck => ({
    label,
    bound,
    kind: 'min',
    values: value === undefined ? [] : [value],
    spreads: [spread],
    unit: 'MB/s',
    digits: 1,
    ...(noContracts ? { skipped: noContracts } : value === undefined ? { skipped: missing } : {}),
  });
  const fit = results.pathological?.fitLabel ?? (options.quick ? '100K-200K' : '125K-1M');
  return [
    onRows(`100 KB, every shape, at most ${TARGET.smallMs} ms`, TARGET.smallMs, 'max', (row) => row.small, 'ms', 2, { spreadOf: (row) => row.smallSpread }),
    onRows(`growth per doubling, ${fit}, at most ${TARGET.growth}x`, TARGET.growth, 'max', (row) => row.growth, 'x', 2),
    onRows(`${topLabel} chars, every shape, at least ${TARGET.rate} MB/s`, TARGET.rate, 'min', (row) => row.rate, 'MB/s', 1, { spreadOf: (row) => row.rateSpread }),
    onInput(`corpus, four contracts, at least ${TARGET.corpusRate} MB/s`, TARGET.corpusRate, contracts?.corpusRate, contracts?.corpusSpread, 'no corpus at ../shared/corpus'),
    onInput(`1 MB note, four contracts, at least ${TARGET.noteRate} MB/s`, TARGET.noteRate, contracts?.noteRate, contracts?.noteSpread, 'not run'),
    onRows(`heap at 1M, every shape, at most ${TARGET.heap} B/char`, TARGET.heap, 'max', (row) => row.heap, 'B/char', 2, { deterministic: true }),
    ...workerChecks(results, options),
  ];
}

function summary(results: Results, options: BenchOptions, started: Date): string[] {
  const lines: string[] = [];
  const text = (paragraph: string, indent = ''): void => void lines.push(...wrap(paragraph, WIDTH, indent));
  const checks = targetChecks(results, options);
  lines.push(`## Summary: the targets of docs/PERFORMANCE.md${options.quick ? ' (--quick: fewer samples, smaller sizes)' : ''}`, '');
  const labelWidth = Math.max(...checks.map((check) => check.label.length)) + 1;
  for (const check of checks) {
    const line = verdictLine(check, labelWidth);
    // A long line breaks after the column it keeps aligned; its tail wraps under the label.
    const cut = line.length <= WIDTH ? line.length : line.lastIndexOf(' ', WIDTH);
    lines.push(line.slice(0, cut));
    if (cut < line.length) lines.push(...wrap(line.slice(cut + 1), WIDTH - 7).map((each) => `${' '.repeat(7)}${each}`));
  }
  lines.push('');
  const verdicts = checks.map(checkVerdict).filter((each) => each !== null);
  const count = (word: string): number => verdicts.filter((each) => each === word).length;
  text(`verdict: ${count('PASS')} PASS, ${count('FAIL')} FAIL, ${count('NOISY')} NOISY of ${verdicts.length} measured targets (NOISY: this run's spread straddles the bound)`);
  const endToEnd = results.endToEnd;
  if (endToEnd?.healthCpu !== undefined && endToEnd.cpuMeasured) {
    text(`machine: a no-op GET /health took ${endToEnd.healthCpu.toFixed(2)} ms of workerd CPU in this run (quote it with the figures)`);
  } else if (results.fixed?.healthCpu !== undefined && results.fixed.cpuMeasured) {
    text(
      `machine: a no-op GET /health took ${results.fixed.healthCpu.toFixed(2)} ms of workerd CPU on the Worker's own socket ` +
        '(fixed-cost section; the end-to-end figure, through the entry worker, is higher)',
    );
  }
  const read = results.fixed?.read;
  if (read !== undefined) {
    text(
      `read floor, workerd CPU per corpus read net of a no-op exchange: ours ${read.ours.toFixed(3)} ms, the floor ` +
        `${read.floor.toFixed(3)} ms, ratio ${read.ratio.toFixed(2)}x (our /health ${read.ourHealth.toFixed(3)} ms); MCP over that read ` +
        read.mcpOverRead.map((each) => `${each.ms.toFixed(3)} ms (${each.era})`).join(', '),
      '    ',
    );
  }
  const sdkFloor = results.fixed?.sdkFloor;
  if (sdkFloor !== undefined) {
    text(
      "MCP floor, the official SDK's own tools/call over a JSON GET (its cost of one exchange, which every MCP call " +
        `carries): ${sdkFloor.map((each) => `${each.ms.toFixed(3)} ms (${each.era})`).join(', ')}`,
      '    ',
    );
  }
  const firstRows = results.startup?.first ?? [];
  /** A fresh isolate's first request over its warm ones: wall ms (what the targets read) / workerd CPU ms. */
  const firstOver = (kind: FirstKind): string | null => {
    const row = firstRows.find((each) => each.kind === kind);
    if (!row || !Number.isFinite(row.overWarm)) return null;
    return `${row.overWarm.toFixed(2)} / ${row.firstCpu.length > 0 ? (median(row.firstCpu) - median(row.warmCpu)).toFixed(2) : '-'}`;
  };
  const [restFirst, floorFirst] = [firstOver('rest'), firstOver('floor')];
  if (restFirst !== null && floorFirst !== null) {
    const perEra = (floor: boolean): string => MCP_ERAS.map((era) => `${firstOver(floor ? `sdk ${era}` : era) ?? '-'} (${era})`).join(', ');
    text(
      `first request on a fresh isolate over a warm one, wall / workerd CPU ms: REST read ${restFirst}, the read floor's ` +
        `same read ${floorFirst}; MCP call ${perEra(false)}, the MCP floor's ${perEra(true)}`,
      '    ',
    );
  }
  const rateLimit = results.fixed?.rateLimit;
  if (rateLimit !== undefined) text(`local rate-limit simulation: ${rateLimit.toFixed(2)} ms of workerd CPU per 404 (not in the REST figure)`);
  const scope = endToEnd?.scope;
  if (scope && endToEnd.cpuMeasured) {
    const [outside, missing, inside] = scope.rows;
    if (outside && missing && inside) {
      const cell = (row: typeof outside): string => `${row.cpu.toFixed(2)} / ${row.p50.toFixed(2)}`;
      text(
        `folders-only scope, workerd CPU / p50 ms: outside, existing 1 MB note ${cell(outside)}; outside, missing ` +
          `${cell(missing)}; inside, missing (one canister read) ${cell(inside)}`,
        '    ',
      );
    }
  }
  if (endToEnd?.skipped) text(`end to end: skipped (${endToEnd.skipped})`);
  if (results.fixed?.skipped) text(`fixed cost: skipped (${results.fixed.skipped})`);
  const failed = [results.startup?.cpuFailure, results.startup?.bundleFailure, results.startup?.firstFailure].filter(Boolean);
  if (failed.length > 0) text(`startup: ${failed.join('; ')} (see the Startup section)`);
  const commit = headCommit();
  text(`run: ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${Math.round((Date.now() - started.getTime()) / 1000)} s${commit ? `, HEAD ${commit}` : ''}`);
  return lines;
}

/** The short commit id of HEAD, or null outside a git checkout (read-only). */
function headCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || null;
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------ main

/** buildContract note_outline per note in Node, for comparison with the Worker. */
function inProcessMs(input: { notes: { path: string; body: string }[] }, quick: boolean): number {
  const timing = timeMedian(() => {
    for (const note of input.notes) buildContract('note_outline', note.path, {}, note.body);
  }, quick ? 3 : 7, 1);
  return timing.ms / input.notes.length;
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  const started = new Date();
  const report = new Report();
  const cpus = os.cpus();
  const heading = `# bench${options.quick ? ' --quick' : ''}: ${cpus.length} cpus, ${cpus[0]?.model.trim() ?? 'unknown cpu'}, node ${process.version}`;
  const results: Results = { corpusFound: false };
  const workerSections = async (corpus: Input | null, note10k: Input, note1m: Input, picked: (section: WorkerSection) => boolean): Promise<void> => {
    if (picked('e2e')) {
      results.endToEnd = await endToEndSection([...(corpus ? [corpus] : []), note10k, note1m, ...heavyInputs()], {
        quick: options.quick,
        repoRoot,
        report,
        progress,
        inProcessMs: (input) => inProcessMs(input, options.quick),
      });
    }
    if (picked('startup')) results.startup = await startupSection({ quick: options.quick, repoRoot, report, progress });
    if (picked('fixed')) {
      // A 10-char note ('# Note' and a two-letter paragraph) and a 5,000-char synthetic one.
      const smallBody = asTheWorkerReadsIt('# Note\n\nHi');
      const mediumBody = asTheWorkerReadsIt(syntheticNote(5_000, 5));
      const readNotes = (corpus?.notes ?? []).map((note) => ({ path: note.path, wireFrontmatter: JSON.stringify(note.frontmatter), body: note.body }));
      results.fixed = await fixedCostSection({ quick: options.quick, repoRoot, report, progress, smallBody, mediumBody, readNotes });
    }
  };
  try {
    if (options.only !== null) {
      results.pathological = pathologicalSection(options, report);
      return;
    }
    if (options.onlySections.length > 0) {
      const picked = (section: WorkerSection): boolean => options.onlySections.includes(section);
      const corpus = picked('e2e') || picked('fixed') ? loadCorpus() : null;
      results.corpusFound = corpus !== null;
      const note10k = syntheticInput('synthetic-10k', 10_000, 10);
      const note1m = picked('e2e') ? syntheticInput('synthetic-1m', 1_000_000, 1000) : note10k;
      await workerSections(corpus, note10k, note1m, picked);
      return;
    }
    const corpus = loadCorpus();
    results.corpusFound = corpus !== null;
    if (!corpus) report.text(`corpus not found at ${sharedRoot}/corpus: benching synthetic notes only`);
    const synthetic = [
      syntheticInput('synthetic-10k', 10_000, 10),
      syntheticInput('synthetic-100k', 100_000, 100),
      syntheticInput('synthetic-1m', 1_000_000, 1000),
    ];
    const [note10k, note100k, note1m] = synthetic as [Input, Input, Input];
    results.contracts = contractsSection([...(corpus ? [corpus] : []), ...(options.quick ? [note10k, note1m] : [note10k, note100k, note1m])], options, report);
    if (!options.quick) alternativesSection(note1m, options, report);
    if (options.pathological) results.pathological = pathologicalSection(options, report);
    await workerSections(corpus, note10k, note1m, (section) =>
      section === 'e2e' ? options.e2e : section === 'startup' ? options.startup : options.fixed,
    );
  } finally {
    const detail = options.detail ? report.output() : ['', 'detail (every table, with what its columns mean): npm run bench -- --detail'];
    const lines = [...wrap(heading), '', ...summary(results, options, started), ...detail];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

// Runs only as a script, so the synthetic-note generator and fittedGrowth can be imported.
if (isEntryPoint(import.meta.url)) await main();
