/**
 * The bench's end-to-end section (scripts/bench.ts only): sequential loopback requests to the
 * bundled Worker (wrangler deploy --dry-run) in Miniflare (workerd) with a loopback canister. Wall
 * time per request from the client; workerd CPU from /proc ticks of the workerd process around each
 * batch (workerd reports no CPU time and its timers stand still during computation).
 *
 * Rows: three baselines (/health, 401, 404), then note-outline over REST per input and, for single
 * notes, over MCP tools/call on each era (heavy inputs, the 1M-char notes of short paragraphs with
 * inline syntax, over REST only, each judged against HEAVY_CPU_MS of workerd CPU); then the
 * folders-only scope comparison: an existing 1 MB note outside the scope, a missing note outside it
 * and a missing note inside it, each with a session token scoped to `projects/alpha` (the Worker
 * answers the first two before any canister read, src/read-note.ts isOutsideScopeUnread).
 *
 * The canister, the bundle build, the Miniflare start and the request shapes are exported for the
 * startup and fixed-cost sections (bench-startup.ts, bench-fixed.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { figure, firstLine, type Report } from './bench-report';
import { cpuMs, workerdPids } from './process.mjs';
import { MCP_ERAS, restTarget, toolCallRequest, type McpEra } from './worker-api';

/** The notes the canister serves: one input = one or more notes requested in turn. */
export interface WorkerInput {
  name: string;
  /** Each note's frontmatter as the canister sends it (JSON text); '{}' when absent. */
  notes: { path: string; body: string; wireFrontmatter?: string }[];
  chars: number;
  /** Over REST only (no MCP rows), its workerd CPU judged against the heavy-note bound (the 1M inline-syntax notes). */
  heavy?: boolean;
}

export interface EndToEndOptions {
  quick: boolean;
  repoRoot: string;
  report: Report;
  /** A progress line for the terminal (not part of the report). */
  progress: (line: string) => void;
  /** buildContract note_outline per note in Node, ms, for the table's in-process column. */
  inProcessMs: (input: WorkerInput) => number;
}

/** The scope comparison's three rows. */
export interface ScopeRow {
  label: string;
  path: string;
  requests: number;
  p50: number;
  cpu: number;
  /** Canister reads per request, warm-up requests included. */
  reads: number;
}

/** What the summary quotes from this section. */
export interface EndToEndResult {
  /** Why the section did not run or stopped, if it did not finish. */
  skipped?: string;
  /** workerd CPU ms of a no-op GET /health: how fast the machine was during the run. */
  healthCpu?: number;
  /** False without /proc (no CPU columns). */
  cpuMeasured?: boolean;
  scope?: { rows: ScopeRow[]; sameAnswer: boolean };
  /** workerd CPU ms per request of each `heavy` input (over REST), when CPU was measured. */
  heavyRows?: { name: string; cpu: number }[];
}

/** The bound on workerd CPU ms per request of a heavy input (the 1M-char inline-syntax notes). */
export const HEAVY_CPU_MS = 100;

const BENCH_CANISTER_SECRET = 'bench-canister-secret';
const BENCH_SESSION_SECRET = 'bench-session-secret-0123456789abcdef';
/** The folders-only hosted scope of the scope comparison's token (the Hub's `scope` claim object). */
const SCOPE_FOLDER = 'projects/alpha';
export type MiniflareWorker = {
  ready: Promise<URL>;
  dispose(): Promise<void>;
  /** The URL of a worker's own socket (`unsafeDirectSockets`): no Miniflare entry worker in front. */
  unsafeGetDirectURL(workerName?: string): Promise<URL>;
};
type Send = (notePath: string) => Promise<Response>;

export interface BenchCanister {
  url: string;
  /** Requests received, and those refused for a wrong X-Gateway-Auth. */
  calls: number;
  refusals: number;
  close(): void;
}

/** What the Worker wrote: JSON log lines are counted, error output kept. */
export interface WorkerOutput {
  logLines: number;
  errorText: string;
}

interface BenchClient {
  health: Send;
  noteOutline: Send;
  noteOutlineWithoutToken: Send;
  mcp(era: McpEra): Send;
}

/** One measured batch: sorted latencies, workerd CPU ms per request (0 without /proc), requests sent with warm-up. */
interface Batch {
  latencies: number[];
  cpu: number;
  sent: number;
}

