/**
 * The bench's startup section (scripts/bench.ts only): what a fresh isolate costs before and on its
 * first request.
 *
 * - Startup CPU: `wrangler check startup` profiles the production bundle's startup (module
 *   evaluation) in workerd and writes a V8 .cpuprofile (here into a temporary directory, removed
 *   after). CPU per run = the sampled time minus the `(idle)` and `(program)` samples' (each
 *   sample owns the timeDelta before it; GC counts as CPU). Median and range over the runs.
 * - Bundle: `wrangler deploy --dry-run --metafile`: wrangler's own "Total Upload: X KiB / gzip:
 *   Y KiB" line, and the bytes each module group puts in the bundle (esbuild's metafile).
 * - First request: the dry-run bundle in a fresh Miniflare (workerd) per measurement, reached on its
 *   own socket (no Miniflare entry worker in front, as in production), no rate-limit binding
 *   (ENVIRONMENT=local serves unlimited, so the limiter never interferes). One request kind per
 *   fresh start, timed first (client wall ms), then WARM repeats of it (median); the kinds take
 *   turns over the starts. First and warm both include the canister round trip.
 *
 * A failing step prints its failure in the section and the rest goes on.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { figure, firstLine, median, type Report } from './bench-report';
import {
  at,
  benchToken,
  buildWorkerBundle,
  FLOOR_WORKER_PATH,
  mcpToolCall,
  sdkFloorOrNull,
  runWrangler,
  startBenchCanister,
  startWorker,
  type MiniflareWorker,
  type WorkerOutput,
} from './bench-worker';
import { schedTime } from './bench-proc';
import { sleep, workerdPids } from './process.mjs';
import { MCP_ERAS, restTarget, type McpEra } from './worker-api';

/** The targets of this section. */
export const STARTUP_TARGET = {
  /** Startup CPU (wrangler check startup), median: at most this many ms. */
  cpuMs: 30,
  /** Bundle gzip (wrangler's Total Upload): at most this many KiB. */
  gzipKiB: 150,
  /** First REST read on a fresh isolate: at most this many ms over the warm median. */
  firstRestMs: 5,
  /** First MCP tools/call on a fresh isolate: at most this many ms over the warm median. */
  firstMcpMs: 40,
} as const;

export interface StartupOptions {
  quick: boolean;
  repoRoot: string;
  report: Report;
  progress: (line: string) => void;
}

/**
 * 'floor': the read floor (bench-floor-worker.js: the canister GET, one log line), the platform's own
 * first read; `sdk <era>`: the MCP floor (bench-sdk-floor-worker.ts), the SDK's own first exchange.
 * Neither is judged.
 */
export type FirstKind = 'rest' | McpEra | 'floor' | `sdk ${McpEra}`;

/** The kinds judged against a bound: our Worker's own, not a floor's. */
export const isJudgedFirst = (kind: FirstKind): kind is 'rest' | McpEra => kind === 'rest' || (MCP_ERAS as readonly string[]).includes(kind);

export interface FirstRequestRow {
  kind: FirstKind;
  label: string;
  /** Per fresh start: the first request's ms and the warm repeats' median ms. */
  first: number[];
  warm: number[];
  /** Median over the starts of (first - warm). */
  overWarm: number;
  /** Per fresh start, workerd CPU ms (schedstat) of the first request and per warm request; empty without /proc. */
  firstCpu: number[];
  warmCpu: number[];
}

/** What the summary reads; a part absent with its failure when it did not run. */
export interface StartupResult {
  cpu?: { median: number; min: number; max: number; runs: number };
  cpuFailure?: string;
  bundle?: { rawKiB: number; gzipKiB: number };
  bundleFailure?: string;
  first?: FirstRequestRow[];
  firstFailure?: string;
}

// ------------------------------------------------------------------ startup profile

/** The part of a V8 .cpuprofile (Profiler.Profile) read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url?: string } }[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds from the previous sample (the first: from startTime). */
  timeDeltas: number[];
}

