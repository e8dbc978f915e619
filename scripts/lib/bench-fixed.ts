/**
 * The bench's fixed-cost section (scripts/bench.ts only): workerd CPU per request by kind, for the
 * requests whose cost is the Worker's own rather than the note's, and what follows from them:
 *
 * - the fixed cost of a REST read: 404 (JWT verify, path checks, one canister round trip) minus
 *   GET /health;
 * - what MCP tools/call adds over the same REST read of the same 10-char note, per era;
 * - the local rate-limit simulation, apart: the same 404 on a second Worker with both rate-limit
 *   bindings (Miniflare's simulation, limits lifted as in `[env.load]`). Every other row runs with
 *   no binding (ENVIRONMENT=local serves unlimited), so the REST figure is what production pays
 *   without the simulation, whose cost is not production's;
 * - the read floor: our REST read of each real note (the shared corpus) against the floor Worker's
 *   read of the same notes (bench-floor-worker.js: the same canister GET, JSON parse, one log line,
 *   a one-field answer), each net of the floor's no-op GET /health, their ratio, and MCP tools/call
 *   of the same notes over that REST read; then that read's CPU by phase (bench-phases.ts);
 * - the MCP floor, per era: the official SDK's own tools/call over a plain JSON GET
 *   (bench-sdk-floor-worker.ts): the SDK's cost of one exchange, which every MCP call carries.
 *
 * One Miniflare (one workerd process) runs every Worker, each on its own socket (no entry worker in
 * front). Every kind is measured a request at a time, interleaved with the others
 * (measureInterleaved), so a change in machine speed lands on each alike: workerd CPU per request
 * from the scheduler's schedstat (ns, every thread), and figures are differences of medians.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { figure, firstLine, median, quantile, spreadOf, type Report, type Spread } from './bench-report';
import {
  at,
  benchToken,
  buildWorkerBundle,
  mcpToolCall,
  sdkFloorOrNull,
  startBenchCanister,
  startWorker,
  FLOOR_WORKER_PATH,
  type MiniflareWorker,
  type WorkerInput,
  type WorkerOutput,
} from './bench-worker';
import { schedTime } from './bench-proc';
import { measurePhases, phaseWorkerSetup, reportPhases, type PhaseResult } from './bench-phases';
import { workerdPids } from './process.mjs';
import { MCP_ERAS, restTarget, type McpEra } from './worker-api';

export const FIXED_TARGET = {
  /** 404 minus /health, workerd CPU ms: at most. */
  restFixedMs: 1,
  /** MCP tools/call minus the same REST read, workerd CPU ms: at most. */
  mcpOverRestMs: 0.3,
  /** A warm REST read of the corpus over the floor's read of the same notes, both net of /health: at most. */
  readOverFloor: 1.5,
} as const;

export interface FixedCostOptions {
  quick: boolean;
  repoRoot: string;
  report: Report;
  progress: (line: string) => void;
  /** The two note bodies of the 200 rows: about 10 chars and about 5,000. */
  smallBody: string;
  mediumBody: string;
  /** The real notes of the read rows (ours, the floor, MCP), each read in turn; none: no read rows. */
  readNotes: WorkerInput['notes'];
}

export interface FixedCostResult {
  /** Why the section did not run or stopped. */
  skipped?: string;
  /** False without /proc schedstat: nothing judged. */
  cpuMeasured?: boolean;
  healthCpu?: number;
  /** 404 minus /health. */
  restFixed?: RoundedFigure;
  /** MCP tools/call minus REST 200 of the same note, per era. */
  mcpOverRest?: ({ era: McpEra } & RoundedFigure)[];
  /** 404 with the rate-limit bindings minus 404 without. */
  rateLimit?: number;
  /**
   * The read rows: our warm REST read of the corpus notes and the floor's read of the same notes,
   * each net of the floor's no-op /health (an HTTP exchange alone), their ratio; our own /health net
   * of the same; MCP tools/call of the same notes over that REST read, per era.
   */
  read?: {
    ours: number;
    floor: number;
    ratio: number;
    /** The ratio's spread over consecutive blocks of samples, each block's ratio from its medians. */
    ratioSpread: Spread;
    ourHealth: number;
    mcpOverRead: ({ era: McpEra } & RoundedFigure)[];
  };
  /** The per-phase CPU of that REST read (bench-phases.ts), when measured. */
  phases?: PhaseResult;
  /** The MCP floor per era: the SDK's own tools/call (a constant answer) minus a JSON GET of the same answer. */
  sdkFloor?: ({ era: McpEra } & RoundedFigure)[];
}