/** A loopback canister holding the bench notes: 401 without the gateway secret, 404 for an unknown path. */
export async function startBenchCanister(inputs: WorkerInput[]): Promise<BenchCanister> {
  const notes = new Map(inputs.flatMap((input) => input.notes.map((note) => [note.path, note] as const)));
  const canister: BenchCanister = { url: '', calls: 0, refusals: 0, close: () => server.close() };
  const server = http.createServer((request, response) => {
    canister.calls++;
    if (request.headers['x-gateway-auth'] !== BENCH_CANISTER_SECRET) {
      canister.refusals++;
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const match = /^\/api\/v1\/notes\/(.+)$/.exec(new URL(request.url ?? '/', 'http://x').pathname);
    const notePath = match ? decodeURIComponent(match[1] as string) : '';
    const note = notes.get(notePath);
    if (note === undefined) response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    else {
      // With its length declared, as the demo canister (demo/canister/http.mjs) and a JSON API answer.
      const document = Buffer.from(JSON.stringify({ path: notePath, frontmatter: note.wireFrontmatter ?? '{}', body: note.body }), 'utf8');
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(document.length) }).end(document);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  canister.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return canister;
}

/** The environment of every wrangler command the bench runs: no metrics, no network look-ups. */
export const WRANGLER_ENV = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', NO_COLOR: '1', FORCE_COLOR: '0' };

/** Runs the project's wrangler with `args` in repoRoot; its exit code and output (stdout then stderr). */
export function runWrangler(repoRoot: string, args: string[], timeoutMs = 180_000): { status: number | null; output: string; error?: Error } {
  const run = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules/wrangler/bin/wrangler.js'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: WRANGLER_ENV,
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: run.status, output: `${run.stdout ?? ''}${run.stderr ?? ''}`, ...(run.error ? { error: run.error } : {}) };
}

/**
 * The Worker bundle as `wrangler deploy` would upload it (--dry-run, into outDir; `extraArgs` such
 * as `--metafile`); wrangler's output, which holds its "Total Upload" line. Throws when it fails.
 */
export function buildWorkerBundle(repoRoot: string, outDir: string, extraArgs: string[] = []): string {
  const run = runWrangler(repoRoot, ['deploy', '--dry-run', '--outdir', outDir, ...extraArgs]);
  if (run.status !== 0) {
    const why = run.error?.message ?? run.output.split('\n').filter((line) => /error/i.test(line))[0] ?? `exit ${run.status}`;
    throw new Error(`wrangler deploy --dry-run failed: ${why.trim()}`);
  }
  return run.output;
}

/** How one bench Worker is set up beyond the defaults. */
export interface WorkerSetup {
  /** Its name, when Miniflare runs more than one. */
  name?: string;
  /** Its own loopback socket (unsafeGetDirectURL): requests reach it without Miniflare's entry worker. */
  direct?: boolean;
  /**
   * Both rate-limit bindings, as `[env.load]` in wrangler.toml sets them (1,000,000 per 10 s: never
   * reached), so the Worker takes them on every read as production does (Miniflare's simulation).
   * Without them ENVIRONMENT=local serves unlimited (src/rate-limit.ts), as the other sections run.
   */
  rateLimits?: boolean;
  /** A module other than the bundle's index.js (the floor Worker, the phase Worker), run as it is. */
  scriptPath?: string;
  /** Bindings beside the bench configuration. */
  bindings?: Record<string, string>;
}

/** The read floor: a Worker that makes our canister GET, parses it, logs one line and answers (scripts/lib/bench-floor-worker.js). */
export const FLOOR_WORKER_PATH = fileURLToPath(new URL('./bench-floor-worker.js', import.meta.url));

/** The MCP floor: the official SDK answering one constant tools/call in each era (scripts/lib/bench-sdk-floor-worker.ts). */
const SDK_FLOOR_ENTRY = 'scripts/lib/bench-sdk-floor-worker.ts';

/** Builds the MCP floor Worker into outDir with the Worker's own configuration; the path of its module. */
export function buildSdkFloorWorker(repoRoot: string, outDir: string): string {
  buildWorkerBundle(repoRoot, outDir, [SDK_FLOOR_ENTRY]);
  return path.join(outDir, `${path.basename(SDK_FLOOR_ENTRY, '.ts')}.js`);
}

/**
 * The MCP floor built into outDir, or null once the report says why it was not: the floor is a
 * reference, judged nothing, so a section goes on without it.
 */
export function sdkFloorOrNull(repoRoot: string, outDir: string, report: Report): string | null {
  try {
    return buildSdkFloorWorker(repoRoot, outDir);
  } catch (error) {
    report.text(`MCP floor: not built (${firstLine(error)})`);
    return null;
  }
}

/** Miniflare's options for one bench Worker: the bundle in outDir, reading notes from the canister. */
function workerOptions(outDir: string, canisterUrl: string, setup: WorkerSetup): Record<string, unknown> {
  const lifted = { simple: { limit: 1_000_000, period: 10 } };
  const scriptPath = setup.scriptPath ?? path.join(outDir, 'index.js');
  return {
    ...(setup.name ? { name: setup.name } : {}),
    scriptPath,
    modules: true,
    modulesRoot: path.dirname(scriptPath),
    compatibilityDate: '2026-04-01',
    ...(setup.direct ? { unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }] } : {}),
    ...(setup.rateLimits ? { ratelimits: { RATE_LIMITER: lifted, PROTOCOL_RATE_LIMITER: lifted } } : {}),
    bindings: {
      CANISTER_URL: canisterUrl,
      CANISTER_AUTH_SECRET: BENCH_CANISTER_SECRET,
      SESSION_SECRET: BENCH_SESSION_SECRET,
      ENVIRONMENT: 'local',
      CANISTER_TIMEOUT_MS: '30000',
      ...setup.bindings,
    },
  };
}

