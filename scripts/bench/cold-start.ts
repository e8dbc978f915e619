/**
 * Question: what does a fresh isolate cost before and on its first request?
 *
 * - Startup: `wrangler check startup`, the platform's own profile of the bundle's startup (module
 *   evaluation) in workerd; its CPU is the sampled time minus the `(idle)` and `(program)` samples
 *   (each sample owns the timeDelta before it; GC counts). Median over the runs. Samples are spaced
 *   in wall time, so other load on the machine inflates it.
 * - Bundle: the dry-run build's "Total Upload ... gzip" line, and the bytes each module group puts
 *   in it (esbuild's metafile).
 * - First request: a fresh workerd per measurement with one Worker on its own socket, ours (the
 *   bundle `wrangler deploy` uploads), the read floor or the MCP floor, one kind of request per start,
 *   the kinds taking turns over the starts. Its workerd CPU over the median of the WARM ones after it
 *   is what a fresh isolate adds; the read floor's first read of the same note and the MCP floor's
 *   first exchange are kinds of their own, so ours is judged over the platform's and the SDK's. Each
 *   start's workerd CPU until it serves is shown beside it (ours over the floor's: loading, compiling
 *   and evaluating our bundle).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MCP_ERAS } from '../lib/worker-api';
import { answered, benchToken, buildMcpFloor, cpuOf, mcpCall, READ_FLOOR, restRead, runWrangler, schedRunMs, startCanister, startLab } from './lab';
import { sleep } from '../lib/process.mjs';
import { figure, firstLine, median, spreadOf, type Report } from './report';
import type { Check, Target } from './targets';

export const COLD_TARGETS = {
  startup: {
    label: 'startup CPU (wrangler check startup), at most 30 ms',
    protects: 'cold-start latency: every new isolate pays it before its first request (platform limit 1 s)',
    bound: 30,
    kind: 'max',
    unit: 'ms',
    digits: 2,
    scale: 'cpu',
  },
  bundle: {
    label: 'bundle gzip, at most 150 KiB',
    protects: 'cold-start latency: every new isolate loads and compiles the whole bundle (platform limit 3 MiB)',
    bound: 150,
    kind: 'max',
    unit: 'KiB',
    digits: 2,
    scale: 'fixed',
  },
  firstRest: {
    label: "first REST read, CPU over the read floor's first read, at most 5 ms",
    protects: "a user's latency on the first request a new isolate serves",
    bound: 5,
    kind: 'max',
    unit: 'ms',
    digits: 2,
    scale: 'cpu',
  },
  firstMcp: {
    label: "first MCP call, CPU over the MCP floor's first call, at most 40 ms",
    protects: "an agent's latency on its first call to a new isolate (ours loads the SDK then)",
    bound: 40,
    kind: 'max',
    unit: 'ms',
    digits: 2,
    scale: 'cpu',
  },
} as const satisfies Record<string, Target>;

export interface ColdStartOptions {
  quick: boolean;
  repoRoot: string;
  /** Our Worker's module (index.js of the dry-run build). */
  ourScript: string;
  /** wrangler's output of that build, and its metafile. */
  buildOutput: string;
  metafile: string;
  report: Report;
  progress: (line: string) => void;
}

/** A first-request kind: ours, or a floor's. */
interface FirstRow {
  label: string;
  /** Per fresh start: workerd CPU ms until it served, settled. */
  startup: number[];
  /** Per fresh start: workerd CPU ms of the first request over the median of the warm ones after it. */
  overWarm: number[];
}

export interface ColdStartResult {
  checks: Check[];
  /** Medians of each kind's first request over its warm ones, for the floors picture. */
  first?: { rest: number; readFloor: number; mcp: { era: string; ours: number; sdk: number }[] };
}

// ------------------------------------------------------------------ startup profile

/** The part of a V8 .cpuprofile read here. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  /** Microseconds from the previous sample. */
  timeDeltas: number[];
}

/** A profile's CPU ms: every sample owns the timeDelta before it; `(idle)` and `(program)` are not the Worker's. */
export function profileCpuMs(profile: CpuProfile): number {
  const names = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName]));
  return profile.samples.reduce((sum, id, index) => {
    const name = names.get(id);
    return name === '(idle)' || name === '(program)' ? sum : sum + (profile.timeDeltas[index] ?? 0) / 1000;
  }, 0);
}

