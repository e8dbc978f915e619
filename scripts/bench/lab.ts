/**
 * The bench's laboratory: the Worker as `wrangler deploy` would upload it, served by Miniflare
 * (workerd) on loopback, each Worker on its own socket (no Miniflare entry worker in front, as in
 * production), reading notes from a loopback canister; beside it the two floors, and how workerd's
 * CPU is read. Every question measures the Worker through HTTP only: its public entry point.
 *
 * workerd reports no CPU time and its clock stands still during computation, so a request's CPU is
 * read from outside: /proc/<pid>/task/<tid>/schedstat (ns on a CPU, every workerd thread) around the
 * request, with workerd idle on either side.
 */
import { spawnSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep, workerdPids } from '../lib/process.mjs';
import { restTarget, toolCallRequest, type McpEra } from '../lib/worker-api';

/** A note the canister serves: its body and its frontmatter as the canister sends it (JSON text). */
export interface BenchNote {
  path: string;
  body: string;
  wireFrontmatter?: string;
}

const CANISTER_SECRET = 'bench-canister-secret';
const SESSION_SECRET = 'bench-session-secret-0123456789abcdef';
/** The user of every bench token; the read floor sends the same canister headers for it. */
export const BENCH_USER = 'bench-user';

/** A loopback canister: 401 without the gateway secret, 404 for a path it does not hold. */
export interface BenchCanister {
  url: string;
  /** Replaces the notes it serves (their answers are serialized once, here). */
  serve(notes: BenchNote[]): void;
  close(): void;
}

export async function startCanister(notes: BenchNote[] = []): Promise<BenchCanister> {
  let answers = new Map<string, Buffer>();
  const server = http.createServer((request, response) => {
    if (request.headers['x-gateway-auth'] !== CANISTER_SECRET) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const match = /^\/api\/v1\/notes\/(.+)$/.exec(new URL(request.url ?? '/', 'http://x').pathname);
    const answer = match ? answers.get(decodeURIComponent(match[1] as string)) : undefined;
    if (answer === undefined) response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    // With its length declared, as the demo canister and a JSON API answer.
    else response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(answer.length) }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const canister: BenchCanister = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve(next) {
      answers = new Map(
        next.map((note) => [note.path, Buffer.from(JSON.stringify({ path: note.path, frontmatter: note.wireFrontmatter ?? '{}', body: note.body }), 'utf8')]),
      );
    },
    close: () => server.close(),
  };
  canister.serve(notes);
  return canister;
}

/** The environment of every wrangler command the bench runs: no metrics, no network look-ups. */
export const WRANGLER_ENV = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', NO_COLOR: '1', FORCE_COLOR: '0' };

/** Runs the project's wrangler with `args` in repoRoot: its exit code and output (stdout then stderr). */
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
 * Builds with `wrangler deploy --dry-run` into outDir (`entry`: another entry point with the Worker's
 * own configuration); wrangler's output, which holds its "Total Upload" line. Throws when it fails.
 */
export function buildWithWrangler(repoRoot: string, outDir: string, extraArgs: string[] = [], entry?: string): string {
  const run = runWrangler(repoRoot, ['deploy', '--dry-run', '--outdir', outDir, ...extraArgs, ...(entry ? [entry] : [])]);
  if (run.status !== 0) {
    const why = run.error?.message ?? run.output.split('\n').find((line) => /error/i.test(line)) ?? `exit ${run.status}`;
    throw new Error(`wrangler deploy --dry-run failed: ${why.trim()}`);
  }
  return run.output;
}

/** The read floor: a Worker that makes our canister GET, parses it, logs one line and answers; and the machine's speed probes. */
export const READ_FLOOR = fileURLToPath(new URL('./read-floor-worker.js', import.meta.url));

/** The MCP floor's entry: the official SDK answering one constant tools/call in each era. */
const MCP_FLOOR_ENTRY = 'scripts/bench/mcp-floor-worker.ts';

/** Builds the MCP floor into outDir with the Worker's own configuration; its module's path. */
export function buildMcpFloor(repoRoot: string, outDir: string): string {
  buildWithWrangler(repoRoot, outDir, [], MCP_FLOOR_ENTRY);
  return path.join(outDir, `${path.basename(MCP_FLOOR_ENTRY, '.ts')}.js`);
}

/** One Worker of a Miniflare: a module run as it is, on its own socket. */
export interface WorkerSetup {
  name: string;
  scriptPath: string;
  /** Variables beside the lab's own (the canister, the secrets, ENVIRONMENT=local). */
  bindings?: Record<string, string>;
}

export interface Lab {
  /** Each Worker's base URL, by name. */
  bases: Map<string, URL>;
  /** The workerd processes serving them. */
  workerd: number[];
  /** What the Workers wrote to stderr (their log lines, one per request, are only counted). */
  errors(): string;
  dispose(): Promise<void>;
}