/**
 * The bundled Worker in Miniflare (workerd) on a loopback port, reading notes from the canister;
 * with several setups, one Miniflare (one workerd process) running each as its own Worker.
 */
export async function startWorker(outDir: string, canisterUrl: string, output: WorkerOutput, setups: WorkerSetup[] = [{}]): Promise<MiniflareWorker> {
  const { Miniflare } = await import('miniflare');
  const workers = setups.map((setup) => workerOptions(outDir, canisterUrl, setup));
  return new Miniflare({
    ...(workers.length === 1 ? workers[0] : { workers }),
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
  } as ConstructorParameters<typeof Miniflare>[0]) as unknown as MiniflareWorker;
}

/** A one-hour viewer session token (HS256) for the bench user, optionally scoped to folders. */
export async function benchToken(scopeFolders?: string[]): Promise<string> {
  const { mintToken } = await import('../token.mjs');
  return mintToken({ sub: 'bench-user', role: 'viewer', type: 'session', ttlSeconds: 3600, scopeFolders, secret: BENCH_SESSION_SECRET });
}

/** The same tool call on each MCP era (worker-api.ts toolCallRequest), sent. */
export function mcpToolCall(base: URL, token: string, era: McpEra, notePath: string): Promise<Response> {
  return fetch(toolCallRequest(base, token, era, notePath));
}

function benchClient(base: URL, token: string): BenchClient {
  const outline = (notePath: string): URL => new URL(restTarget('note_outline', notePath), base);
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
  if (probe.status === 404 && canister.calls === 0) return `GET /api/v1/note-outline is not served yet (404: ${probeText.slice(0, 120)})`;
  if (probe.status !== 200) return `the probe answered ${probe.status} ${probeText.slice(0, 200)}`;
  return null;
}

export const at = (latencies: number[], quantile: number): number =>
  latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(quantile * latencies.length) - 1))] as number;

/** Measures and tabulates the requests through the Worker. */
class EndToEnd {
  readonly rows: string[][] = [];
  private readonly small: number;
  private healthCpu = 0;
  private missingP50 = 0;
  /** workerd CPU ms per request of each heavy input. */
  readonly heavy: { name: string; cpu: number }[] = [];

  constructor(
    private readonly options: EndToEndOptions,
    private readonly client: BenchClient,
    private readonly workerd: number[],
  ) {
    this.small = options.quick ? 30 : 300;
  }

  get health(): number {
    return this.healthCpu;
  }