type KindKey =
  | 'health'
  | 'garbage'
  | 'badPath'
  | 'missing'
  | 'missingLimited'
  | 'small'
  | 'medium'
  | McpEra
  | 'exchange'
  | 'our no-op'
  | 'read'
  | 'floor'
  | `read ${McpEra}`
  | 'sdk json'
  | `sdk ${McpEra}`;

/** Which of the section's Workers a kind is sent to: ours, ours with the rate-limit bindings, the read floor, the MCP floor. */
type WorkerName = 'plain' | 'limited' | 'floor' | 'sdk';

interface Kind {
  key: KindKey;
  label: string;
  status: number;
  worker: WorkerName;
  /** The kind's `index`th request (reads take the corpus notes in turn). */
  send: (base: URL, index: number) => Promise<Response>;
}

/** What the read rows read, in their labels. */
const READ_NOTES = 'corpus';

const SMALL_PATH = 'bench/fixed-small.md';
const MEDIUM_PATH = 'bench/fixed-medium.md';

function kinds(token: string, smallChars: number, mediumChars: number, readPaths: string[], withSdkFloor: boolean): Kind[] {
  const outline = (base: URL, notePath: string, authorization: string | null): Promise<Response> =>
    fetch(new URL(restTarget('note_outline', notePath), base), authorization ? { headers: { authorization } } : {});
  const bearer = `Bearer ${token}`;
  const sdkFloorKinds: Kind[] = [
    { key: 'sdk json', label: 'MCP floor GET /json', status: 200, worker: 'sdk', send: (base) => fetch(new URL('/json', base)) },
    ...MCP_ERAS.map(
      (era): Kind => ({ key: `sdk ${era}`, label: `MCP floor ${era} tools/call`, status: 200, worker: 'sdk', send: (base) => mcpToolCall(base, token, era, SMALL_PATH) }),
    ),
  ];
  const readPath = (index: number): string => readPaths[index % readPaths.length] as string;
  const reads: Kind[] =
    readPaths.length === 0
      ? []
      : [
          { key: 'exchange', label: 'floor GET /health (no-op)', status: 200, worker: 'floor', send: (base) => fetch(new URL('/health', base)) },
          { key: 'our no-op', label: 'our GET /health', status: 200, worker: 'plain', send: (base) => fetch(new URL('/health', base)) },
          { key: 'read', label: `REST read, ${READ_NOTES}`, status: 200, worker: 'plain', send: (base, index) => outline(base, readPath(index), bearer) },
          { key: 'floor', label: `floor read, ${READ_NOTES}`, status: 200, worker: 'floor', send: (base, index) => outline(base, readPath(index), null) },
          ...MCP_ERAS.map(
            (era): Kind => ({
              key: `read ${era}`,
              label: `MCP ${era} tools/call, ${READ_NOTES}`,
              status: 200,
              worker: 'plain',
              send: (base, index) => mcpToolCall(base, token, era, readPath(index)),
            }),
          ),
        ];
  return [
    { key: 'health', label: 'GET /health', status: 200, worker: 'plain', send: (base) => fetch(new URL('/health', base)) },
    { key: 'garbage', label: '401, garbage token', status: 401, worker: 'plain', send: (base) => outline(base, SMALL_PATH, 'Bearer garbage') },
    { key: 'badPath', label: '400, bad path (valid token)', status: 400, worker: 'plain', send: (base) => outline(base, '../outside.md', bearer) },
    { key: 'missing', label: '404, missing note', status: 404, worker: 'plain', send: (base) => outline(base, 'bench/missing.md', bearer) },
    {
      key: 'missingLimited',
      label: '404, missing note, with limiter',
      status: 404,
      worker: 'limited',
      send: (base) => outline(base, 'bench/missing.md', bearer),
    },
    { key: 'small', label: `200 outline, ${smallChars}-char note`, status: 200, worker: 'plain', send: (base) => outline(base, SMALL_PATH, bearer) },
    { key: 'medium', label: `200 outline, ${mediumChars}-char note`, status: 200, worker: 'plain', send: (base) => outline(base, MEDIUM_PATH, bearer) },
    ...MCP_ERAS.map(
      (era): Kind => ({ key: era, label: `MCP ${era} tools/call, ${smallChars}-char`, status: 200, worker: 'plain', send: (base) => mcpToolCall(base, token, era, SMALL_PATH) }),
    ),
    ...(withSdkFloor ? sdkFloorKinds : []),
    ...reads,
  ];
}