/** One `wrangler check startup` run: its profile's CPU ms, or why it failed. */
function startupCpuOnce(repoRoot: string): number | string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-startup-'));
  const outfile = path.join(dir, 'worker-startup.cpuprofile');
  try {
    const run = runWrangler(repoRoot, ['check', 'startup', '--outfile', outfile], 120_000);
    if (run.status !== 0 || !existsSync(outfile)) {
      const line = run.output.split('\n').find((each) => /error|failed|✘/i.test(each)) ?? `exit ${run.status}`;
      return `wrangler check startup failed: ${(run.error?.message ?? line).trim().slice(0, 300)}`;
    }
    return profileCpuMs(JSON.parse(readFileSync(outfile, 'utf8')) as CpuProfile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function startupCheck(options: ColdStartOptions): Check {
  const runs = options.quick ? 2 : 5;
  options.progress(`cold start: wrangler check startup, ${runs} runs`);
  const cpus: number[] = [];
  for (let run = 0; run < runs; run++) {
    const outcome = startupCpuOnce(options.repoRoot);
    if (typeof outcome === 'string') return { target: COLD_TARGETS.startup, skipped: outcome };
    cpus.push(outcome);
  }
  options.report.text(`Startup CPU per run of wrangler check startup: ${cpus.map((cpu) => figure(cpu, 2)).join(', ')} ms.`);
  return { target: COLD_TARGETS.startup, measured: { values: [median(cpus)], rows: ['startup'], spreads: [spreadOf(cpus)] } };
}

// ------------------------------------------------------------------ bundle

/** wrangler's "Total Upload: 497.17 KiB / gzip: 151.71 KiB", gzip KiB; null when absent. */
export function gzipKiB(output: string): number | null {
  const match = /Total Upload:\s*[\d.,]+\s*(?:KiB|MiB|B)\s*\/\s*gzip:\s*([\d.,]+)\s*(KiB|MiB|B)/.exec(output);
  if (!match) return null;
  const unit = match[2] as string;
  return Number((match[1] as string).replace(/,/g, '')) * (unit === 'MiB' ? 1024 : unit === 'B' ? 1 / 1024 : 1);
}

/** The part of esbuild's metafile read here. */
interface Metafile {
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}

/** The group of a bundle input: an npm package (the note-structure engine, a workspace, among them), the rest of src. */
function moduleGroup(input: string): string {
  const file = input.replace(/\\/g, '/');
  const at = file.lastIndexOf('node_modules/');
  if (at >= 0) {
    const parts = file.slice(at + 'node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
  }
  if (/(^|\/)packages\/note-structure\//.test(file)) return '@knowtation/note-structure';
  return /(^|\/)src\//.test(file) ? 'other src' : 'other';
}

function bundleCheck(options: ColdStartOptions): Check {
  const kib = gzipKiB(options.buildOutput);
  if (kib === null) return { target: COLD_TARGETS.bundle, skipped: 'no "Total Upload" line in wrangler\'s output' };
  try {
    const metafile = JSON.parse(readFileSync(options.metafile, 'utf8')) as Metafile;
    const [, output] = Object.entries(metafile.outputs).find(([name]) => /\.m?js$/.test(name)) ?? [];
    if (output) {
      const groups = new Map<string, number>();
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) groups.set(moduleGroup(input), (groups.get(moduleGroup(input)) ?? 0) + bytesInOutput);
      const rows = [...groups].sort((a, b) => b[1] - a[1]).slice(0, 8);
      options.report.raw('');
      options.report.table(
        [{ header: 'module group', text: true }, { header: 'bytes' }, { header: 'share' }],
        rows.map(([group, bytes]) => [group, String(bytes), `${((100 * bytes) / output.bytes).toFixed(1)}%`]),
      );
      options.report.legend([['bytes', `raw bytes each group puts in the ${output.bytes}-byte bundle before gzip (esbuild's metafile); the largest 8`]]);
    }
  } catch (error) {
    options.report.text(`by module: not read (${firstLine(error)})`);
  }
  return { target: COLD_TARGETS.bundle, measured: { values: [kib], rows: ['bundle'] } };
}

// ------------------------------------------------------------------ first request

/** The small demo note of the first-request rows, its frontmatter block left out (the canister serves it apart). */
const DEMO_NOTE = 'daily/2026-03-02.md';

async function firstRequests(options: ColdStartOptions, checks: Check[]): Promise<ColdStartResult['first']> {
  const { report, quick } = options;
  const starts = quick ? 2 : 5;
  const warm = quick ? 10 : 30;
  const body = readFileSync(path.join(options.repoRoot, 'demo/vault', DEMO_NOTE), 'utf8').replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '');
  options.progress(`cold start: the first request of ${starts} fresh isolates per kind`);
  const sdkDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-mcp-floor-'));
  const canister = await startCanister([{ path: DEMO_NOTE, body }]);
  const token = await benchToken();
  try {
    let sdkScript: string | null = null;
    try {
      sdkScript = buildMcpFloor(options.repoRoot, sdkDir);
    } catch (error) {
      report.text(`MCP floor: not built (${firstLine(error)})`);
    }
    const kinds = [
      { key: 'rest', label: 'our REST read', script: options.ourScript, mcp: false, send: (base: URL) => restRead(base, 'note_outline', DEMO_NOTE, token) },
      ...MCP_ERAS.map((era) => ({ key: era, label: `our MCP ${era}`, script: options.ourScript, mcp: true, send: (base: URL) => mcpCall(base, token, era, DEMO_NOTE) })),
      { key: 'floor', label: 'read floor', script: READ_FLOOR, mcp: false, send: (base: URL) => restRead(base, 'note_outline', DEMO_NOTE, null) },
      ...(sdkScript === null
        ? []
        : MCP_ERAS.map((era) => ({ key: `sdk ${era}`, label: `MCP floor ${era}`, script: sdkScript, mcp: true, send: (base: URL) => mcpCall(base, token, era, DEMO_NOTE) }))),
    ];
    const rows = new Map<string, FirstRow>(kinds.map((kind) => [kind.key, { label: kind.label, startup: [], overWarm: [] }]));
    for (let start = 0; start < starts; start++) {
      for (let step = 0; step < kinds.length; step++) {
        const kind = kinds[(start + step) % kinds.length] as (typeof kinds)[number];
        const lab = await startLab(canister.url, [{ name: 'fresh', scriptPath: kind.script }]);
        try {
          const base = lab.bases.get('fresh') as URL;
          // Let workerd finish what its start left running, so the first request is not timed against it.
          await sleep(150);
          const startup = await schedRunMs(lab.workerd);
          const exchange = async (): Promise<void> => {
            const response = await kind.send(base);
            const text = await response.text();
            if (!answered(response, text, [200], kind.mcp)) throw new Error(`${kind.label} answered ${response.status} ${text.slice(0, 160)}`);
          };
          const first = await cpuOf(lab.workerd, exchange);
          const repeats: number[] = [];
          for (let repeat = 0; repeat < warm; repeat++) repeats.push(await cpuOf(lab.workerd, exchange));
          rows.get(kind.key)?.overWarm.push(first - median(repeats));
          rows.get(kind.key)?.startup.push(startup ?? NaN);
        } finally {
          await lab.dispose();
        }
      }
    }
    const over = (key: string): number[] => rows.get(key)?.overWarm ?? [];
    const range = (values: number[]): string => `${figure(Math.min(...values), 2)} to ${figure(Math.max(...values), 2)}`;
    report.raw('');
    report.table(
      [{ header: 'fresh isolate', text: true }, { header: 'starts' }, { header: 'startup' }, { header: 'range' }, { header: 'first over warm' }, { header: 'range' }],
      [...rows.values()].map((row) => [row.label, String(row.overWarm.length), figure(median(row.startup), 2), range(row.startup), figure(median(row.overWarm), 2), range(row.overWarm)]),
    );
    report.legend([
      ['startup', "workerd's CPU ms from its start until it serves, settled: the same workerd and Miniflare around every Worker, so ours over the read floor's is our bundle's loading, compiling and evaluating"],
      ['first over warm', `workerd CPU ms of the first request, over the median of the ${warm} after it (the demo note ${DEMO_NOTE}); medians over the starts`],
      ['floors', 'the read floor reads the same note; the MCP floor loads the SDK at startup, ours on the first MCP message'],
    ]);
    /** Per start of ours, its figure minus the floor's median. */
    const beyondFloor = (ours: number[], floor: number[]): { value: number; spread: ReturnType<typeof spreadOf> } => {
      const values = ours.map((value) => value - median(floor));
      return { value: median(values), spread: spreadOf(values) };
    };
    const rest = beyondFloor(over('rest'), over('floor'));
    checks.push({ target: COLD_TARGETS.firstRest, measured: { values: [rest.value], rows: ['REST'], spreads: [rest.spread] } });
    if (sdkScript === null) {
      checks.push({ target: COLD_TARGETS.firstMcp, skipped: 'the MCP floor was not built' });
      return undefined;
    }
    const mcp = MCP_ERAS.map((era) => ({ era, ...beyondFloor(over(era), over(`sdk ${era}`)) }));
    checks.push({ target: COLD_TARGETS.firstMcp, measured: { values: mcp.map((each) => each.value), rows: [...MCP_ERAS], spreads: mcp.map((each) => each.spread) } });
    return {
      rest: median(over('rest')),
      readFloor: median(over('floor')),
      mcp: MCP_ERAS.map((era) => ({ era, ours: median(over(era)), sdk: median(over(`sdk ${era}`)) })),
    };
  } finally {
    canister.close();
    rmSync(sdkDir, { recursive: true, force: true });
  }
}

export async function coldStart(options: ColdStartOptions): Promise<ColdStartResult> {
  options.report.section('What a fresh isolate costs: startup CPU, the bundle, the first request');
  const checks = [startupCheck(options), bundleCheck(options)];
  try {
    return { checks, first: await firstRequests(options, checks) };
  } catch (error) {
    const why = firstLine(error);
    options.report.text(`fresh isolates: not measured (${why})`);
    for (const target of [COLD_TARGETS.firstRest, COLD_TARGETS.firstMcp]) {
      if (!checks.some((check) => check.target === target)) checks.push({ target, skipped: why });
    }
    return { checks };
  }
}