  /**
   * `count` sequential requests over `paths` (after a few warm-up ones), each expected to answer
   * `expected`; workerd's CPU ticks are read around the batch.
   */
  async measure(label: string, paths: string[], count: number, expected: number, send: Send, how: { warmup?: boolean; quiet?: boolean } = {}): Promise<Batch> {
    const warmups = how.warmup === false ? 0 : Math.min(this.options.quick ? 3 : 10, count);
    for (let index = 0; index < warmups; index++) await (await send(paths[index % paths.length] as string)).arrayBuffer();
    const latencies: number[] = [];
    const cpuBefore = await cpuMs(this.workerd);
    for (let index = 0; index < count; index++) {
      const start = performance.now();
      const response = await send(paths[index % paths.length] as string);
      await response.arrayBuffer();
      latencies.push(performance.now() - start);
      if (response.status !== expected) throw new Error(`status ${response.status} for ${label}`);
    }
    const cpu = ((await cpuMs(this.workerd)) - cpuBefore) / count;
    latencies.sort((a, b) => a - b);
    if (!how.quiet) this.options.progress(`  measured ${label}: ${count} requests`);
    return { latencies, cpu, sent: warmups + count };
  }

  private cpu(value: number): string {
    return this.workerd.length > 0 ? value.toFixed(2) : '-';
  }

  private row(label: string, chars: number, batch: Batch, beyond404: string, cpuBeyondHealth: string, inProcess: string, cpuMark = ''): void {
    const { latencies, cpu } = batch;
    this.rows.push([label, String(chars), String(latencies.length), figure(at(latencies, 0.5), 2), figure(at(latencies, 0.99), 2), beyond404, `${this.cpu(cpu)}${cpuMark}`, cpuBeyondHealth, inProcess]);
  }

  async measureBaselines(firstPath: string): Promise<void> {
    const health = await this.measure('GET /health', ['/health'], this.small, 200, this.client.health);
    const refused = await this.measure('no token (401)', [firstPath], this.small, 401, this.client.noteOutlineWithoutToken);
    const missing = await this.measure('missing note (404)', ['bench/missing.md'], this.small, 404, this.client.noteOutline);
    this.healthCpu = health.cpu;
    this.missingP50 = at(missing.latencies, 0.5);
    this.row('GET /health', 0, health, '-', '0', '-');
    this.row('401, no token', 0, refused, '-', this.cpu(refused.cpu - this.healthCpu), '-');
    this.row('404, missing note', 0, missing, '0', this.cpu(missing.cpu - this.healthCpu), '-');
  }

  private requestCount(input: WorkerInput): number {
    if (input.chars / input.notes.length > 500_000) return this.options.quick ? 5 : 40;
    return input.notes.length > 1 ? (this.options.quick ? input.notes.length : 3 * input.notes.length) : this.small;
  }

  private addRequestRow(label: string, chars: number, batch: Batch, inProcess: string, cpuMark = ''): void {
    const beyond404 = (at(batch.latencies, 0.5) - this.missingP50).toFixed(2);
    this.row(label, chars, batch, beyond404, this.cpu(batch.cpu - this.healthCpu), inProcess, cpuMark);
  }

  async measureInput(input: WorkerInput): Promise<void> {
    const paths = input.notes.map((note) => note.path);
    const count = this.requestCount(input);
    const rest = await this.measure(input.name, paths, count, 200, this.client.noteOutline);
    const cpuMark = input.heavy && !this.options.quick && this.workerd.length > 0 && rest.cpu > HEAVY_CPU_MS ? '!' : '';
    this.addRequestRow(`REST ${input.name}`, Math.round(input.chars / input.notes.length), rest, this.options.inProcessMs(input).toFixed(2), cpuMark);
    if (input.heavy) this.heavy.push({ name: input.name, cpu: rest.cpu });
    if (input.notes.length !== 1 || input.heavy) return;
    for (const era of MCP_ERAS) {
      const probeCall = await this.client.mcp(era)(paths[0] as string);
      const probeBody = await probeCall.text();
      if (probeCall.status !== 200 || probeBody.includes('"isError":true') || probeBody.includes('"error":{')) {
        throw new Error(`MCP ${era}: status ${probeCall.status} for ${input.name}`);
      }
      const mcp = await this.measure(`${input.name} MCP ${era}`, paths, count, 200, this.client.mcp(era));
      this.addRequestRow(`MCP ${era} ${input.name}`, input.chars, mcp, '-');
    }
  }

