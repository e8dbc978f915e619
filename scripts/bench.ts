/**
 * The bench of docs/PERFORMANCE.md: the four contracts in-process, then the Worker end to end. The
 * engine alone (the analysis against the micromark oracle, the pathological inputs) has its own
 * bench, `npm run bench:engine` (packages/note-structure/bench/engine.ts).
 * It prints a summary of the targets (PASS, FAIL or NOISY, by how much), and with --detail the detail:
 *
 * - Four contracts: throughput of the four contracts on the request path, over the shared corpus
 *   and synthetic 10 KB / 100 KB / 1,000,000-char notes.
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
 *   node --expose-gc --import tsx scripts/bench.ts [--quick] [--no-e2e] [--no-startup] [--no-fixed]
 *     [--only-startup] [--only-fixed] [--only-e2e]
 *
 * Timing: median CPU time (process.cpuUsage, user + system, so other processes on a shared
 * machine do not inflate it) of N runs after warm-up; a call under MIN_SAMPLE_MS is repeated
 * within each sample. In the contracts table one run = the four contracts on every note of the
 * input (three analyses per note, as the builders do). MB/s means millions of UTF-16 chars per
 * second.
 *
 * Verdicts (scripts/lib/bench-report.ts, judge): a target PASSes when the run's own spread of its figure
 * (min to max of a few repetitions, the interquartile range of more) meets the bound, FAILs when none
 * of it does, and is NOISY when the spread straddles the bound. Bundle size is deterministic: PASS
 * or FAIL on the value. A figure the run has one sample of is judged on it.
 *
 * --quick (the same verdicts from fewer samples): fewer requests through the Worker; 2 startup
 * profiles and 2 fresh starts per kind (10 warm repeats); one pass over the corpus notes per
 * fixed-cost kind (three in a full run). --only-startup, --only-fixed and --only-e2e run just those
 * Worker sections (combinable).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PATHOLOGICAL_SHAPES, pathologicalNote, syntheticNote } from '@knowtation/note-structure';
import { buildAllContracts, buildContract, decodeWireFrontmatter, type Frontmatter } from '../src/contracts';
import { parseOptionsOrExit } from './cli-options.mjs';
import { checkVerdict, figure, median, Report, spreadOf, verdictLine, WIDTH, wrap, type Spread, type TargetCheck, type Timing } from './lib/bench-report';
import { FIXED_TARGET, fixedCostSection, type FixedCostResult } from './lib/bench-fixed';
import { isJudgedFirst, STARTUP_TARGET, startupSection, type FirstKind, type FirstRequestRow, type StartupResult } from './lib/bench-startup';
import { endToEndSection, HEAVY_CPU_MS, type EndToEndResult } from './lib/bench-worker';
import { MCP_ERAS } from './lib/worker-api';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sharedRoot = path.resolve(repoRoot, '../shared');

const USAGE = [
  'usage: npm run bench -- [--quick] [--detail] [--no-e2e] [--no-startup] [--no-fixed]',
  '                        [--only-startup] [--only-fixed] [--only-e2e]',
  '  (= node --expose-gc --import tsx scripts/bench.ts ...; the full run takes 5-12 minutes)',
  '  --quick            a few minutes: fewer samples and sizes (more targets may read NOISY)',
  '  --detail           every section\'s tables and notes after the summary',
  '  --no-e2e           skip every Worker section (end to end, startup, fixed cost)',
  '  --no-startup       skip the startup section (wrangler check startup, bundle, first request)',
  '  --no-fixed         skip the fixed-cost section (workerd CPU per request by kind)',
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
  e2e: boolean;
  startup: boolean;
  fixed: boolean;
  /** The Worker sections named by --only-*, alone; empty when none was. */
  onlySections: WorkerSection[];
}

