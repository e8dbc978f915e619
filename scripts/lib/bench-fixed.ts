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
 *   of the same notes over that REST read, measured a request at a time (measureReads); then that
 *   read's CPU by phase (bench-phases.ts).
 *
 * One Miniflare (one workerd process) runs every Worker, each on its own socket (no entry worker in
 * front). The kinds are measured in rounds, each round starting at the next kind, so a change in
 * machine speed lands on each alike; workerd CPU = its /proc/<pid>/stat utime + stime (10 ms ticks,
 * the end-to-end table's measure) over all of a kind's requests / their number, and beside it the
 * same CPU time from the scheduler's schedstat (ns, every thread), which resolves what the ticks
 * cannot: the targets read schedstat where it exists, else the ticks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { figure, median, spreadOf, type Report, type Spread } from './bench-report';
import {
  at,
  benchToken,
  buildWorkerBundle,
  MCP_ERAS,
  mcpToolCall,
  startBenchCanister,
  startWorker,
  FLOOR_WORKER_PATH,
  type McpEra,
  type MiniflareWorker,
  type WorkerInput,
  type WorkerOutput,
} from './bench-worker';
import { schedTime } from './bench-proc';
import { measurePhases, phaseWorkerSetup, reportPhases, type PhaseResult } from './bench-phases';
import { cpuMs, workerdPids } from './process.mjs';
import { restTarget } from './worker-api';

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
  /** False without /proc: nothing judged. */
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
    /** The ratio's spread over the rounds, each round's ratio from that round's figures. */
    ratioSpread: Spread;
    ourHealth: number;
    mcpOverRead: ({ era: McpEra } & RoundedFigure)[];
  };
  /** The per-phase CPU of that REST read (bench-phases.ts), when measured. */
  phases?: PhaseResult;
  /** Which measure the figures above are: schedstat, else stat ticks. */
  measure?: 'schedstat' | 'ticks';
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
  | `read ${McpEra}`;

/** Which of the section's Workers a kind is sent to: ours, ours with the rate-limit bindings, the floor. */
type WorkerName = 'plain' | 'limited' | 'floor';

interface Kind {
  key: KindKey;
  label: string;
  status: number;
  worker: WorkerName;
  /** The kind's `index`th request (reads take the corpus notes in turn). */
  send: (base: URL, index: number) => Promise<Response>;
  /** A read row: measured a request at a time, interleaved with the other read rows (measureReads). */
  interleaved?: boolean;
}

/** What the read rows read, in their labels. */
const READ_NOTES = 'corpus';

const SMALL_PATH = 'bench/fixed-small.md';
const MEDIUM_PATH = 'bench/fixed-medium.md';