  /**
   * The three scope rows, sampled in turn over rounds, each round starting at the next row (so a
   * change in machine speed, or work a batch leaves behind, lands on each alike); per row: p50 of
   * every latency, workerd CPU = all its ticks / all its requests.
   */
  async measureScope(canister: BenchCanister, scoped: BenchClient, largeNote: string): Promise<ScopeRow[]> {
    const rows = [
      { label: '(1) outside, existing 1 MB note', path: largeNote },
      { label: '(2) outside, missing note', path: 'bench/missing-note.md' },
      { label: '(3) inside, missing note', path: `${SCOPE_FOLDER}/missing-note.md` },
    ];
    // These requests are cheap: more of them than elsewhere and in few batches, so that /proc's
    // 10 ms ticks (one rounding per batch) resolve a few hundredths of a ms per request.
    const rounds = this.options.quick ? 3 : 6;
    const perRound = this.options.quick ? 80 : 150;
    const totals = rows.map(() => ({ latencies: [] as number[], cpu: 0, sent: 0, reads: 0 }));
    for (let round = 0; round < rounds; round++) {
      // Each round starts at the next row, so no row always follows the same one.
      for (let step = 0; step < rows.length; step++) {
        const index = (round + step) % rows.length;
        const row = rows[index] as (typeof rows)[number];
        const total = totals[index] as (typeof totals)[number];
        const callsBefore = canister.calls;
        const batch = await this.measure(row.label, [row.path], perRound, 404, scoped.noteOutline, { warmup: round === 0, quiet: true });
        total.reads += canister.calls - callsBefore;
        total.sent += batch.sent;
        total.cpu += batch.cpu * batch.latencies.length;
        total.latencies.push(...batch.latencies);
      }
    }
    this.options.progress(`  measured the scope comparison: ${rounds} rounds of ${perRound} requests per row`);
    return rows.map((row, index) => {
      const total = totals[index] as (typeof totals)[number];
      total.latencies.sort((a, b) => a - b);
      const requests = total.latencies.length;
      return { ...row, requests, p50: at(total.latencies, 0.5), cpu: total.cpu / requests, reads: total.reads / total.sent };
    });
  }
}

/** True when both paths get the same status and body (the request id header aside). */
async function sameAnswer(send: Send, first: string, second: string): Promise<boolean> {
  const [a, b] = await Promise.all([send(first), send(second)]);
  const [textA, textB] = await Promise.all([a.text(), b.text()]);
  return a.status === b.status && textA === textB;
}

function reportEndToEnd(options: EndToEndOptions, measured: EndToEnd, canister: BenchCanister, output: WorkerOutput, cpuMeasured: boolean): void {
  const { report } = options;
  report.table(
    [
      { header: 'request', text: true },
      { header: 'chars' },
      { header: 'n' },
      { header: 'p50 ms' },
      { header: 'p99 ms' },
      { header: 'p50-404' },
      { header: 'CPU ms' },
      { header: 'CPU-health' },
      { header: 'in-process' },
    ],
    measured.rows,
  );
  report.legend([
    ['chars', 'chars per request (the corpus: the mean of its notes); n = requests, after a few warm-up ones'],
    ['p50 ms, p99 ms', 'wall time of sequential requests over loopback HTTP, seen by the client'],
    ['p50-404', 'p50 beyond the 404 row, which pays the same JWT check and canister round trip'],
    ['CPU ms', "workerd's user + system CPU (from /proc) over the batch, per request: the Worker's own CPU with workerd's HTTP handling"],
    ['CPU-health', 'CPU ms minus that of a no-op GET /health'],
    ['in-process', 'buildContract note_outline per note in Node, ms, for comparison'],
    ['rows', 'GET /health: no auth, no canister; 401: routing, token refused; 404: JWT verify + canister round trip'],
    ...(measured.heavy.length > 0
      ? ([
          [
            '1m paras',
            `1,000,000-char notes of one short paragraph repeated (inline syntax, or plain words as the baseline), ` +
              `REST only; target: CPU ms at most ${HEAVY_CPU_MS} each` +
              (options.quick ? ' (--quick: not judged per row)' : '; ! marks a miss'),
          ],
        ] as [string, string][])
      : []),
  ]);
  report.raw('');
  report.text(`canister calls ${canister.calls}, refused for a wrong X-Gateway-Auth: ${canister.refusals}; Worker log lines ${output.logLines}`);
  if (output.errorText) report.text(`Worker stderr: ${output.errorText.slice(0, 500)}`);
  if (!cpuMeasured) report.text('(workerd process not found under this process: CPU columns not measured)');
}

