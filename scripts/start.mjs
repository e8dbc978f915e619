#!/usr/bin/env node
// @ts-check
/**
 * `npm start`: the demo canister (in-process, 127.0.0.1:8788, demo vault) plus `wrangler dev` for
 * the Worker (127.0.0.1:8787) wired to it with the published dev secrets, then prints a viewer
 * token and ready-to-paste curl / MCP Inspector commands. Ctrl-C (SIGINT) or SIGTERM stops
 * wrangler (its whole process group, so no workerd is left behind) and the canister.
 *
 * The dev secrets reach wrangler through a temporary env file (mode 0600, removed on exit), so
 * wrangler lists them as hidden instead of printing them in its binding table.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemoCanister, loadVault } from '../demo/canister.mjs';
import {
  DEMO_USER,
  DEMO_VAULT,
  DEV_CANISTER_AUTH_SECRET,
  DEV_CANISTER_PORT,
  DEV_SESSION_SECRET,
  WORKER_PORT,
} from './dev-config.mjs';
import { mintToken } from './token.mjs';

const HOST = '127.0.0.1';
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VAULT_DIR = path.join(REPO_ROOT, 'demo', 'vault');
const WRANGLER_BIN = path.join(REPO_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const WORKER_URL = `http://${HOST}:${WORKER_PORT}`;
const CANISTER_URL = `http://${HOST}:${DEV_CANISTER_PORT}`;
const READY_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 10_000;
const EXAMPLE_NOTE = 'projects/Aurora/roadmap.md';
const SENTINEL_NOTE = 'reference/sentinel-body.md';
const REST_ROUTES = ['note-outline', 'document-tree', 'metadata-facets', 'section-source'];

/** @param {string} message */
function fail(message) {
  process.stderr.write(`\nnpm start: ${message}\n`);
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves when nothing listens on host:port (by briefly binding it), rejects with the bind error.
 * @param {string} host
 * @param {number} port
 * @returns {Promise<void>}
 */
function assertPortFree(host, port) {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** @param {unknown} error */
function isAddressInUse(error) {
  return error instanceof Error && /** @type {NodeJS.ErrnoException} */ (error).code === 'EADDRINUSE';
}

/**
 * Single-quotes a string for POSIX shells, so printed commands paste safely.
 * @param {string} text
 */
function shellQuote(text) {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * True while any process of the group led by pid exists.
 * @param {number} pid
 */
function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {number} pid
 * @param {NodeJS.Signals} signal
 */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * @param {string} token
 * @returns {string}
 */
function usageBanner(token) {
  const auth = `-H ${shellQuote(`Authorization: Bearer ${token}`)}`;
  const encoded = encodeURIComponent(EXAMPLE_NOTE);
  const lines = [
    '',
    '================ Knowtation Edge (local) ================',
    `Worker:          ${WORKER_URL}   (wrangler dev, ENVIRONMENT=local)`,
    `Demo canister:   ${CANISTER_URL}   (user '${DEMO_USER}', vault '${DEMO_VAULT}', notes from demo/vault)`,
    '',
    'Viewer token (sub demo, 12h):',
    token,
    '',
    'Health:',
    `  curl -s ${WORKER_URL}/health`,
    '',
    'REST routes:',
    ...REST_ROUTES.map((route) => `  curl -s ${auth} "${WORKER_URL}/api/v1/${route}?path=${encoded}"`),
    '',
    'Body never leaks (expect 0):',
    `  curl -s ${auth} "${WORKER_URL}/api/v1/section-source?path=${encodeURIComponent(SENTINEL_NOTE)}" | grep -c DEMO-BODY-SENTINEL`,
    '',
    'MCP tools/call:',
    `  curl -s -X POST ${WORKER_URL}/mcp -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' ${auth} -d ${shellQuote(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_note_outline', arguments: { path: EXAMPLE_NOTE } },
      }),
    )}`,
    '',
    'MCP Inspector CLI (0.16.8 is the first with --header; it runs on Node 20 here):',
    `  npx -y @modelcontextprotocol/inspector@0.16.8 --cli ${WORKER_URL}/mcp --transport http --header ${shellQuote(
      `Authorization: Bearer ${token}`,
    )} --method tools/list`,
    '',
    'More tokens: npm run -s token -- --help',
    'Press Ctrl-C to stop.',
    '==========================================================',
    '',
  ];
  return lines.join('\n');
}

async function main() {
  if (!existsSync(WRANGLER_BIN)) {
    fail(`wrangler is not installed (${path.relative(REPO_ROOT, WRANGLER_BIN)} is missing); run npm ci first.`);
    return 1;
  }
  try {
    await assertPortFree(HOST, WORKER_PORT);
  } catch (error) {
    fail(
      isAddressInUse(error)
        ? `port ${WORKER_PORT} on ${HOST} is busy; stop whatever is using it (another npm start or wrangler dev?) and retry.`
        : `cannot bind ${HOST}:${WORKER_PORT}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  }

  /** @type {{ url: string, close(): Promise<void> }} */
  let canister;
  try {
    canister = await startDemoCanister({
      host: HOST,
      port: DEV_CANISTER_PORT,
      gatewaySecret: DEV_CANISTER_AUTH_SECRET,
      vaultDir: VAULT_DIR,
      seedUser: DEMO_USER,
      seedVault: DEMO_VAULT,
    });
  } catch (error) {
    fail(
      isAddressInUse(error)
        ? `port ${DEV_CANISTER_PORT} on ${HOST} (demo canister) is busy; stop whatever is using it and retry.`
        : `the demo canister failed to start: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  }
  const noteCount = (await loadVault(VAULT_DIR)).length;
  process.stdout.write(`Demo canister listening on ${canister.url} with ${noteCount} notes.\n`);

  const secretsDir = mkdtempSync(path.join(tmpdir(), 'knowtation-edge-dev-'));
  const envFile = path.join(secretsDir, 'worker.env');
  writeFileSync(envFile, `SESSION_SECRET=${DEV_SESSION_SECRET}\nCANISTER_AUTH_SECRET=${DEV_CANISTER_AUTH_SECRET}\n`, {
    mode: 0o600,
  });
  const removeSecrets = () => rmSync(secretsDir, { recursive: true, force: true });

  // Detached: wrangler and its workerd children form their own process group, which we signal
  // as a unit; a terminal Ctrl-C reaches only us, and we stop wrangler in order.
  const wrangler = spawn(
    process.execPath,
    [
      WRANGLER_BIN,
      'dev',
      '--port',
      String(WORKER_PORT),
      '--ip',
      HOST,
      '--env-file',
      envFile,
      '--var',
      'ENVIRONMENT:local',
      '--var',
      `CANISTER_URL:${CANISTER_URL}`,
      '--show-interactive-dev-session=false',
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true,
    },
  );
  const wranglerPid = wrangler.pid;
  /** @type {Promise<number | null>} */
  const wranglerExited = new Promise((resolve) => {
    wrangler.once('exit', (code, signal) => resolve(signal ? null : code));
    wrangler.once('error', (error) => {
      fail(`could not run wrangler: ${error.message}`);
      resolve(1);
    });
  });
  let wranglerDone = false;
  void wranglerExited.then(() => {
    wranglerDone = true;
  });

  // Last resort on any exit path: never leave wrangler/workerd or the secrets file behind.
  process.on('exit', () => {
    if (wranglerPid !== undefined) signalGroup(wranglerPid, 'SIGKILL');
    removeSecrets();
  });

  /** @type {Promise<void> | undefined} */
  let stopping;
  /** @type {() => void} */
  let announceStop = () => {};
  /** Resolves when a signal (or the loss of our parent) asks us to stop. */
  const stopRequested = new Promise((resolve) => {
    announceStop = () => resolve(undefined);
  });

  /** Stops wrangler (SIGINT, then whatever is left of its process group), then the canister; runs once. */
  function stopAll() {
    stopping ??= (async () => {
      if (wranglerPid !== undefined) {
        if (!wranglerDone) {
          try {
            process.kill(wranglerPid, 'SIGINT');
          } catch {
            // Already exited.
          }
          await Promise.race([wranglerExited, sleep(STOP_GRACE_MS)]);
        }
        if (groupAlive(wranglerPid)) {
          signalGroup(wranglerPid, 'SIGTERM');
          for (let waited = 0; waited < 3000 && groupAlive(wranglerPid); waited += 100) await sleep(100);
          signalGroup(wranglerPid, 'SIGKILL');
        }
      }
      await canister.close();
      removeSecrets();
    })();
    return stopping;
  }

  /** @param {string} reason */
  const requestStop = (reason) => {
    if (stopping) return;
    process.stdout.write(`\nnpm start: ${reason}, stopping wrangler and the demo canister...\n`);
    announceStop();
    void stopAll();
  };
  for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
    process.on(signal, () => requestStop(`${signal} received`));
  }
  // `kill <npm pid>` reaches only npm's shell, which exits without passing the signal on; an
  // orphaned start script must still take wrangler down instead of leaving it running.
  const parentPid = process.ppid;
  setInterval(() => {
    if (process.ppid !== parentPid) requestStop('parent process exited');
  }, 500).unref();

  const deadline = Date.now() + READY_TIMEOUT_MS;
  let ready = false;
  while (!ready && !wranglerDone && !stopping && Date.now() < deadline) {
    try {
      const response = await fetch(`${WORKER_URL}/health`, { signal: AbortSignal.timeout(2000) });
      ready = response.status === 200;
      await response.body?.cancel();
    } catch {
      // Not listening yet.
    }
    if (!ready) await sleep(250);
  }
  if (stopping) {
    await stopping;
    process.stdout.write('npm start: stopped.\n');
    return 0;
  }
  if (!ready) {
    const code = wranglerDone ? await wranglerExited : undefined;
    fail(
      wranglerDone
        ? `wrangler dev exited (code ${code ?? 'by signal'}) before the Worker answered ${WORKER_URL}/health; see its output above.`
        : `the Worker did not answer ${WORKER_URL}/health with 200 within ${READY_TIMEOUT_MS / 1000}s.`,
    );
    await stopAll();
    return 1;
  }

  const token = await mintToken({
    sub: DEMO_USER,
    role: 'viewer',
    type: 'session',
    ttlSeconds: 12 * 3600,
    secret: DEV_SESSION_SECRET,
  });
  process.stdout.write(usageBanner(token));

  const outcome = await Promise.race([
    stopRequested.then(() => /** @type {const} */ ('stop-requested')),
    wranglerExited.then(() => /** @type {const} */ ('wrangler-exited')),
  ]);
  if (outcome === 'wrangler-exited' && !stopping) {
    const code = await wranglerExited;
    fail(`wrangler dev exited unexpectedly (code ${code ?? 'by signal'}); stopping the demo canister.`);
    await stopAll();
    return 1;
  }
  await stopAll();
  process.stdout.write('npm start: stopped.\n');
  return 0;
}

// Explicit exit: idle keep-alive sockets of fetch() must not hold the process open after shutdown.
process.exit(await main());