function kinds(token: string, smallChars: number, mediumChars: number, readPaths: string[]): Kind[] {
  const outline = (base: URL, notePath: string, authorization: string | null): Promise<Response> =>
    fetch(new URL(restTarget('note_outline', notePath), base), authorization ? { headers: { authorization } } : {});
  const bearer = `Bearer ${token}`;
  const readPath = (index: number): string => readPaths[index % readPaths.length] as string;
  const reads: Kind[] =
    readPaths.length === 0
      ? []
      : [
          { key: 'exchange', label: 'floor GET /health (no-op)', status: 200, worker: 'floor', interleaved: true, send: (base) => fetch(new URL('/health', base)) },
          { key: 'our no-op', label: 'our GET /health', status: 200, worker: 'plain', interleaved: true, send: (base) => fetch(new URL('/health', base)) },
          { key: 'read', label: `REST read, ${READ_NOTES}`, status: 200, worker: 'plain', interleaved: true, send: (base, index) => outline(base, readPath(index), bearer) },
          { key: 'floor', label: `floor read, ${READ_NOTES}`, status: 200, worker: 'floor', interleaved: true, send: (base, index) => outline(base, readPath(index), null) },
          ...MCP_ERAS.map(
            (era): Kind => ({
              key: `read ${era}`,
              label: `MCP ${era} tools/call, ${READ_NOTES}`,
              status: 200,
              worker: 'plain',
              interleaved: true,
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
    ...reads,
  ];
}

/** A difference of CPU per request over all the rounds, and its spread from one round to the next. */
export interface RoundedFigure {
  ms: number;
  spread: Spread;
}

interface Measured {
  kind: Kind;
  latencies: number[];
  /** Total workerd CPU ms over the kind's requests (0 without /proc): stat ticks, and schedstat. */
  cpuTotal: number;
  schedTotal: number;
  /** Per round, CPU ms per request, on the measure the targets read (schedstat, else ticks). */
  rounds: { cpu: number; sched: number }[];
  cpu: number;
  sched: number;
}

/** Per read kind, each request's workerd CPU (schedstat ms) and wall ms, in the order they were sent. */
type ReadSamples = Map<KindKey, { cpu: number[]; latencies: number[] }>;

/** Consecutive blocks the read samples are cut into for a figure's spread, as rounds are for the other rows. */
const READ_BLOCKS = 8;

/**
 * The read rows, a request at a time: each pass sends one request of every read kind, in an order
 * that turns by one each pass, and reads every workerd thread's schedstat around each request with
 * workerd idle (a 1 ms timer either side). A request's CPU is then its own, and a burst of other load
 * on the shared machine lands on a few samples, which the medians set aside; totals over a batch
 * carried it into the figure.
 */
async function measureReads(kinds: Kind[], send: (kind: Kind) => Promise<number>, workerd: number[], passes: number): Promise<ReadSamples> {
  const samples: ReadSamples = new Map(kinds.map((kind) => [kind.key, { cpu: [], latencies: [] }]));
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

/** The samples cut into READ_BLOCKS consecutive blocks. */
function blocksOf(samples: number[]): number[][] {
  const size = Math.ceil(samples.length / READ_BLOCKS);
  return Array.from({ length: Math.ceil(samples.length / size) }, (_, block) => samples.slice(block * size, (block + 1) * size));
}

/** The fixed-cost section. */
export async function fixedCostSection(options: FixedCostOptions): Promise<FixedCostResult> {
  const { report, quick } = options;
  report.section('Fixed cost per request: workerd CPU by kind of request');
  const rounds = quick ? 2 : 4;
  const perRound = quick ? 40 : 100;
  const warmups = quick ? 5 : 20;
  report.text(
    `${rounds} rounds of ${perRound} sequential requests per kind (after ${warmups} warm-up requests each), each round ` +
      'starting at the next kind; the bundle in one Miniflare, each Worker on its own socket.',
  );
  report.raw('');
  options.progress(`fixed cost: ${rounds} rounds of ${perRound} requests per kind`);
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-fixed-'));
  const phasesDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-phases-'));
  const readPaths = options.readNotes.map((note) => note.path);
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
  let measured: Measured[];
  let workerd: number[];
  let reads: ReadSamples | null = null;
  try {
    buildWorkerBundle(options.repoRoot, outDir);
    worker = await startWorker(outDir, canister.url, output, [
      { name: 'plain', direct: true },
      { name: 'limited', direct: true, rateLimits: true },
      { name: 'floor', direct: true, scriptPath: FLOOR_WORKER_PATH },
      ...(readPaths.length > 0 ? [phaseWorkerSetup(options.repoRoot, phasesDir, readPaths)] : []),
    ]);
    await worker.ready;
    const bases: Record<WorkerName, URL> = {
      plain: await worker.unsafeGetDirectURL('plain'),
      limited: await worker.unsafeGetDirectURL('limited'),
      floor: await worker.unsafeGetDirectURL('floor'),
    };
    const token = await benchToken();
    all = kinds(token, options.smallBody.length, options.mediumBody.length, readPaths);
    workerd = await workerdPids((pid) => pid === process.pid);
    const sent = new Map<KindKey, number>();
    const send = async (kind: Kind): Promise<number> => {
      const index = sent.get(kind.key) ?? 0;
      sent.set(kind.key, index + 1);
      const started = performance.now();
      const response = await kind.send(bases[kind.worker], index);
      const text = await response.text();
      const ms = performance.now() - started;
      const mcpError = kind.label.startsWith('MCP') && (text.includes('"isError":true') || text.includes('"error":{'));
      if (response.status !== kind.status || mcpError) throw new Error(`${kind.label}: status ${response.status} ${text.slice(0, 160)}`);
      return ms;
    };
    const batched = all.filter((kind) => !kind.interleaved);
    measured = batched.map((kind) => ({ kind, latencies: [], cpuTotal: 0, schedTotal: 0, rounds: [], cpu: NaN, sched: NaN }));
    for (const kind of all) for (let index = 0; index < warmups; index++) await send(kind);
    for (let round = 0; round < rounds; round++) {
      for (let step = 0; step < batched.length; step++) {
        const entry = measured[(round + step) % batched.length] as Measured;
        const before = await cpuMs(workerd);
        const schedBefore = await schedTime(workerd);
        for (let index = 0; index < perRound; index++) entry.latencies.push(await send(entry.kind));
        const schedAfter = await schedTime(workerd);
        const cpu = (await cpuMs(workerd)) - before;
        const sched = schedBefore && schedAfter ? schedAfter.runMs - schedBefore.runMs : NaN;
        entry.cpuTotal += cpu;
        entry.schedTotal += sched;
        entry.rounds.push({ cpu: cpu / perRound, sched: sched / perRound });
      }
    }
    if (readPaths.length > 0 && workerd.length > 0) {
      const passes = quick ? 1 : 3;
      options.progress(`fixed cost: ${passes} interleaved passes over the ${readPaths.length} read notes`);
      reads = await measureReads(all.filter((kind) => kind.interleaved), send, workerd, passes * readPaths.length);
      options.progress(`fixed cost: the phases of a read, ${phaseRounds} rounds`);
      phases = await measurePhases(await worker.unsafeGetDirectURL('phases'), `Bearer ${token}`, workerd, phaseRounds, readPaths.length);
    }
  } catch (error) {
    const why = error instanceof Error ? (error.message.split('\n')[0] as string) : String(error);
    report.text(`skipped: ${why}`);
    if (output.errorText) report.text(`Worker stderr: ${output.errorText.slice(0, 300)}`);
    return { skipped: why };
  } finally {
    await worker?.dispose();
    canister.close();
    rmSync(outDir, { recursive: true, force: true });
    rmSync(phasesDir, { recursive: true, force: true });
  }
  const cpuMeasured = workerd.length > 0;
  for (const entry of measured) {
    entry.cpu = entry.cpuTotal / entry.latencies.length;
    entry.sched = entry.schedTotal / entry.latencies.length;
    entry.latencies.sort((a, b) => a - b);
  }
  const entryOf = (key: KindKey): Measured => measured.find((entry) => entry.kind.key === key) as Measured;
  const cpuOf = (key: KindKey): number => entryOf(key).cpu;
  const schedOf = (key: KindKey): number => entryOf(key).sched;
  const health = cpuOf('health');
  const schedRead = cpuMeasured && measured.every((entry) => Number.isFinite(entry.sched));
  const cell = (value: number): string => (cpuMeasured ? value.toFixed(2) : '-');
  const schedCell = (value: number): string => (schedRead ? value.toFixed(3) : '-');
  report.table(
    [
      { header: 'request', text: true },
      { header: 'status' },
      { header: 'n' },
      { header: 'p50 ms' },
      { header: 'CPU ms' },
      { header: 'CPU-health' },
      { header: 'sched ms' },
      { header: 'sched-health' },
    ],
    measured.map((entry) => [
      entry.kind.label,
      String(entry.kind.status),
      String(entry.latencies.length),
      figure(at(entry.latencies, 0.5), 2),
      cell(entry.cpu),
      entry.kind.key === 'health' ? '0' : cell(entry.cpu - health),
      schedCell(entry.sched),
      entry.kind.key === 'health' ? '0' : schedCell(entry.sched - schedOf('health')),
    ]),
  );
  report.legend([
    ['CPU ms', "workerd's user + system CPU (/proc stat, 10 ms ticks) over all the kind's requests, per request"],
    ['sched ms', 'the same CPU from the scheduler (/proc schedstat, every workerd thread, ns): no tick rounding'],
    ['p50 ms', 'wall time of the sequential requests over loopback, seen by the client'],
    ['rows', 'every row without a rate-limit binding but the one that says so (Miniflare simulates the binding)'],
  ]);
  const result: FixedCostResult = { cpuMeasured, healthCpu: health };
  if (!cpuMeasured) {
    report.raw('');
    report.text('(workerd process not found under this process: CPU not measured, nothing judged)');
    return result;
  }
  // The targets read schedstat where it was read (the same CPU time, unrounded), else the ticks.
  const judged = (a: KindKey, b: KindKey): number => (schedRead ? schedOf(a) - schedOf(b) : cpuOf(a) - cpuOf(b));
  /** Round r of a kind on the judged measure; a round measures every kind once, close in time. */
  const inRound = (key: KindKey, round: number): number => {
    const figures = entryOf(key).rounds[round] as { cpu: number; sched: number };
    return schedRead ? figures.sched : figures.cpu;
  };
  const roundIndexes = Array.from({ length: rounds }, (_, round) => round);
  const rounded = (a: KindKey, b: KindKey): RoundedFigure => ({
    ms: judged(a, b),
    spread: spreadOf(roundIndexes.map((round) => inRound(a, round) - inRound(b, round))),
  });
  result.measure = schedRead ? 'schedstat' : 'ticks';
  result.restFixed = rounded('missing', 'health');
  result.mcpOverRest = MCP_ERAS.map((era) => ({ era, ...rounded(era, 'small') }));
  result.rateLimit = judged('missingLimited', 'missing');
  // The read rows: medians of per-request CPU, their spread over consecutive blocks of samples.
  const readSamples = reads;
  const readsMeasured = readSamples !== null && [...readSamples.values()].every((entry) => entry.cpu.every(Number.isFinite));
  const readCpu = (key: KindKey): number => median((readSamples?.get(key)?.cpu ?? []) as number[]);
  const readBlocks = (key: KindKey): number[] => blocksOf(readSamples?.get(key)?.cpu ?? []).map(median);
  if (readsMeasured) {
    const [read, floor, exchange] = (['read', 'floor', 'exchange'] as const).map(readBlocks) as [number[], number[], number[]];
    const ours = readCpu('read') - readCpu('exchange');
    const floorMs = readCpu('floor') - readCpu('exchange');
    result.read = {
      ours,
      floor: floorMs,
      ratio: ours / floorMs,
      ratioSpread: spreadOf(read.map((value, block) => (value - (exchange[block] as number)) / ((floor[block] as number) - (exchange[block] as number)))),
      ourHealth: readCpu('our no-op') - readCpu('exchange'),
      mcpOverRead: MCP_ERAS.map((era) => ({
        era,
        ms: readCpu(`read ${era}`) - readCpu('read'),
        spread: spreadOf(readBlocks(`read ${era}`).map((value, block) => value - (read[block] as number))),
      })),
    };
  }
  const mark = (value: number, bound: number | undefined): string => (!quick && bound !== undefined && value > bound ? '!' : '');
  const difference = (a: KindKey, b: KindKey, bound?: number): string[] => {
    const ticks = cpuOf(a) - cpuOf(b);
    const sched = schedOf(a) - schedOf(b);
    return [
      `${ticks.toFixed(2)}${schedRead ? '' : mark(ticks, bound)}`,
      `${schedCell(sched)}${schedRead ? mark(sched, bound) : ''}`,
      bound === undefined ? '-' : `<= ${bound}`,
    ];
  };
  const derived: string[][] = [
    ['fixed cost of a REST read (404 - /health)', ...difference('missing', 'health', FIXED_TARGET.restFixedMs)],
    ...MCP_ERAS.map((era) => [`MCP ${era} tools/call over the same REST read`, ...difference(era, 'small', FIXED_TARGET.mcpOverRestMs)]),
    ['local rate-limit simulation (404 with - without)', ...difference('missingLimited', 'missing')],
    [`a ${options.mediumBody.length}-char outline over a ${options.smallBody.length}-char one`, ...difference('medium', 'small')],
    ...(result.read
      ? [
          [`our REST read, ${READ_NOTES} (read - no-op)`, '-', result.read.ours.toFixed(3), '-'],
          [`the floor's read, ${READ_NOTES} (floor - no-op)`, '-', result.read.floor.toFixed(3), '-'],
          [`our read over the floor's (ratio of the two)`, '-', `${result.read.ratio.toFixed(2)}x${mark(result.read.ratio, FIXED_TARGET.readOverFloor)}`, `<= ${FIXED_TARGET.readOverFloor}x`],
          ['our GET /health (our no-op - no-op)', '-', result.read.ourHealth.toFixed(3), '-'],
          ...result.read.mcpOverRead.map((each) => [
            `MCP ${each.era} tools/call over that REST read`,
            '-',
            `${each.ms.toFixed(3)}${mark(each.ms, FIXED_TARGET.mcpOverRestMs)}`,
            `<= ${FIXED_TARGET.mcpOverRestMs}`,
          ]),
        ]
      : []),
  ];
  report.raw('');
  report.table([{ header: 'derived', text: true }, { header: 'CPU ms' }, { header: 'sched ms' }, { header: 'target' }], derived);
  report.legend([
    [
      'derived',
      `differences of the rows above; over ${rounds} batches of ${perRound} the ticks resolve about ` +
        `${((10 * Math.sqrt(2 * rounds)) / (rounds * perRound)).toFixed(2)} ms, schedstat far finer`,
    ],
    [
      'targets',
      `in ms of workerd CPU, read from the ${schedRead ? 'sched ms' : 'CPU ms'} column` +
        (quick ? '; not judged per row (--quick), see the summary' : '; ! marks a miss'),
    ],
  ]);
  if (readsMeasured && readSamples) {
    report.raw('');
    const quartile = (values: number[], q: number): number => [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))] as number;
    report.table(
      [{ header: 'read rows, a request at a time', text: true }, { header: 'n' }, { header: 'p50 ms' }, { header: 'sched p25' }, { header: 'sched p50' }, { header: 'sched p75' }],
      all
        .filter((kind) => kind.interleaved)
        .map((kind) => {
          const { cpu, latencies } = readSamples.get(kind.key) as { cpu: number[]; latencies: number[] };
          return [kind.label, String(cpu.length), figure(median(latencies), 2), quartile(cpu, 0.25).toFixed(3), median(cpu).toFixed(3), quartile(cpu, 0.75).toFixed(3)];
        }),
    );
    report.legend([
      [
        'read rows',
        'interleaved a request at a time (measureReads): workerd CPU per request from schedstat around it, its ' +
          `quartiles over the requests; the derived read figures are differences of medians, their spread the ${READ_BLOCKS} ` +
          'consecutive blocks of samples',
      ],
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
