#!/usr/bin/env node
// @ts-check
/**
 * `npm run load`: a bounded load run against a local Knowtation Edge (`npm start`: the Worker
 * under wrangler dev on 127.0.0.1:8787 and the demo canister). For each concurrency level
 * (default 1, 16, 64) it runs closed-loop clients for a fixed duration (default 20 s), mixing the
 * four REST routes and MCP tools/call of the four tools over every note of demo/vault/, and prints
 * requests/s, p50/p95/p99 latency, the error count and the peak resident memory of the workerd
 * processes (VmRSS from /proc, sampled every 250 ms). It stops by itself and exits 1 when any
 * request failed (a non-200 answer, an MCP tool error, a network error or a per-request timeout),
 * 2 on a usage error. Only loopback targets are accepted; the token is never printed.
 *
 * All clients use one token, so run it against the `load` wrangler environment, which lifts the
 * per-user rate limit (`npm start -- --env load`); against the default configuration every request
 * after the first 60 a minute is a 429, and the run says so.
 *
 *   npm run load
 *   npm run load -- --duration 60 --levels 1,16,64
 *   npm run load -- --base http://127.0.0.1:8787 --token "$TOKEN"
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import { loadVault } from '../demo/canister.mjs';
import { DEMO_USER, DEMO_VAULT, DEV_SESSION_SECRET, WORKER_PORT } from './dev-config.mjs';
import { parseOptions } from './cli-options.mjs';

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
const MCP_ACCEPT = 'application/json, text/event-stream';
const REST_ROUTES = {
  note_outline: '/api/v1/note-outline',
  document_tree: '/api/v1/document-tree',
  metadata_facets: '/api/v1/metadata-facets',
  section_source: '/api/v1/section-source',
};
const TOOLS = {
  note_outline: 'get_note_outline',
  document_tree: 'get_document_tree',
  metadata_facets: 'get_metadata_facets',
  section_source: 'get_section_source',
};

const USAGE = `Usage: npm run load -- [--duration <seconds per level>] [--levels 1,16,64] [--base <loopback URL>] [--token <JWT>]
  --duration  seconds per concurrency level (default ${DEFAULT_DURATION_S}, at most ${MAX_DURATION_S})
  --levels    comma-separated concurrency levels (default ${DEFAULT_LEVELS.join(',')}, each 1..${MAX_CONCURRENCY})
  --base      Worker base URL, loopback only (default ${DEFAULT_BASE})
  --token     bearer token; default: a 1 h viewer token for '${DEMO_USER}' signed with the dev secret
  --vault     X-Vault-Id (default '${DEMO_VAULT}')
  --notes     folder whose *.md paths are requested (default demo/vault; use the folder given to npm start --vault)
Progress lines go to stderr every ${PROGRESS_EVERY_MS / 1000} s; the result table goes to stdout.`;

class UsageError extends Error {}

/** @param {string} hostname */
function isLoopbackHost(hostname) {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** @param {string[]} argv */
function parseLoadArgs(argv) {
  const values = parseOptions(
    argv,
    {
      duration: { type: 'string' },
      levels: { type: 'string' },
      base: { type: 'string' },
      token: { type: 'string' },
      vault: { type: 'string' },
      notes: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    UsageError,
  );
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
    durationMs: Math.round(durationS * 1000),
    levels,
    base: base.origin,
    token: values.token,
    vault: values.vault ?? DEMO_VAULT,
    notesDir: values.notes === undefined ? VAULT_DIR : path.resolve(values.notes),
  };
}

/** A viewer session token for the demo user, signed with the published dev secret. */
async function devToken() {
  return new SignJWT({ sub: DEMO_USER, role: 'viewer', type: 'session' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(DEV_SESSION_SECRET));
}

// ---------------------------------------------------------------- memory sampling

const execFileAsync = promisify(execFile);

/**
 * @param {number} pid
 * @returns {Promise<number | null>}
 */
async function parentPid(pid) {
  try {
    const match = /^PPid:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/**
 * True when an ancestor of pid is `wrangler dev`: the workerd of `npm start`, not one of a
 * concurrent vitest run (whose workerd processes descend from vitest).
 * @param {number} pid
 */
async function descendsFromWranglerDev(pid) {
  let current = await parentPid(pid);
  for (let depth = 0; current !== null && current > 1 && depth < 16; depth += 1) {
    try {
      const cmdline = (await readFile(`/proc/${current}/cmdline`, 'utf8')).split('\0');
      if (cmdline.some((arg) => /wrangler/.test(arg)) && cmdline.includes('dev')) return true;
    } catch {
      return false;
    }
    current = await parentPid(current);
  }
  return false;
}

/** PIDs of the running workerd processes of `wrangler dev` (empty when none or when pgrep is unavailable). */
async function workerdPids() {
  let candidates;
  try {
    const { stdout } = await execFileAsync('pgrep', ['-f', 'workerd']);
    candidates = stdout
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => Number.isInteger(pid) && pid > 0 && pid !== process.pid);
  } catch {
    return [];
  }
  const keep = await Promise.all(candidates.map(descendsFromWranglerDev));
  return candidates.filter((_pid, i) => keep[i]);
}

/**
 * VmRSS of a process in KiB, or null when it is gone or has no status (e.g. a zombie).
 * @param {number} pid
 * @returns {Promise<number | null>}
 */
async function rssKiB(pid) {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Samples workerd RSS until stopped; peak of the summed RSS and of the largest single process. */
function startRssSampler() {
  let peakTotalKiB = 0;
  let peakProcessKiB = 0;
  let samples = 0;
  let processes = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const pids = await workerdPids();
      const values = (await Promise.all(pids.map(rssKiB))).filter((v) => v !== null);
      if (values.length > 0) {
        samples += 1;
        processes = Math.max(processes, values.length);
        peakTotalKiB = Math.max(peakTotalKiB, values.reduce((a, b) => a + b, 0));
        peakProcessKiB = Math.max(peakProcessKiB, ...values);
      }
      await new Promise((resolve) => setTimeout(resolve, RSS_SAMPLE_MS));
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
 */

/**
 * Every (note, contract, surface) combination; REST and MCP alternate.
 * @param {string} base
 * @param {string} token
 * @param {string} vault
 * @param {string[]} notePaths
 * @returns {Operation[]}
 */
function buildOperations(base, token, vault, notePaths) {
  const auth = { Authorization: `Bearer ${token}`, 'X-Vault-Id': vault };
  /** @type {Operation[]} */
  const operations = [];
  let rpcId = 0;
  for (const notePath of notePaths) {
    for (const contract of /** @type {Array<keyof typeof REST_ROUTES>} */ (Object.keys(REST_ROUTES))) {
      operations.push({
        label: `rest ${contract}`,
        async send(signal) {
          const res = await fetch(`${base}${REST_ROUTES[contract]}?path=${encodeURIComponent(notePath)}`, { headers: auth, signal });
          const text = await res.text();
          if (res.status !== 200) return `rest ${contract} HTTP ${res.status}`;
          return text.startsWith('{"schema":') ? null : `rest ${contract} unexpected body`;
        },
      });
      operations.push({
        label: `mcp ${TOOLS[contract]}`,
        async send(signal) {
          rpcId += 1;
          const res = await fetch(`${base}/mcp`, {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'application/json', Accept: MCP_ACCEPT },
            body: JSON.stringify({ jsonrpc: '2.0', id: rpcId, method: 'tools/call', params: { name: TOOLS[contract], arguments: { path: notePath } } }),
            signal,
          });
          const text = await res.text();
          if (res.status !== 200) return `mcp ${TOOLS[contract]} HTTP ${res.status}`;
          let rpc;
          try {
            rpc = JSON.parse(text);
          } catch {
            return `mcp ${TOOLS[contract]} non-JSON`;
          }
          if (rpc.error) return `mcp ${TOOLS[contract]} JSON-RPC ${rpc.error.code}`;
          if (rpc.result?.isError) return `mcp ${TOOLS[contract]} tool error`;
          return rpc.result?.structuredContent ? null : `mcp ${TOOLS[contract]} no structuredContent`;
        },
      });
    }
  }
  return operations;
}

/** @param {number[]} sorted @param {number} q */
function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index];
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
      const operation = operations[next % operations.length];
      next += 1;
      const t0 = performance.now();
      let failure;
      try {
        failure = await operation.send(AbortSignal.timeout(REQUEST_TIMEOUT_MS));
      } catch (error) {
        failure = error instanceof Error && error.name === 'TimeoutError' ? `${operation.label} timeout` : `${operation.label} network error`;
      }
      latencies.push(performance.now() - t0);
      if (failure) errors.set(failure, (errors.get(failure) ?? 0) + 1);
    }
  };
  const progress = setInterval(() => {
    onProgress(performance.now() - startedAt, latencies.length, [...errors.values()].reduce((a, b) => a + b, 0));
  }, PROGRESS_EVERY_MS);
  try {
    await Promise.all(Array.from({ length: concurrency }, client));
  } finally {
    clearInterval(progress);
  }
  const elapsedMs = performance.now() - startedAt;
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
    errorCount: [...errors.values()].reduce((a, b) => a + b, 0),
    errors,
  };
}

