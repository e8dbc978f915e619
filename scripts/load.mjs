#!/usr/bin/env node
// @ts-check
/**
 * `npm run load`: a bounded load run against a local Knowtation Edge (`npm start`: the Worker
 * under wrangler dev on 127.0.0.1:8787 and the demo canister). For each concurrency level
 * (default 1, 16, 64) it runs closed-loop clients for a fixed duration (default 20 s), mixing each
 * contract's REST route and MCP tools/call of its tool over every note of demo/vault/, and prints
 * requests/s, p50/p95/p99 latency, the error count and the peak resident memory of the workerd
 * processes of the Worker it loads (VmRSS from /proc, sampled every 250 ms): those of the
 * `wrangler dev` whose workerd listens on the --base port, never another stack's. It stops by itself and exits 1 when any
 * request failed (a non-200 answer, an MCP tool error, a network error or a per-request timeout),
 * 2 on a usage error. Only loopback targets are accepted; the token is never printed.
 *
 * All clients use one token, so run it against the `load` wrangler environment, which lifts the
 * per-user rate limit (`npm start -- --env load`); against the default configuration every request
 * after the first 60 a minute is a 429, and the run says so.
 *
 * `--budgets` instead shows the two per-user budgets at work against the default configuration
 * (`npm start`): for one fresh user, more MCP protocol messages (tools/list) and more reads
 * (REST note-outline and MCP tools/call) than the limits allow, and how many of each were
 * served and refused.
 *
 *   npm run load
 *   npm run load -- --budgets
 *   npm run load -- --duration 60 --levels 1,16,64
 *   npm run load -- --base http://127.0.0.1:8787 --token "$TOKEN"
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadVault } from '../demo/canister.mjs';
import { isLoopbackHost } from '../demo/lib/loopback.mjs';
import { DEMO_USER, DEMO_VAULT, WORKER_PORT } from './dev-config.mjs';
import { mintViewerToken } from './token.mjs';
import { errorMessage, parseCommandLine } from './lib/cli.mjs';
import { healthStatus, parseJson } from './lib/http.mjs';
import { CONTRACTS, MCP_ACCEPT, jsonRpcBody, restTarget, toolCallParams } from './lib/worker-api.ts';
import { rssKiB, sleep, workerdPids, wranglerDevServing } from './lib/process.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VAULT_DIR = path.join(REPO_ROOT, 'demo', 'vault');
const DEFAULT_BASE = `http://127.0.0.1:${WORKER_PORT}`;
const DEFAULT_DURATION_S = 20;
const DEFAULT_LEVELS = [1, 16, 64];
const MAX_DURATION_S = 600;
const MAX_CONCURRENCY = 256;
const REQUEST_TIMEOUT_MS = 15_000;
const RSS_SAMPLE_MS = 250;
/** How often a running level reports its progress on stderr. */
const PROGRESS_EVERY_MS = 5_000;

const USAGE = `Usage: npm run load -- [--budgets] [--duration <seconds per level>] [--levels 1,16,64] [--base <loopback URL>] [--token <JWT>]
  --budgets   show the per-user budgets instead of a load run (against npm start, limits on)
  --duration  seconds per concurrency level (default ${DEFAULT_DURATION_S}, at most ${MAX_DURATION_S})
  --levels    comma-separated concurrency levels (default ${DEFAULT_LEVELS.join(',')}, each 1..${MAX_CONCURRENCY})
  --base      Worker base URL, loopback only (default ${DEFAULT_BASE})
  --token     bearer token; default: a 1 h viewer token for '${DEMO_USER}' signed with the dev secret
  --vault     X-Vault-Id (default '${DEMO_VAULT}')
  --notes     folder whose *.md paths are requested (default demo/vault; use the folder given to npm start --vault)
Progress lines go to stderr every ${PROGRESS_EVERY_MS / 1000} s; the result table goes to stdout.`;

class UsageError extends Error {}