/** A difference of medians of CPU per request, and its spread over consecutive blocks of samples. */
export interface RoundedFigure {
  ms: number;
  spread: Spread;
}

/** Per kind, each request's workerd CPU (schedstat ms) and wall ms, in the order they were sent. */
type Samples = Map<KindKey, { cpu: number[]; latencies: number[] }>;

/** Consecutive blocks the samples are cut into for a figure's spread. */
const BLOCKS = 8;

/**
 * Every kind, a request at a time: each pass sends one request of every kind, in an order that
 * turns by one each pass, and reads every workerd thread's schedstat around each request with
 * workerd idle (a 1 ms timer either side). A request's CPU is then its own, and a burst of other
 * load on the shared machine lands on a few samples, which the medians set aside; totals over
 * batches carried it into the figures (the floor ratio of one code read 1.74x to 2.65x).
 */
async function measureInterleaved(kinds: Kind[], send: (kind: Kind) => Promise<number>, workerd: number[], passes: number): Promise<Samples> {
  const samples: Samples = new Map(kinds.map((kind) => [kind.key, { cpu: [], latencies: [] }]));
  const idle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));
  for (let pass = 0; pass < passes; pass++) {
    for (let step = 0; step < kinds.length; step++) {
      const kind = kinds[(pass + step) % kinds.length] as Kind;
      await idle();
      const before = await schedTime(workerd);
      const ms = await send(kind);
      await idle();
      const after = await schedTime(workerd);
      const entry = samples.get(kind.key) as { cpu: number[]; latencies: number[] };
      entry.latencies.push(ms);
      entry.cpu.push(before && after ? after.runMs - before.runMs : NaN);
    }
  }
  return samples;
}

/** The samples cut into BLOCKS consecutive blocks. */
function blocksOf(samples: number[]): number[][] {
  const size = Math.max(1, Math.ceil(samples.length / BLOCKS));
  return Array.from({ length: Math.ceil(samples.length / size) }, (_, block) => samples.slice(block * size, (block + 1) * size));
}