function reportScope(options: EndToEndOptions, rows: ScopeRow[], same: boolean, cpuMeasured: boolean): void {
  const { report } = options;
  report.section('Folders-only scope: a path outside it is answered before any canister read');
  report.text(`GET /api/v1/note-outline, HS256 session token with scope: { folders: ['${SCOPE_FOLDER}'] }; all 404.`);
  report.raw('');
  report.table(
    [{ header: 'request', text: true }, { header: 'path', text: true }, { header: 'n' }, { header: 'p50 ms' }, { header: 'CPU ms' }, { header: 'reads/req' }],
    rows.map((row) => [row.label, row.path, String(row.requests), figure(row.p50, 2), cpuMeasured ? row.cpu.toFixed(2) : '-', row.reads.toFixed(2)]),
  );
  report.raw('');
  const [outside, missing] = rows as [ScopeRow, ScopeRow, ScopeRow];
  const unread = outside.reads === 0 && missing.reads === 0;
  report.text(
    unread && same
      ? '(1) = (2): outside the scope the same 404 comes before any canister read; (3) pays that read.'
      : `UNEXPECTED: ${unread ? '' : 'a path outside the scope was read from the canister; '}${same ? '' : '(1) and (2) answered differently'}`,
  );
}

/** Probes the running Worker, measures every row and reports the tables. */
async function measureThroughWorker(options: EndToEndOptions, inputs: WorkerInput[], canister: BenchCanister, worker: MiniflareWorker, output: WorkerOutput): Promise<EndToEndResult> {
  const base = await worker.ready;
  const client = benchClient(base, await benchToken());
  const firstPath = (inputs[0] as WorkerInput).notes[0]?.path as string;
  const skipped = await probeWorker(canister, client, firstPath);
  if (skipped !== null) {
    options.report.text(`skipped: ${skipped}`);
    return { skipped };
  }
  // workerd processes started (through Miniflare) by this process.
  const workerd = await workerdPids((pid) => pid === process.pid);
  const measured = new EndToEnd(options, client, workerd);
  await measured.measureBaselines(firstPath);
  for (const input of inputs) await measured.measureInput(input);
  const largest = inputs.filter((input) => input.notes.length === 1 && !input.heavy).sort((a, b) => b.chars - a.chars)[0] as WorkerInput;
  const largeNote = largest.notes[0]?.path as string;
  const scoped = benchClient(base, await benchToken([SCOPE_FOLDER]));
  const same = await sameAnswer(scoped.noteOutline, largeNote, 'bench/missing-note.md');
  const scopeRows = await measured.measureScope(canister, scoped, largeNote);
  const cpuMeasured = workerd.length > 0;
  reportEndToEnd(options, measured, canister, output, cpuMeasured);
  reportScope(options, scopeRows, same, cpuMeasured);
  return {
    healthCpu: measured.health,
    cpuMeasured,
    scope: { rows: scopeRows, sameAnswer: same },
    ...(cpuMeasured ? { heavyRows: measured.heavy } : {}),
  };
}

/** The end-to-end section: note outline over REST and MCP, then the scope comparison. */
export async function endToEndSection(inputs: WorkerInput[], options: EndToEndOptions): Promise<EndToEndResult> {
  options.report.section('End to end: the Worker in Miniflare (workerd), loopback canister');
  options.report.text('note-outline over REST, and over MCP tools/call on each era for single-note inputs.');
  options.report.raw('');
  options.progress('end to end: building the Worker bundle (wrangler deploy --dry-run), starting Miniflare...');
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-'));
  const canister = await startBenchCanister(inputs);
  const output: WorkerOutput = { logLines: 0, errorText: '' };
  let worker: MiniflareWorker | undefined;
  try {
    buildWorkerBundle(options.repoRoot, outDir);
    worker = await startWorker(outDir, canister.url, output);
    return await measureThroughWorker(options, inputs, canister, worker, output);
  } catch (error) {
    const why = firstLine(error);
    options.report.text(`skipped: ${why}`);
    return { skipped: why };
  } finally {
    await worker?.dispose();
    canister.close();
    rmSync(outDir, { recursive: true, force: true });
  }
}