/** @param {string[]} argv */
function parseLoadArgs(argv) {
  const values = parseCommandLine(argv, { strings: ['duration', 'levels', 'base', 'token', 'vault', 'notes'], flags: ['budgets'] }, UsageError);
  if (values.help) return null;
  const durationS = values.duration === undefined ? DEFAULT_DURATION_S : Number(values.duration);
  if (!Number.isFinite(durationS) || durationS <= 0 || durationS > MAX_DURATION_S) {
    throw new UsageError(`--duration must be a number of seconds in (0, ${MAX_DURATION_S}]`);
  }
  const levels = values.levels === undefined ? DEFAULT_LEVELS : values.levels.split(',').map((v) => Number(v.trim()));
  if (levels.length === 0 || levels.some((n) => !Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY)) {
    throw new UsageError(`--levels must be integers in 1..${MAX_CONCURRENCY}`);
  }
  let base;
  try {
    base = new URL(values.base ?? DEFAULT_BASE);
  } catch {
    throw new UsageError('--base must be a URL');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new UsageError('--base must be http(s)');
  if (!isLoopbackHost(base.hostname)) throw new UsageError('--base must be a loopback address (127.0.0.0/8, localhost or [::1])');
  return {
    budgets: values.budgets === true,
    durationMs: Math.round(durationS * 1000),
    levels,
    base: base.origin,
    token: values.token,
    vault: values.vault ?? DEMO_VAULT,
    notesDir: values.notes === undefined ? VAULT_DIR : path.resolve(values.notes),
  };
}

// ---------------------------------------------------------------- memory sampling

/**
 * The workerd processes of one `wrangler dev` (its pid, from wranglerDevServing); empty when it is
 * not known (no /proc, or the Worker is not a local wrangler dev).
 * @param {number | null} wrangler
 */
const workerdOf = (wrangler) => (wrangler === null ? Promise.resolve([]) : workerdPids((pid) => pid === wrangler));

/**
 * Samples the RSS of one wrangler dev's workerd until stopped; peak of the summed RSS and of the
 * largest single process.
 * @param {number | null} wrangler
 */
function startRssSampler(wrangler) {
  let peakTotalKiB = 0;
  let peakProcessKiB = 0;
  let samples = 0;
  let processes = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const pids = await workerdOf(wrangler);
      const values = (await Promise.all(pids.map(rssKiB))).filter((v) => v !== null);
      if (values.length > 0) {
        samples += 1;
        processes = Math.max(processes, values.length);
        peakTotalKiB = Math.max(peakTotalKiB, values.reduce((a, b) => a + b, 0));
        peakProcessKiB = Math.max(peakProcessKiB, ...values);
      }
      await sleep(RSS_SAMPLE_MS);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { peakTotalKiB, peakProcessKiB, samples, processes };
    },
  };
}

// ---------------------------------------------------------------- the request mix

/**
 * @typedef {{ label: string, send: (signal: AbortSignal) => Promise<string | null> }} Operation
 * `send` resolves to null on success or to a short error class (never response text).
 * @typedef {import('../src/contracts/registry.ts').ContractSpec} ContractSpec
 */

/**
 * GET of one REST route for one note: 200 with a payload.
 * @param {string} base
 * @param {Record<string, string>} headers
 * @param {ContractSpec} contract
 * @param {string} notePath
 * @returns {Operation}
 */
function restOperation(base, headers, contract, notePath) {
  const label = `rest ${contract.name}`;
  const url = `${base}${restTarget(contract, notePath)}`;
  return {
    label,
    async send(signal) {
      const res = await fetch(url, { headers, signal });
      const text = await res.text();
      if (res.status !== 200) return `${label} HTTP ${res.status}`;
      return text.startsWith('{"schema":') ? null : `${label} unexpected body`;
    },
  };
}

/**
 * Why an MCP tools/call answer is not a successful one, or null.
 * @param {string} label
 * @param {number} status
 * @param {string} text
 */
function mcpFailure(label, status, text) {
  if (status !== 200) return `${label} HTTP ${status}`;
  const rpc = /** @type {any} */ (parseJson(text));
  if (rpc === undefined) return `${label} non-JSON`;
  if (rpc.error) return `${label} JSON-RPC ${rpc.error.code}`;
  if (rpc.result?.isError) return `${label} tool error`;
  return rpc.result?.structuredContent ? null : `${label} no structuredContent`;
}

/**
 * MCP tools/call of one contract's tool for one note; ids count up across all MCP operations.
 * @param {string} base
 * @param {Record<string, string>} headers
 * @param {ContractSpec} contract
 * @param {string} notePath
 * @param {() => number} nextId
 * @returns {Operation}
 */
function mcpOperation(base, headers, contract, notePath, nextId) {
  const label = `mcp ${contract.tool}`;
  const params = toolCallParams(contract, notePath);
  return {
    label,
    async send(signal) {
      const body = jsonRpcBody(nextId(), 'tools/call', params);
      const res = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json', Accept: MCP_ACCEPT }, body, signal });
      return mcpFailure(label, res.status, await res.text());
    },
  };
}