export interface ProfileCpu {
  /** Sampled ms minus idle and program: the startup's CPU. */
  cpuMs: number;
  sampledMs: number;
  idleMs: number;
  programMs: number;
  gcMs: number;
  samples: number;
}

/**
 * The CPU time in a profile: every sample owns the timeDelta before it; the samples of the
 * `(idle)` and `(program)` nodes are not the Worker's CPU, everything else is (GC included).
 */
export function profileCpu(profile: CpuProfile): ProfileCpu {
  const names = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName]));
  let sampled = 0;
  let idle = 0;
  let program = 0;
  let collector = 0;
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    const name = names.get(id);
    sampled += ms;
    if (name === '(idle)') idle += ms;
    else if (name === '(program)') program += ms;
    else if (name === '(garbage collector)') collector += ms;
  });
  return { cpuMs: sampled - idle - program, sampledMs: sampled, idleMs: idle, programMs: program, gcMs: collector, samples: profile.samples.length };
}

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/** The first line of `text` that names an error, else its last non-empty line (for a failure report). */
function failureLine(text: string): string {
  const lines = text.replace(ANSI, '').split('\n').map((line) => line.trim()).filter(Boolean);
  const line = lines.find((each) => /error|failed|✘/i.test(each)) ?? lines[lines.length - 1] ?? 'no output';
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

/** One `wrangler check startup` run: its profile's CPU, or why it failed. */
function checkStartupOnce(repoRoot: string): ProfileCpu | string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-startup-'));
  const outfile = path.join(dir, 'worker-startup.cpuprofile');
  // wrangler's default outfile is in the cwd (the repo): never leave one there.
  const stray = path.join(repoRoot, 'worker-startup.cpuprofile');
  const strayBefore = existsSync(stray);
  try {
    const run = runWrangler(repoRoot, ['check', 'startup', '--outfile', outfile], 120_000);
    if (run.status !== 0 || !existsSync(outfile)) {
      return `wrangler check startup ${run.error ? `did not run (${run.error.message})` : `exited ${run.status}`}: ${failureLine(run.output)}`;
    }
    return profileCpu(JSON.parse(readFileSync(outfile, 'utf8')) as CpuProfile);
  } catch (error) {
    return `wrangler check startup: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (!strayBefore) rmSync(stray, { force: true });
  }
}

function startupCpuPart(options: StartupOptions, result: StartupResult): void {
  const { report, quick } = options;
  const runs = quick ? 2 : 5;
  options.progress(`startup: wrangler check startup, ${runs} runs`);
  report.text(`Startup CPU: wrangler check startup (the production bundle's startup in workerd), ${runs} runs.`);
  report.raw('');
  const profiles: ProfileCpu[] = [];
  for (let run = 0; run < runs; run++) {
    const outcome = checkStartupOnce(options.repoRoot);
    if (typeof outcome !== 'string') {
      profiles.push(outcome);
      continue;
    }
    report.text(`FAILED (run ${run + 1} of ${runs}): ${outcome}`);
    // A first run that fails would fail again: no more tries. A later failure is passing noise.
    if (profiles.length === 0) {
      result.cpuFailure = 'wrangler check startup failed';
      return;
    }
  }
  if (profiles.length < runs) report.raw('');
  report.table(
    [{ header: 'run' }, { header: 'samples' }, { header: 'sampled ms' }, { header: 'idle ms' }, { header: 'program ms' }, { header: 'GC ms' }, { header: 'CPU ms' }],
    profiles.map((profile, index) => [
      String(index + 1),
      String(profile.samples),
      figure(profile.sampledMs, 2),
      figure(profile.idleMs, 2),
      figure(profile.programMs, 2),
      figure(profile.gcMs, 2),
      figure(profile.cpuMs, 2),
    ]),
  );
  const cpus = profiles.map((profile) => profile.cpuMs);
  const middle = median(cpus);
  const missed = !quick && middle > STARTUP_TARGET.cpuMs;
  report.legend([
    ['CPU ms', 'sampled ms minus the (idle) and (program) samples (each sample owns the timeDelta before it); GC counts'],
    [
      'samples',
      'V8 samples about 1 ms apart, so a run reads to about a ms; their timeDeltas are wall time, so a ' +
        'busy machine (workerd waiting for a CPU) inflates a run: the median is the figure',
    ],
  ]);
  report.raw('');
  report.text(
    `startup CPU: median ${figure(middle, 2)}${missed ? '!' : ''} ms, range ${figure(Math.min(...cpus), 2)}-${figure(Math.max(...cpus), 2)} ms ` +
      `over ${cpus.length} runs; target at most ${STARTUP_TARGET.cpuMs} ms`,
  );
  result.cpu = { median: middle, min: Math.min(...cpus), max: Math.max(...cpus), runs: cpus.length };
}

// ------------------------------------------------------------------ bundle

/** wrangler's "Total Upload: 497.17 KiB / gzip: 151.71 KiB" in KiB, or null when absent. */
export function parseTotalUpload(output: string): { rawKiB: number; gzipKiB: number } | null {
  const match = /Total Upload:\s*([\d.,]+)\s*(KiB|MiB|B)\s*\/\s*gzip:\s*([\d.,]+)\s*(KiB|MiB|B)/.exec(output.replace(ANSI, ''));
  if (!match) return null;
  const kib = (value: string, unit: string): number => Number(value.replace(/,/g, '')) * (unit === 'MiB' ? 1024 : unit === 'B' ? 1 / 1024 : 1);
  return { rawKiB: kib(match[1] as string, match[2] as string), gzipKiB: kib(match[3] as string, match[4] as string) };
}

/** The part of esbuild's metafile read here. */
export interface Metafile {
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}

export interface ModuleGroup {
  group: string;
  files: number;
  bytes: number;
}

/** The group of a bundle input: zod core / zod classic / an npm package / the analysis / other src. */
export function moduleGroup(input: string): string {
  const file = input.replace(/\\/g, '/');
  const at = file.lastIndexOf('node_modules/');
  if (at >= 0) {
    const rest = file.slice(at + 'node_modules/'.length);
    if (/^zod\/(v4\/)?core\//.test(rest)) return 'zod core';
    if (/^zod\/(v4\/)?classic\//.test(rest)) return 'zod classic';
    const parts = rest.split('/');
    const name = parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
    return name === 'zod' ? 'zod (other)' : name;
  }
  if (/(^|\/)packages\/note-structure\//.test(file)) return '@knowtation/note-structure';
  if (/(^|\/)src\//.test(file)) return 'other src';
  return 'other';
}

/** Bytes per module group in the bundle's .js output, largest first; the rest of the output is esbuild's glue. */
export function moduleGroups(metafile: Metafile): { groups: ModuleGroup[]; outputBytes: number } {
  const [, output] = Object.entries(metafile.outputs).find(([name]) => /\.m?js$/.test(name)) ?? [];
  if (!output) return { groups: [], outputBytes: 0 };
  const groups = new Map<string, ModuleGroup>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const group = moduleGroup(input);
    const entry = groups.get(group) ?? { group, files: 0, bytes: 0 };
    entry.files += 1;
    entry.bytes += bytesInOutput;
    groups.set(group, entry);
  }
  const listed = [...groups.values()];
  const glue = output.bytes - listed.reduce((sum, each) => sum + each.bytes, 0);
  if (glue > 0) listed.push({ group: '(esbuild glue)', files: 0, bytes: glue });
  return { groups: listed.sort((a, b) => b.bytes - a.bytes), outputBytes: output.bytes };
}

/** Builds the dry-run bundle into outDir with a metafile and reports its size; false when the build failed. */
function bundlePart(options: StartupOptions, outDir: string, result: StartupResult): boolean {
  const { report, quick } = options;
  options.progress('startup: wrangler deploy --dry-run --metafile');
  report.raw('');
  report.text('Bundle: wrangler deploy --dry-run --outdir <tmp> --metafile <tmp>/meta.json.');
  report.raw('');
  let output: string;
  try {
    output = buildWorkerBundle(options.repoRoot, outDir, ['--metafile', path.join(outDir, 'meta.json')]);
  } catch (error) {
    result.bundleFailure = 'the dry-run build failed';
    report.text(`FAILED: ${firstLine(error)}`);
    return false;
  }
  const total = parseTotalUpload(output);
  if (total) {
    result.bundle = total;
    const missed = !quick && total.gzipKiB > STARTUP_TARGET.gzipKiB;
    report.text(
      `wrangler's Total Upload: ${figure(total.rawKiB, 2)} KiB, gzip ${figure(total.gzipKiB, 2)}${missed ? '!' : ''} KiB; ` +
        `target: gzip at most ${STARTUP_TARGET.gzipKiB} KiB`,
    );
  } else {
    result.bundleFailure = 'no "Total Upload" line in wrangler\'s output';
    report.text(`FAILED: no "Total Upload: X KiB / gzip: Y KiB" line in wrangler's output`);
  }
  try {
    const { groups, outputBytes } = moduleGroups(JSON.parse(readFileSync(path.join(outDir, 'meta.json'), 'utf8')) as Metafile);
    const top = groups.slice(0, 10);
    const rest = groups.slice(10);
    const share = (bytes: number): string => `${((100 * bytes) / outputBytes).toFixed(1)}%`;
    const rows = top.map((each) => [each.group, each.files === 0 ? '-' : String(each.files), String(each.bytes), figure(each.bytes / 1024, 1), share(each.bytes)]);
    if (rest.length > 0) {
      const bytes = rest.reduce((sum, each) => sum + each.bytes, 0);
      rows.push([`${rest.length} more groups`, String(rest.reduce((sum, each) => sum + each.files, 0)), String(bytes), figure(bytes / 1024, 1), share(bytes)]);
    }
    report.raw('');
    report.table(
      [{ header: 'module group', text: true }, { header: 'files' }, { header: 'bytes' }, { header: 'KiB' }, { header: 'share' }],
      rows,
    );
    report.legend([
      ['bytes', `raw bytes each group puts in index.js (${outputBytes} bytes, esbuild's metafile bytesInOutput), before gzip`],
      ['groups', 'zod core, zod classic, each other npm package (the note-structure engine among them), the rest of src'],
    ]);
  } catch (error) {
    report.text(`by module: not read (${error instanceof Error ? error.message : String(error)})`);
  }
  return true;
}

// ------------------------------------------------------------------ first request

/** The small demo note of the first-request rows, its frontmatter block left out (the canister serves it apart). */
const DEMO_NOTE = 'daily/2026-03-02.md';

function demoNoteBody(repoRoot: string): string {
  const text = readFileSync(path.join(repoRoot, 'demo/vault', DEMO_NOTE), 'utf8');
  return text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '');
}

/** True when an MCP tools/call answer is a result, not an error. */
const mcpAnswered = (status: number, text: string): boolean => status === 200 && !text.includes('"isError":true') && !text.includes('"error":{');

async function firstRequestPart(options: StartupOptions, outDir: string, result: StartupResult): Promise<void> {
  const { report, quick } = options;
  const starts = quick ? 2 : 5;
  const warm = quick ? 10 : 30;
  const body = demoNoteBody(options.repoRoot);
  options.progress(`startup: first request on a fresh isolate, ${starts} fresh starts per kind`);
  report.raw('');
  report.text(
    `First request on a fresh isolate: demo note ${DEMO_NOTE} (${body.length} chars), one fresh Miniflare per ` +
      `measurement, ${starts} per kind, taking turns; then ${warm} warm repeats (median).`,
  );
  report.raw('');
  const canister = await startBenchCanister([{ name: 'demo', notes: [{ path: DEMO_NOTE, body }], chars: body.length }]);
  const output: WorkerOutput = { logLines: 0, errorText: '' };
  const token = await benchToken();
  const outline = new URL(restTarget('note_outline', DEMO_NOTE), 'http://x');
  // The floors of the fixed-cost section: the read floor on the same note (the platform's own first
  // read), and the SDK's own first exchange in each era.
  const sdkFloorDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-sdk-floor-'));
  const ours = path.join(outDir, 'index.js');
  const sdkFloor = sdkFloorOrNull(options.repoRoot, sdkFloorDir, report);
  const kinds: { kind: FirstKind; label: string; script: string; send: (base: URL) => Promise<Response> }[] = [
    { kind: 'rest', label: 'REST outline', script: ours, send: (base) => fetch(new URL(`${outline.pathname}${outline.search}`, base), { headers: { authorization: `Bearer ${token}` } }) },
    ...MCP_ERAS.map((era) => ({ kind: era, label: `MCP ${era}`, script: ours, send: (base: URL) => mcpToolCall(base, token, era, DEMO_NOTE) })),
    { kind: 'floor', label: 'read floor', script: FLOOR_WORKER_PATH, send: (base) => fetch(new URL(`${outline.pathname}${outline.search}`, base)) },
    ...(sdkFloor === null
      ? []
      : MCP_ERAS.map((era) => ({ kind: `sdk ${era}` as const, label: `SDK ${era}`, script: sdkFloor, send: (base: URL) => mcpToolCall(base, token, era, DEMO_NOTE) }))),
  ];
  /** One exchange: wall ms from the client, throwing on an answer other than the note's outline. */
  const timed = async (kind: (typeof kinds)[number], base: URL): Promise<number> => {
    const started = performance.now();
    const response = await kind.send(base);
    const text = await response.text();
    const ms = performance.now() - started;
    if (kind.kind === 'rest' || kind.kind === 'floor' ? response.status !== 200 : !mcpAnswered(response.status, text)) {
      throw new Error(`${kind.label} answered ${response.status} ${text.slice(0, 160)}`);
    }
    return ms;
  };
  /** A fresh Worker on its own socket, after it has settled; its workerd processes. */
  const fresh = async (script: string): Promise<{ worker: MiniflareWorker; base: URL; pids: number[] }> => {
    const worker = await startWorker(outDir, canister.url, output, [{ direct: true, scriptPath: script }]);
    await worker.ready;
    const base = await worker.unsafeGetDirectURL();
    const pids = await workerdPids((pid) => pid === process.pid);
    // Let workerd finish whatever its start left running, so the request is not timed against it.
    await sleep(150);
    return { worker, base, pids };
  };
  const rows: FirstRequestRow[] = kinds.map((kind) => ({ kind: kind.kind, label: kind.label, first: [], warm: [], overWarm: NaN, firstCpu: [], warmCpu: [] }));
  let worker: MiniflareWorker | undefined;
  try {
    // One unmeasured start: checks every kind answers, and warms this process's client code.
    for (const script of new Set(kinds.map((kind) => kind.script))) {
      const practice = await fresh(script);
      worker = practice.worker;
      for (const kind of kinds.filter((each) => each.script === script)) for (let index = 0; index < 3; index++) await timed(kind, practice.base);
      await worker.dispose();
      worker = undefined;
    }
    for (let start = 0; start < starts; start++) {
      for (let step = 0; step < kinds.length; step++) {
        const index = (start + step) % kinds.length;
        const kind = kinds[index] as (typeof kinds)[number];
        const started = await fresh(kind.script);
        worker = started.worker;
        const row = rows[index] as FirstRequestRow;
        const cpuBefore = await schedTime(started.pids);
        const first = await timed(kind, started.base);
        const cpuFirst = await schedTime(started.pids);
        const repeats: number[] = [];
        for (let repeat = 0; repeat < warm; repeat++) repeats.push(await timed(kind, started.base));
        const cpuWarm = await schedTime(started.pids);
        repeats.sort((a, b) => a - b);
        row.first.push(first);
        row.warm.push(at(repeats, 0.5));
        if (cpuBefore && cpuFirst && cpuWarm) {
          row.firstCpu.push(cpuFirst.runMs - cpuBefore.runMs);
          row.warmCpu.push((cpuWarm.runMs - cpuFirst.runMs) / warm);
        }
        await worker.dispose();
        worker = undefined;
      }
    }
  } catch (error) {
    result.firstFailure = 'a fresh Worker did not answer';
    report.text(`FAILED: ${firstLine(error)}`);
    if (output.errorText) report.text(`Worker stderr: ${output.errorText.slice(0, 300)}`);
    return;
  } finally {
    await worker?.dispose();
    canister.close();
    rmSync(sdkFloorDir, { recursive: true, force: true });
  }
  for (const row of rows) row.overWarm = median(row.first.map((first, index) => first - (row.warm[index] as number)));
  const bound = (row: FirstRequestRow): number => (row.kind === 'rest' ? STARTUP_TARGET.firstRestMs : STARTUP_TARGET.firstMcpMs);
  report.table(
    [
      { header: 'request', text: true },
      { header: 'starts' },
      { header: 'first ms' },
      { header: 'first range' },
      { header: 'warm p50' },
      { header: 'first-warm' },
      { header: 'target' },
      { header: 'CPU first' },
      { header: 'CPU warm' },
    ],
    rows.map((row) => [
      row.label,
      String(row.first.length),
      figure(median(row.first), 2),
      `${figure(Math.min(...row.first), 1)}-${figure(Math.max(...row.first), 1)}`,
      figure(median(row.warm), 2),
      `${figure(row.overWarm, 2)}${!quick && isJudgedFirst(row.kind) && row.overWarm > bound(row) ? '!' : ''}`,
      isJudgedFirst(row.kind) ? `<= ${bound(row)}` : '-',
      row.firstCpu.length > 0 ? figure(median(row.firstCpu), 2) : '-',
      row.warmCpu.length > 0 ? figure(median(row.warmCpu), 2) : '-',
    ]),
  );
  report.legend([
    ['first ms', 'wall ms of the first request a fresh Worker serves (client side), median over the starts, and its range'],
    ['warm p50', `median of the ${warm} requests that follow it on the same Worker, median over the starts`],
    ['first-warm', 'median over the starts of (first - warm p50): what a fresh isolate adds; target in ms'],
    [
      'read floor',
      'the read floor (scripts/lib/bench-floor-worker.js: the same canister GET, one log line, a one-field answer) ' +
        'reading the same note: what the platform adds to any first read (its first fetch and console.log included); ' +
        'not judged, not subtracted',
    ],
    [
      'SDK <era>',
      "the MCP floor: the official SDK answering a constant tools/call (scripts/lib/bench-sdk-floor-worker.ts), the SDK's own " +
        'first exchange, the SDK loaded at startup (ours loads it on the first MCP message); not judged, not subtracted',
    ],
    [
      'CPU first, warm',
      "workerd's CPU ms (all threads, /proc schedstat, ns resolution) for the first request and per warm request, " +
        'median over the starts; not judged: wall time under load includes waiting for a CPU, this does not',
    ],
    [
      'setup',
      'the dry-run bundle in Miniflare on its own socket, no rate-limit binding (ENVIRONMENT=local serves unlimited); ' +
        'first and warm both pay the canister round trip; the first also opens the client connection (0.1-0.3 ms on loopback). ' +
        'Module evaluation runs before the Worker listens: it is the startup CPU above, not in these figures.',
    ],
  ]);
  if (output.errorText) report.text(`Worker stderr: ${output.errorText.slice(0, 300)}`);
  result.first = rows;
}

// ------------------------------------------------------------------ section

/** The startup section: startup CPU, the bundle, the first request on a fresh isolate. */
export async function startupSection(options: StartupOptions): Promise<StartupResult> {
  const result: StartupResult = {};
  options.report.section('Startup: startup CPU, bundle size, first request on a fresh isolate');
  startupCpuPart(options, result);
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-bundle-'));
  try {
    if (bundlePart(options, outDir, result)) await firstRequestPart(options, outDir, result);
    else result.firstFailure = 'no bundle';
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  return result;
}