/** The fixed-cost section. */
export async function fixedCostSection(options: FixedCostOptions): Promise<FixedCostResult> {
  const { report, quick } = options;
  report.section('Fixed cost per request: workerd CPU by kind of request');
  const readPaths = options.readNotes.map((note) => note.path);
  const warmups = quick ? 5 : 20;
  // Reads take the corpus notes in turn: whole passes over them, so every note is read alike.
  const passes = readPaths.length > 0 ? readPaths.length * (quick ? 1 : 3) : quick ? 100 : 400;
  report.text(
    `${passes} passes, each one request of every kind in an order that turns by one each pass (after ${warmups} warm-up ` +
      'requests each); the bundle in one Miniflare, each Worker on its own socket.',
  );
  report.raw('');
  options.progress(`fixed cost: ${passes} interleaved passes over every kind`);
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-fixed-'));
  const phasesDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-phases-'));
  const sdkFloorDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-sdk-floor-'));
  const phaseRounds = quick ? 6 : 10;
  let phases: PhaseResult | null = null;
  const canister = await startBenchCanister([
    { name: 'small', notes: [{ path: SMALL_PATH, body: options.smallBody }], chars: options.smallBody.length },
    { name: 'medium', notes: [{ path: MEDIUM_PATH, body: options.mediumBody }], chars: options.mediumBody.length },
    { name: READ_NOTES, notes: options.readNotes, chars: 0 },
  ]);
  const output: WorkerOutput = { logLines: 0, errorText: '' };
  let worker: MiniflareWorker | undefined;
  let all: Kind[] = [];
  let samples: Samples | null = null;
  const sdkFloorScript = sdkFloorOrNull(options.repoRoot, sdkFloorDir, report);
  try {
    buildWorkerBundle(options.repoRoot, outDir);
    worker = await startWorker(outDir, canister.url, output, [
      { name: 'plain', direct: true },
      { name: 'limited', direct: true, rateLimits: true },
      { name: 'floor', direct: true, scriptPath: FLOOR_WORKER_PATH },
      ...(sdkFloorScript ? [{ name: 'sdk', direct: true, scriptPath: sdkFloorScript }] : []),
      ...(readPaths.length > 0 ? [phaseWorkerSetup(options.repoRoot, phasesDir, readPaths)] : []),
    ]);
    await worker.ready;
    const bases: Partial<Record<WorkerName, URL>> = {
      plain: await worker.unsafeGetDirectURL('plain'),
      limited: await worker.unsafeGetDirectURL('limited'),
      floor: await worker.unsafeGetDirectURL('floor'),
      ...(sdkFloorScript ? { sdk: await worker.unsafeGetDirectURL('sdk') } : {}),
    };
    const token = await benchToken();
    all = kinds(token, options.smallBody.length, options.mediumBody.length, readPaths, sdkFloorScript !== null);
    const workerd = await workerdPids((pid) => pid === process.pid);
    const sent = new Map<KindKey, number>();
    const send = async (kind: Kind): Promise<number> => {
      const index = sent.get(kind.key) ?? 0;
      sent.set(kind.key, index + 1);
      const started = performance.now();
      const response = await kind.send(bases[kind.worker] as URL, index);
      const text = await response.text();
      const ms = performance.now() - started;
      const mcpError = kind.label.startsWith('MCP') && (text.includes('"isError":true') || text.includes('"error":{'));
      if (response.status !== kind.status || mcpError) throw new Error(`${kind.label}: status ${response.status} ${text.slice(0, 160)}`);
      return ms;
    };
    for (const kind of all) for (let index = 0; index < warmups; index++) await send(kind);
    if (workerd.length > 0) {
      samples = await measureInterleaved(all, send, workerd, passes);
      if (readPaths.length > 0) {
        options.progress(`fixed cost: the phases of a read, ${phaseRounds} rounds`);
        phases = await measurePhases(await worker.unsafeGetDirectURL('phases'), `Bearer ${token}`, workerd, phaseRounds, readPaths.length);
      }
    }
  } catch (error) {
    const why = firstLine(error);
    report.text(`skipped: ${why}`);
    if (output.errorText) report.text(`Worker stderr: ${output.errorText.slice(0, 300)}`);
    return { skipped: why };
  } finally {
    await worker?.dispose();
    canister.close();
    rmSync(outDir, { recursive: true, force: true });
    rmSync(phasesDir, { recursive: true, force: true });
    rmSync(sdkFloorDir, { recursive: true, force: true });
  }
  const measured = samples !== null && [...samples.values()].every((entry) => entry.cpu.every(Number.isFinite));
  if (!samples || !measured) {
    report.text('(workerd schedstat not readable under this process: CPU not measured, nothing judged)');
    return { cpuMeasured: false };
  }
  const taken = samples;
  const cpuOf = (key: KindKey): number[] => (taken.get(key) as { cpu: number[] }).cpu;
  const medianOf = (key: KindKey): number => median(cpuOf(key));
  const blockMedians = (key: KindKey): number[] => blocksOf(cpuOf(key)).map(median);
  /** a - b on the medians, its spread over the blocks. */
  const over = (a: KindKey, b: KindKey): RoundedFigure => {
    const base = blockMedians(b);
    return { ms: medianOf(a) - medianOf(b), spread: spreadOf(blockMedians(a).map((value, block) => value - (base[block] as number))) };
  };
  const health = medianOf('health');
  report.table(
    [{ header: 'request', text: true }, { header: 'status' }, { header: 'n' }, { header: 'p50 ms' }, { header: 'CPU p25' }, { header: 'CPU p50' }, { header: 'CPU p75' }, { header: 'p50-health' }],
    all.map((kind) => {
      const { cpu, latencies } = taken.get(kind.key) as { cpu: number[]; latencies: number[] };
      const sorted = [...cpu].sort((a, b) => a - b);
      const net = kind.key === 'health' ? '0' : (median(cpu) - health).toFixed(3);
      return [kind.label, String(kind.status), String(cpu.length), figure(median(latencies), 2), quantile(sorted, 0.25).toFixed(3), median(cpu).toFixed(3), quantile(sorted, 0.75).toFixed(3), net];
    }),
  );
  report.legend([
    ['CPU', "workerd CPU per request (/proc schedstat, every workerd thread, ns), read around each request: its quartiles"],
    ['p50 ms', 'wall time of the sequential requests over loopback, seen by the client'],
    ['rows', 'every row without a rate-limit binding but the one that says so (Miniflare simulates the binding)'],
  ]);
  const result: FixedCostResult = { cpuMeasured: true, healthCpu: health };
  result.restFixed = over('missing', 'health');
  result.mcpOverRest = MCP_ERAS.map((era) => ({ era, ...over(era, 'small') }));
  result.rateLimit = over('missingLimited', 'missing').ms;
  if (sdkFloorScript) result.sdkFloor = MCP_ERAS.map((era) => ({ era, ...over(`sdk ${era}`, 'sdk json') }));
  if (readPaths.length > 0) {
    const [read, floor, exchange] = (['read', 'floor', 'exchange'] as const).map(blockMedians) as [number[], number[], number[]];
    const ours = over('read', 'exchange').ms;
    const floorMs = over('floor', 'exchange').ms;
    result.read = {
      ours,
      floor: floorMs,
      ratio: ours / floorMs,
      ratioSpread: spreadOf(read.map((value, block) => (value - (exchange[block] as number)) / ((floor[block] as number) - (exchange[block] as number)))),
      ourHealth: over('our no-op', 'exchange').ms,
      mcpOverRead: MCP_ERAS.map((era) => ({ era, ...over(`read ${era}`, 'read') })),
    };
  }
  const mark = (value: number, bound: number | undefined): string => (!quick && bound !== undefined && value > bound ? '!' : '');
  const row = (label: string, value: number, bound?: number, unit = ''): string[] => [
    label,
    `${value.toFixed(3)}${unit}${mark(value, bound)}`,
    bound === undefined ? '-' : `<= ${bound}${unit}`,
  ];
  const derived: string[][] = [
    row('fixed cost of a REST read (404 - /health)', result.restFixed.ms, FIXED_TARGET.restFixedMs),
    ...result.mcpOverRest.map((each) => row(`MCP ${each.era} tools/call over the same REST read`, each.ms, FIXED_TARGET.mcpOverRestMs)),
    ...(result.sdkFloor ?? []).map((each) => row(`MCP floor: the SDK's ${each.era} tools/call over a JSON GET`, each.ms)),
    row('local rate-limit simulation (404 with - without)', result.rateLimit),
    row(`a ${options.mediumBody.length}-char outline over a ${options.smallBody.length}-char one`, over('medium', 'small').ms),
    ...(result.read
      ? [
          row(`our REST read, ${READ_NOTES} (read - no-op)`, result.read.ours),
          row(`the floor's read, ${READ_NOTES} (floor - no-op)`, result.read.floor),
          row(`our read over the floor's (ratio of the two)`, result.read.ratio, FIXED_TARGET.readOverFloor, 'x'),
          row('our GET /health (ours - no-op)', result.read.ourHealth),
          ...result.read.mcpOverRead.map((each) => row(`MCP ${each.era} tools/call over that REST read`, each.ms, FIXED_TARGET.mcpOverRestMs)),
        ]
      : []),
  ];
  report.raw('');
  report.table([{ header: 'derived', text: true }, { header: 'CPU ms' }, { header: 'target' }], derived);
  report.legend([
    ['derived', `differences of the rows' median CPU; a target is judged on that figure and its spread over ${BLOCKS} consecutive blocks of samples`],
    ['targets', `in ms of workerd CPU${quick ? '; not judged per row (--quick), see the summary' : '; ! marks a miss'}`],
    [
      'MCP floor',
      'the official SDK answering a constant one-field tools/call in each era as our Worker serves it (stateless transport ' +
        'with JSON answers; createMcpHandler), over a GET answering the same JSON, on the same Worker ' +
        "(scripts/lib/bench-sdk-floor-worker.ts): the SDK's own cost of one exchange; not judged",
    ],
  ]);
  if (result.read) {
    report.legend([
      [
        'reads',
        `the ${options.readNotes.length} notes of the shared corpus, each read in turn (mean ` +
          `${Math.round(options.readNotes.reduce((sum, note) => sum + note.body.length, 0) / options.readNotes.length)} chars), ` +
          'over REST and MCP on our Worker and through the floor: a Worker that makes the same canister GET, parses ' +
          'its JSON, writes one log line and answers a one-field JSON (scripts/lib/bench-floor-worker.js), on ' +
          "its own socket in the same workerd; both net of the floor's GET /health, which answers at once " +
          '(an HTTP exchange alone: our /health routes, logs and sets headers, so it is not the no-op)',
      ],
    ]);
  }
  if (result.read && phases) {
    result.phases = phases;
    reportPhases(report, phases, result.read.ours, phaseRounds, readPaths.length);
  }
  if (output.errorText) report.text(`Worker stderr: ${output.errorText.slice(0, 300)}`);
  return result;
}