/**
 * Every (note, contract, surface) combination; REST and MCP alternate.
 * @param {string} base
 * @param {string} token
 * @param {string} vault
 * @param {string[]} notePaths
 * @returns {Operation[]}
 */
function buildOperations(base, token, vault, notePaths) {
  const headers = { Authorization: `Bearer ${token}`, 'X-Vault-Id': vault };
  let rpcId = 0;
  const nextId = () => ++rpcId;
  return notePaths.flatMap((notePath) =>
    CONTRACTS.flatMap((contract) => [restOperation(base, headers, contract, notePath), mcpOperation(base, headers, contract, notePath, nextId)]),
  );
}

/** @param {number[]} sorted @param {number} q */
function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index];
}

/** @param {Map<string, number>} errors */
const errorTotal = (errors) => [...errors.values()].reduce((a, b) => a + b, 0);

/**
 * Requests/s, latency quantiles and errors of one level.
 * @param {number} concurrency
 * @param {number[]} latencies
 * @param {Map<string, number>} errors count per error class
 * @param {number} elapsedMs
 */
function levelResult(concurrency, latencies, errors, elapsedMs) {
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    requests: latencies.length,
    elapsedMs,
    rps: latencies.length / (elapsedMs / 1000),
    p50: quantile(latencies, 0.5),
    p95: quantile(latencies, 0.95),
    p99: quantile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? NaN,
    errorCount: errorTotal(errors),
    errors,
  };
}

/**
 * One request of the mix: its latency, and its error class when it failed.
 * @param {Operation} operation
 * @returns {Promise<{ ms: number, failure: string | null }>}
 */
async function timeOperation(operation) {
  const t0 = performance.now();
  let failure;
  try {
    failure = await operation.send(AbortSignal.timeout(REQUEST_TIMEOUT_MS));
  } catch (error) {
    failure = error instanceof Error && error.name === 'TimeoutError' ? `${operation.label} timeout` : `${operation.label} network error`;
  }
  return { ms: performance.now() - t0, failure };
}

/**
 * Closed-loop clients: each sends its next request as soon as the previous one is answered.
 * @param {Operation[]} operations
 * @param {number} concurrency
 * @param {number} durationMs
 * @param {(elapsedMs: number, requests: number, errorCount: number) => void} onProgress called every PROGRESS_EVERY_MS
 */
async function runLevel(operations, concurrency, durationMs, onProgress) {
  /** @type {number[]} */
  const latencies = [];
  /** @type {Map<string, number>} */
  const errors = new Map();
  let next = 0;
  const startedAt = performance.now();
  const deadline = startedAt + durationMs;
  const client = async () => {
    while (performance.now() < deadline) {
      const { ms, failure } = await timeOperation(operations[next++ % operations.length]);
      latencies.push(ms);
      if (failure) errors.set(failure, (errors.get(failure) ?? 0) + 1);
    }
  };
  const progress = setInterval(() => onProgress(performance.now() - startedAt, latencies.length, errorTotal(errors)), PROGRESS_EVERY_MS);
  try {
    await Promise.all(Array.from({ length: concurrency }, client));
  } finally {
    clearInterval(progress);
  }
  return levelResult(concurrency, latencies, errors, performance.now() - startedAt);
}

/** @param {number} kib */
const mib = (kib) => (kib / 1024).toFixed(1);
/** @param {number} ms */
const fmtMs = (ms) => (Number.isFinite(ms) ? ms.toFixed(1) : '-');

/**
 * @typedef {NonNullable<ReturnType<typeof parseLoadArgs>>} LoadOptions
 * @typedef {Awaited<ReturnType<typeof runLevel>>} LevelResult
 * @typedef {Awaited<ReturnType<ReturnType<typeof startRssSampler>['stop']>>} RssPeaks
 */

/**
 * The options, or the exit code when there is nothing to run (help: 0, a usage error: 2).
 * @returns {LoadOptions | number}
 */
function optionsOrExitCode() {
  try {
    const options = parseLoadArgs(process.argv.slice(2));
    if (options !== null) return options;
    process.stdout.write(`${USAGE}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`load: ${error.message}\n${USAGE}\n`);
    return 2;
  }
}

/**
 * True when the Worker answers /health; else says so on stderr.
 * @param {string} base
 */
async function workerIsUp(base) {
  try {
    const status = await healthStatus(base, 5_000);
    if (status !== 200) throw new Error(`HTTP ${status}`);
    return true;
  } catch (error) {
    process.stderr.write(`load: ${base}/health is not answering (${errorMessage(error)}); start the Worker with \`npm start\` first.\n`);
    return false;
  }
}