/** The Workers in one Miniflare (one workerd process), reading notes from the canister. */
export async function startLab(canisterUrl: string, setups: WorkerSetup[]): Promise<Lab> {
  const { Miniflare } = await import('miniflare');
  let errorText = '';
  const miniflare = new Miniflare({
    workers: setups.map((setup) => ({
      name: setup.name,
      scriptPath: setup.scriptPath,
      modules: true,
      modulesRoot: path.dirname(setup.scriptPath),
      compatibilityDate: '2026-04-01',
      unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
      // No rate-limit binding: ENVIRONMENT=local serves unlimited (src/rate-limit.ts), so every figure
      // is what a deployment pays without Miniflare's simulation of the binding.
      bindings: { CANISTER_URL: canisterUrl, CANISTER_AUTH_SECRET: CANISTER_SECRET, SESSION_SECRET, ENVIRONMENT: 'local', CANISTER_TIMEOUT_MS: '30000', ...setup.bindings },
    })),
    host: '127.0.0.1',
    port: 0,
    handleRuntimeStdio: (stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) => {
      stdout.resume();
      stderr.on('data', (chunk: Buffer) => (errorText += chunk.toString()));
    },
    handleStructuredLogs: (entry: { level: string; message: string }) => {
      if (entry.level === 'error') errorText += `${entry.message}\n`;
    },
  } as ConstructorParameters<typeof Miniflare>[0]);
  try {
    await miniflare.ready;
    const bases = new Map<string, URL>();
    for (const setup of setups) bases.set(setup.name, await miniflare.unsafeGetDirectURL(setup.name));
    const workerd = await workerdPids((pid) => pid === process.pid);
    return { bases, workerd, errors: () => errorText, dispose: () => miniflare.dispose() };
  } catch (error) {
    await miniflare.dispose();
    throw error;
  }
}

/**
 * A one-hour viewer session token (HS256) for the bench user. It carries no hosted context (the
 * Hub's own tokens carry none) unless `carriesContext`: then the context the Hub's stand-in answers
 * for it (startHub), in its claims: the bench user's partition and the default vault.
 */
export async function benchToken({ carriesContext = false }: { carriesContext?: boolean } = {}): Promise<string> {
  const { mintToken } = await import('../token.mjs');
  const context = carriesContext ? { canisterUser: BENCH_USER, vault: 'default' } : {};
  return mintToken({ sub: BENCH_USER, role: 'viewer', type: 'session', ttlSeconds: 3600, secret: SESSION_SECRET, ...context });
}

/** The Hub's hosted-context endpoint, stood in for on loopback, and how often it was asked. */
export interface BenchHub {
  /** HOSTED_CONTEXT_URL for a Worker. */
  contextUrl: string;
  /** The calls the bench user's tokens made of it so far. */
  calls(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The Hub's stand-in (demo/hub-context.mjs), signed in with the bench's session secret: the bench
 * user is a solo user, so it answers their own partition, the default vault and the member role
 * (a viewer's reads), the context benchToken({ carriesContext: true }) carries.
 */
export async function startHub(): Promise<BenchHub> {
  const { startHubContext } = await import('../../demo/hub-context.mjs');
  const controlSecret = 'bench-hub-control';
  const hub = await startHubContext({ secret: SESSION_SECRET, control: true, controlSecret });
  return {
    contextUrl: hub.contextUrl,
    calls: async () => {
      const answer = await fetch(`${hub.url}/__control/calls?sub=${BENCH_USER}`, { headers: { 'x-control-secret': controlSecret } });
      return ((await answer.json()) as unknown[]).length;
    },
    close: () => hub.close(),
  };
}

/** A REST read of one contract of a note (`token` null: none sent, as the read floor reads). */
export function restRead(base: URL, contract: 'note_outline' | 'section_source', notePath: string, token: string | null): Promise<Response> {
  return fetch(new URL(restTarget(contract, notePath), base), token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
}

/** The note_outline tools/call of one era (worker-api.ts toolCallRequest), sent. */
export function mcpCall(base: URL, token: string, era: McpEra, notePath: string): Promise<Response> {
  return fetch(toolCallRequest(base, token, era, notePath));
}

/** Whether an answer is what a kind expects: its status, and for MCP a result rather than an error. */
export function answered(response: Response, text: string, statuses: number[], mcp = false): boolean {
  if (!statuses.includes(response.status)) return false;
  return !mcp || !(text.includes('"isError":true') || text.includes('"error":{'));
}

/** ms on a CPU of every thread of `pids` so far, or null where /proc or schedstat is absent. */
export async function schedRunMs(pids: number[]): Promise<number | null> {
  let runNs = 0;
  let read = 0;
  for (const pid of pids) {
    let tasks: string[];
    try {
      tasks = await readdir(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const run = Number((await readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8')).split(' ')[0]);
        if (!Number.isFinite(run)) continue;
        runNs += run;
        read += 1;
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return read === 0 ? null : runNs / 1e6;
}

/**
 * workerd's CPU ms for one exchange: schedstat of every workerd thread read around `exchange` with
 * workerd idle either side (a 1 ms timer), so the figure is that exchange's own; NaN without /proc.
 */
export async function cpuOf(workerd: number[], exchange: () => Promise<void>): Promise<number> {
  await sleep(1);
  const before = await schedRunMs(workerd);
  await exchange();
  await sleep(1);
  const after = await schedRunMs(workerd);
  return before === null || after === null ? NaN : after - before;
}

/**
 * The machine's speed now: the read floor alone in a workerd of its own, the median workerd CPU ms of
 * 50 no-op exchanges (GET /health) and of 50 fixed computations (GET /compute), taken in turn.
 */
export async function measureMachine(): Promise<{ noopMs: number; computeMs: number }> {
  const canister = await startCanister();
  const lab = await startLab(canister.url, [{ name: 'floor', scriptPath: READ_FLOOR }]);
  try {
    const floor = lab.bases.get('floor') as URL;
    const get = (target: string) => async (): Promise<void> => void (await (await fetch(new URL(target, floor))).text());
    const [noop, compute] = [[] as number[], [] as number[]];
    for (let index = -5; index < 50; index++) {
      const [a, b] = [await cpuOf(lab.workerd, get('/health')), await cpuOf(lab.workerd, get('/compute'))];
      if (index >= 0) [noop.push(a), compute.push(b)];
    }
    const middle = (values: number[]): number => [...values].sort((x, y) => x - y)[values.length >> 1] as number;
    return { noopMs: middle(noop), computeMs: middle(compute) };
  } finally {
    await lab.dispose();
    canister.close();
  }
}