function readOptions(argv: string[]): BenchOptions {
  const flags = { type: 'boolean' } as const;
  const options = {
    quick: flags,
    detail: flags,
    'no-e2e': flags,
    'no-startup': flags,
    'no-fixed': flags,
    'only-startup': flags,
    'only-fixed': flags,
    'only-e2e': flags,
  } as const;
  return parseOptionsOrExit(argv, options, USAGE, (values, UsageError) => {
    const quick = values.quick === true;
    const onlySections = (['startup', 'fixed', 'e2e'] as const).filter((section) => values[`only-${section}`] === true);
    for (const section of onlySections) {
      if (values[`no-${section}`] === true || values['no-e2e'] === true) throw new UsageError(`--only-${section} and --no-${values['no-e2e'] === true ? 'e2e' : section} exclude each other`);
    }
    const e2e = values['no-e2e'] !== true;
    return {
      quick,
      detail: values.detail === true,
      e2e,
      startup: e2e && values['no-startup'] !== true,
      fixed: e2e && values['no-fixed'] !== true,
      onlySections,
    };
  });
}

/** The targets of docs/PERFORMANCE.md that the bench measures. */
const TARGET = {
  /** The four contracts on the corpus: at least this many MB/s. */
  corpusRate: 30,
  /** The four contracts on the 1,000,000-char synthetic note: at least this many MB/s. */
  noteRate: 40,
} as const;

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
  const paragraphs = PATHOLOGICAL_SHAPES.filter((shape) => shape.name.startsWith('paragraphs of '));
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

function runInput(input: Input): number {
  let sink = 0;
  for (const note of input.notes) {
    const payloads = buildAllContracts(note.path, note.frontmatter, note.body);
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

function contractsSection(inputs: Input[], report: Report): ContractsResult {
  const runs = 15;
  const warmup = 4;
  const result: ContractsResult = {};
  progress(`four contracts: ${inputs.length} inputs`);
  report.section('Four contracts on the request path, in-process');
  const rows: string[][] = [];
  for (const input of inputs) {
    const timing = timeMedian(() => runInput(input), runs, warmup);
    const rate = rateOf(input.chars, timing.ms);
    const spread = { low: rateOf(input.chars, timing.spread.high), high: rateOf(input.chars, timing.spread.low) };
    if (input.notes.length > 1) [result.corpusRate, result.corpusSpread] = [rate, spread];
    else if (input.chars === 1_000_000) [result.noteRate, result.noteSpread] = [rate, spread];
    rows.push([input.name, String(input.chars), figure(rate, 2)]);
  }
  report.table([{ header: 'input', text: true }, { header: 'chars' }, { header: 'MB/s' }], rows);
  report.legend([
    ['MB/s', 'millions of chars per second of CPU time; one run = the four contracts on every note (three analyses per note)'],
    ['samples', `median of ${runs} after ${warmup} warm-up runs; after warm-up, a call under ${MIN_SAMPLE_MS} ms is repeated within each sample`],
  ]);
  return result;
}

// ------------------------------------------------------------------ summary

/** What the summary reads from the sections that ran (each absent when it did not run). */
interface Results {
  contracts?: ContractsResult;
  corpusFound: boolean;
  endToEnd?: EndToEndResult;
  startup?: StartupResult;
  fixed?: FixedCostResult;
}

type Section = 'contracts' | WorkerSection;

/** The option that kept `section` from running (for a target's "not measured" reason). */
function skippedBy(section: Section, options: BenchOptions): string {
  if (options.onlySections.length > 0 && !(options.onlySections as Section[]).includes(section)) {
    return options.onlySections.map((each) => `--only-${each}`).join(' ');
  }
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
  return [
    onInput(`corpus, four contracts, at least ${TARGET.corpusRate} MB/s`, TARGET.corpusRate, contracts?.corpusRate, contracts?.corpusSpread, 'no corpus at ../shared/corpus'),
    onInput(`1 MB note, four contracts, at least ${TARGET.noteRate} MB/s`, TARGET.noteRate, contracts?.noteRate, contracts?.noteSpread, 'not run'),
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
    results.contracts = contractsSection([...(corpus ? [corpus] : []), ...(options.quick ? [note10k, note1m] : [note10k, note100k, note1m])], report);
    await workerSections(corpus, note10k, note1m, (section) =>
      section === 'e2e' ? options.e2e : section === 'startup' ? options.startup : options.fixed,
    );
  } finally {
    const detail = options.detail ? report.output() : ['', 'detail (every table, with what its columns mean): npm run bench -- --detail'];
    const lines = [...wrap(heading), '', ...summary(results, options, started), ...detail];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

await main();