/**
 * The note paths to request, or the exit code when there are none (2: unreadable folder, 1: empty).
 * @param {string} notesDir
 * @returns {Promise<string[] | number>}
 */
async function notePathsOrExitCode(notesDir) {
  let notePaths;
  try {
    notePaths = (await loadVault(notesDir)).map((note) => note.path);
  } catch (error) {
    process.stderr.write(`load: cannot read --notes ${notesDir} (${errorMessage(error)})\n`);
    return 2;
  }
  if (notePaths.length > 0) return notePaths;
  process.stderr.write(`load: ${notesDir} has no *.md notes\n`);
  return 1;
}

/**
 * One pass over every operation, sequentially, outside the measurement; the number that failed.
 * @param {Operation[]} operations
 */
async function warmUp(operations) {
  let errors = 0;
  for (const operation of operations) {
    try {
      if (await operation.send(AbortSignal.timeout(REQUEST_TIMEOUT_MS))) errors += 1;
    } catch {
      errors += 1;
    }
  }
  return errors;
}

/**
 * The table row of one level and its error lines.
 * @param {LevelResult} result
 * @param {RssPeaks} rss
 */
function printLevel(result, rss) {
  const rssText = rss.samples > 0 ? `${mib(rss.peakTotalKiB)} MiB / ${mib(rss.peakProcessKiB)} MiB (${rss.processes} proc)` : 'n/a (no workerd found)';
  process.stdout.write(
    `${String(result.concurrency).padStart(11)}  ${String(result.requests).padStart(8)}  ${result.rps.toFixed(1).padStart(7)}  ${fmtMs(result.p50).padStart(7)}  ${fmtMs(result.p95).padStart(7)}  ${fmtMs(result.p99).padStart(7)}  ${fmtMs(result.max).padStart(7)}  ${String(result.errorCount).padStart(6)}  ${rssText}\n`,
  );
  for (const [kind, count] of result.errors) process.stdout.write(`             error: ${kind} x ${count}\n`);
}

/**
 * Runs each level with the RSS sampler of the Worker's wrangler dev, printing its row as it ends.
 * @param {Operation[]} operations
 * @param {LoadOptions} options
 * @param {number | null} wrangler
 */
async function runLevels(operations, { levels, durationMs }, wrangler) {
  let errors = 0;
  let peakKiB = 0;
  let rateLimited = 0;
  for (const concurrency of levels) {
    const sampler = startRssSampler(wrangler);
    process.stderr.write(`load: concurrency ${concurrency}: running for ${durationMs / 1000} s ...\n`);
    const result = await runLevel(operations, concurrency, durationMs, (elapsedMs, requests, errorCount) => {
      process.stderr.write(`load: concurrency ${concurrency}: ${Math.round(elapsedMs / 1000)} s of ${durationMs / 1000} s, ${requests} requests, ${errorCount} errors\n`);
    });
    const rss = await sampler.stop();
    peakKiB = Math.max(peakKiB, rss.peakTotalKiB);
    errors += result.errorCount;
    printLevel(result, rss);
    for (const [kind, count] of result.errors) if (kind.endsWith('HTTP 429')) rateLimited += count;
  }
  return { errors, peakKiB, rateLimited };
}

/**
 * The closing lines: error totals and peak memory, and a note when the rate limit was measured.
 * @param {number} warmupErrors
 * @param {{ errors: number, peakKiB: number, rateLimited: number }} levels
 */
function printSummary(warmupErrors, { errors, peakKiB, rateLimited }) {
  process.stdout.write(
    `\nwarm-up errors: ${warmupErrors}; total errors: ${warmupErrors + errors}; peak workerd RSS (sum): ${peakKiB > 0 ? `${mib(peakKiB)} MiB` : 'n/a'}\n`,
  );
  if (rateLimited === 0) return;
  process.stdout.write(
    `\n${rateLimited} requests were refused by the per-user rate limit (60 per 60 s; every client here is one user).\n` +
      'This run measured the limiter. To measure the Worker, run it against the load environment, which lifts the limit:\n' +
      '  wrangler dev --env load (npm start -- --env load); see docs/DEPLOY.md, Rate limit.\n',
  );
}

