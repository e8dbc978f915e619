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
 *   of the same notes over that REST read; then that read's CPU by phase (bench-phases.ts).
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
import { figure, spreadOf, type Report, type Spread } from './bench-report';
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
          { key: 'exchange', label: 'floor GET /health (no-op)', status: 200, worker: 'floor', send: (base) => fetch(new URL('/health', base)) },
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
  let measured: Measured[];
  let workerd: number[];
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
    const all = kinds(token, options.smallBody.length, options.mediumBody.length, readPaths);
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
    measured = all.map((kind) => ({ kind, latencies: [], cpuTotal: 0, schedTotal: 0, rounds: [], cpu: NaN, sched: NaN }));
    for (const kind of all) for (let index = 0; index < warmups; index++) await send(kind);
    for (let round = 0; round < rounds; round++) {
      for (let step = 0; step < all.length; step++) {
        const entry = measured[(round + step) % all.length] as Measured;
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
  const readsMeasured = options.readNotes.length > 0;
  if (readsMeasured) {
    const ours = judged('read', 'exchange');
    const floor = judged('floor', 'exchange');
    const ratioSpread = spreadOf(
      roundIndexes.map((round) => (inRound('read', round) - inRound('exchange', round)) / (inRound('floor', round) - inRound('exchange', round))),
    );
    result.read = {
      ours,
      floor,
      ratio: ours / floor,
      ratioSpread,
      ourHealth: judged('health', 'exchange'),
      mcpOverRead: MCP_ERAS.map((era) => ({ era, ...rounded(`read ${era}`, 'read') })),
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
  /** (a - base) / (b - base) on both measures, marked against `bound` on the judged one. */
  const ratio = (a: KindKey, b: KindKey, base: KindKey, bound: number): string[] => {
    const ticks = (cpuOf(a) - cpuOf(base)) / (cpuOf(b) - cpuOf(base));
    const sched = (schedOf(a) - schedOf(base)) / (schedOf(b) - schedOf(base));
    return [
      `${ticks.toFixed(2)}x${schedRead ? '' : mark(ticks, bound)}`,
      schedRead ? `${sched.toFixed(2)}x${mark(sched, bound)}` : '-',
      `<= ${bound}x`,
    ];
  };
  const derived: string[][] = [
    ['fixed cost of a REST read (404 - /health)', ...difference('missing', 'health', FIXED_TARGET.restFixedMs)],
    ...MCP_ERAS.map((era) => [`MCP ${era} tools/call over the same REST read`, ...difference(era, 'small', FIXED_TARGET.mcpOverRestMs)]),
    ['local rate-limit simulation (404 with - without)', ...difference('missingLimited', 'missing')],
    [`a ${options.mediumBody.length}-char outline over a ${options.smallBody.length}-char one`, ...difference('medium', 'small')],
    ...(readsMeasured
      ? [
          [`our REST read, ${READ_NOTES} (read - no-op)`, ...difference('read', 'exchange')],
          [`the floor's read, ${READ_NOTES} (floor - no-op)`, ...difference('floor', 'exchange')],
          [`our read over the floor's (ratio of the two)`, ...ratio('read', 'floor', 'exchange', FIXED_TARGET.readOverFloor)],
          ['our GET /health (health - no-op)', ...difference('health', 'exchange')],
          ...MCP_ERAS.map((era) => [`MCP ${era} tools/call over that REST read`, ...difference(`read ${era}`, 'read', FIXED_TARGET.mcpOverRestMs)]),
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
  if (readsMeasured) {
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