/** @param {number} kib */
const mib = (kib) => (kib / 1024).toFixed(1);
/** @param {number} ms */
const fmtMs = (ms) => (Number.isFinite(ms) ? ms.toFixed(1) : '-');

async function main() {
  let options;
  try {
    options = parseLoadArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`load: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
  if (options === null) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }

  try {
    const health = await fetch(`${options.base}/health`, { signal: AbortSignal.timeout(5_000) });
    if (health.status !== 200) throw new Error(`HTTP ${health.status}`);
    await health.body?.cancel();
  } catch (error) {
    process.stderr.write(
      `load: ${options.base}/health is not answering (${error instanceof Error ? error.message : String(error)}); start the Worker with \`npm start\` first.\n`,
    );
    return 1;
  }

  const token = options.token ?? (await devToken());
  let notePaths;
  try {
    notePaths = (await loadVault(options.notesDir)).map((note) => note.path);
  } catch (error) {
    process.stderr.write(`load: cannot read --notes ${options.notesDir} (${error instanceof Error ? error.message : String(error)})\n`);
    return 2;
  }
  if (notePaths.length === 0) {
    process.stderr.write(`load: ${options.notesDir} has no *.md notes\n`);
    return 1;
  }
  const operations = buildOperations(options.base, token, options.vault, notePaths);
  const workerdCount = (await workerdPids()).length;

  process.stdout.write(
    `Knowtation Edge load run against ${options.base}: ${notePaths.length} notes x 4 contracts x (REST + MCP) = ${operations.length} distinct requests\n` +
      `levels ${options.levels.join(', ')} x ${options.durationMs / 1000} s; workerd processes seen: ${workerdCount}; Node ${process.version}\n\n`,
  );

  // Warm-up outside the measurement: one pass over every operation, sequentially.
  const totalSeconds = (options.levels.length * options.durationMs) / 1000;
  process.stderr.write(`load: warm-up pass of ${operations.length} requests, then ${options.levels.length} levels x ${options.durationMs / 1000} s (about ${Math.ceil(totalSeconds)} s) ...\n`);
  let warmupErrors = 0;
  for (const operation of operations) {
    try {
      if (await operation.send(AbortSignal.timeout(REQUEST_TIMEOUT_MS))) warmupErrors += 1;
    } catch {
      warmupErrors += 1;
    }
  }

  const header = 'concurrency  requests   req/s    p50 ms   p95 ms   p99 ms   max ms  errors  peak workerd RSS (sum / largest)';
  process.stdout.write(`${header}\n${'-'.repeat(header.length)}\n`);
  let totalErrors = warmupErrors;
  let overallPeakKiB = 0;
  let rateLimited = 0;
  for (const concurrency of options.levels) {
    const sampler = startRssSampler();
    process.stderr.write(`load: concurrency ${concurrency}: running for ${options.durationMs / 1000} s ...\n`);
    const result = await runLevel(operations, concurrency, options.durationMs, (elapsedMs, requests, errorCount) => {
      process.stderr.write(
        `load: concurrency ${concurrency}: ${Math.round(elapsedMs / 1000)} s of ${options.durationMs / 1000} s, ${requests} requests, ${errorCount} errors\n`,
      );
    });
    const rss = await sampler.stop();
    overallPeakKiB = Math.max(overallPeakKiB, rss.peakTotalKiB);
    totalErrors += result.errorCount;
    const rssText = rss.samples > 0 ? `${mib(rss.peakTotalKiB)} MiB / ${mib(rss.peakProcessKiB)} MiB (${rss.processes} proc)` : 'n/a (no workerd found)';
    process.stdout.write(
      `${String(concurrency).padStart(11)}  ${String(result.requests).padStart(8)}  ${result.rps.toFixed(1).padStart(7)}  ${fmtMs(result.p50).padStart(7)}  ${fmtMs(result.p95).padStart(7)}  ${fmtMs(result.p99).padStart(7)}  ${fmtMs(result.max).padStart(7)}  ${String(result.errorCount).padStart(6)}  ${rssText}\n`,
    );
    for (const [kind, count] of result.errors) {
      process.stdout.write(`             error: ${kind} x ${count}\n`);
      if (kind.endsWith('HTTP 429')) rateLimited += count;
    }
  }
  process.stdout.write(
    `\nwarm-up errors: ${warmupErrors}; total errors: ${totalErrors}; peak workerd RSS (sum): ${overallPeakKiB > 0 ? `${mib(overallPeakKiB)} MiB` : 'n/a'}\n`,
  );
  if (rateLimited > 0) {
    process.stdout.write(
      `\n${rateLimited} requests were refused by the per-user rate limit (60 per 60 s; every client here is one user).\n` +
        'This run measured the limiter. To measure the Worker, run it against the load environment, which lifts the limit:\n' +
        '  wrangler dev --env load (npm start -- --env load); see docs/DEPLOY.md, Rate limit.\n',
    );
  }
  return totalErrors === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`load: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