// ---------------------------------------------------------------- the two budgets

/** More of each than its budget allows (wrangler.toml: 300 protocol messages and 60 reads a minute). */
const BUDGET_PROBES = { protocol: 330, reads: 80 };

/**
 * Sends BUDGET_PROBES.protocol tools/list messages, then BUDGET_PROBES.reads reads, as one fresh
 * user, and counts what each budget served and refused (429).
 * @param {string} base
 */
async function budgetsRun(base) {
  const user = `load-budgets-${Date.now().toString(36)}`;
  const token = await mintViewerToken(user, 10 * 60);
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: MCP_ACCEPT };
  /** @param {() => Promise<Response>} send */
  const tally = async (count, send) => {
    const result = { sent: count, served: 0, refused: 0, other: 0 };
    for (let i = 0; i < count; i += 1) {
      const response = await send();
      await response.body?.cancel();
      if (response.status === 429) result.refused += 1;
      else if (response.status < 400 || response.status === 404) result.served += 1;
      else result.other += 1;
    }
    return result;
  };
  let id = 0;
  const protocol = await tally(BUDGET_PROBES.protocol, () =>
    fetch(`${base}/mcp`, { method: 'POST', headers, body: jsonRpcBody(++id, 'tools/list', {}) }),
  );
  const reads = await tally(BUDGET_PROBES.reads, () =>
    id % 2
      ? fetch(`${base}${restTarget('note_outline', 'a.md')}`, { headers })
      : fetch(`${base}/mcp`, { method: 'POST', headers, body: jsonRpcBody(++id, 'tools/call', toolCallParams('note_outline', 'a.md')) }),
  );
  /** @param {string} label @param {{ sent: number, served: number, refused: number }} row */
  const line = (label, row) => `${label.padEnd(42)}${String(row.sent).padStart(6)}${String(row.served).padStart(8)}${String(row.refused).padStart(15)}`;
  const lines = [
    `Per-user budgets against ${base}, one fresh user (its notes do not exist: a read is a read):`,
    '',
    `${'budget'.padEnd(42)}${'sent'.padStart(6)}${'served'.padStart(8)}${'refused (429)'.padStart(15)}`,
    line('protocol (tools/list)', protocol),
    line('reads (REST note-outline, MCP tools/call)', reads),
    '',
    'The protocol messages spent none of the reads; each budget stops its own traffic.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return protocol.other + reads.other === 0 ? 0 : 1;
}

async function main() {
  const options = optionsOrExitCode();
  if (typeof options === 'number') return options;
  if (!(await workerIsUp(options.base))) return 1;
  if (options.budgets) return budgetsRun(options.base);
  const token = options.token ?? (await mintViewerToken(DEMO_USER, 60 * 60));
  const notePaths = await notePathsOrExitCode(options.notesDir);
  if (typeof notePaths === 'number') return notePaths;
  const operations = buildOperations(options.base, token, options.vault, notePaths);
  const port = Number(new URL(options.base).port || 80);
  const wrangler = await wranglerDevServing(port);
  const workerdCount = (await workerdOf(wrangler)).length;
  const workerdText =
    wrangler === null
      ? `workerd: none found listening on port ${port} (no /proc, or not a local wrangler dev), so no memory column`
      : `workerd processes of the wrangler dev on port ${port} (pid ${wrangler}): ${workerdCount}`;
  const seconds = options.durationMs / 1000;
  process.stdout.write(
    `Knowtation Edge load run against ${options.base}: ${notePaths.length} notes x ${CONTRACTS.length} contracts x (REST + MCP) = ${operations.length} distinct requests\n` +
      `levels ${options.levels.join(', ')} x ${seconds} s; ${workerdText}; Node ${process.version}\n\n`,
  );
  const totalSeconds = (options.levels.length * options.durationMs) / 1000;
  process.stderr.write(`load: warm-up pass of ${operations.length} requests, then ${options.levels.length} levels x ${seconds} s (about ${Math.ceil(totalSeconds)} s) ...\n`);
  const warmupErrors = await warmUp(operations);
  const header = 'concurrency  requests   req/s    p50 ms   p95 ms   p99 ms   max ms  errors  peak workerd RSS (sum / largest)';
  process.stdout.write(`${header}\n${'-'.repeat(header.length)}\n`);
  const levels = await runLevels(operations, options, wrangler);
  printSummary(warmupErrors, levels);
  return warmupErrors + levels.errors === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`load: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
