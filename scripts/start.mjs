#!/usr/bin/env node
// @ts-check
/**
 * `npm start`: the demo canister (in-process, 127.0.0.1:8788, serving demo/vault or the folder
 * given with --vault) plus `wrangler dev` for the Worker (127.0.0.1:8787) wired to it with the
 * published dev secrets, plus the explorer page (127.0.0.1:8789, demo/explorer/) and the local
 * OAuth authorization server (127.0.0.1:8790, demo/auth-server.mjs) whose tokens the Worker
 * verifies through its JWK set, then prints a viewer token and ready-to-paste curl, MCP Inspector
 * and OAuth client commands. Ctrl-C (SIGINT) or SIGTERM stops wrangler (its whole process group,
 * so no workerd is left behind), the explorer, the authorization server and the canister.
 *
 * The dev secrets reach wrangler through a temporary env file (mode 0600, removed on exit), so
 * wrangler lists them as hidden instead of printing them in its binding table.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_VAULT_NOTES, startDemoCanister } from '../demo/canister.mjs';
import { startExplorer } from '../demo/explorer/server.mjs';
import { startAuthServer } from '../demo/auth-server.mjs';
import {
  DEMO_USER,
  DEMO_VAULT,
  DEV_AUTH_PORT,
  DEV_CANISTER_AUTH_SECRET,
  DEV_CANISTER_PORT,
  DEV_EXPLORER_PORT,
  DEV_SESSION_SECRET,
  WORKER_PORT,
} from './dev-config.mjs';
import { mintToken } from './token.mjs';
import { parseOptions } from './cli-options.mjs';

const HOST = '127.0.0.1';
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEMO_VAULT_DIR = path.join(REPO_ROOT, 'demo', 'vault');
const WRANGLER_BIN = path.join(REPO_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const READY_TIMEOUT_MS = 90_000;
const PROGRESS_EVERY_MS = 5_000;
const STOP_GRACE_MS = 10_000;
const DEMO_EXAMPLE_NOTE = 'projects/Aurora/roadmap.md';
const SENTINEL_NOTE = 'reference/sentinel-body.md';
const REST_ROUTES = ['note-outline', 'document-tree', 'metadata-facets', 'section-source'];
/** How many vault paths, and how many skipped or warned files, the start output names. */
const PATHS_SHOWN = 5;
const ISSUES_SHOWN = 20;

const USAGE = `Usage: npm start -- [options]

Runs the Worker locally (wrangler dev, ENVIRONMENT=local) against an embedded demo canister that
serves a folder of Markdown notes, plus an explorer page, and prints a dev token and commands.

Options:
  --vault <dir>           folder of Markdown notes to serve (default: demo/vault); every *.md file
                          below it, YAML frontmatter included, under its /-separated relative path
  --env <name>            wrangler environment ([env.<name>] in wrangler.toml), e.g. --env load
  --port <n>              Worker port (default: ${WORKER_PORT})
  --canister-port <n>     demo canister port (default: ${DEV_CANISTER_PORT})
  --explorer-port <n>     explorer page port (default: ${DEV_EXPLORER_PORT})
  --auth-port <n>         local OAuth authorization server port (default: ${DEV_AUTH_PORT})
  --auto-approve          the authorization server signs the demo user in and consents without
                          showing its page (scripted clients, tests)
  -h, --help              show this help and exit

Files the demo canister cannot serve (unreadable, not UTF-8, over 8 MiB, symbolic links, paths the
Worker cannot request) are named and skipped; see demo/README.md.
`;

/** A command-line problem: usage on stderr, exit code 2, nothing started. */
class UsageError extends Error {}

/**
 * @param {string | undefined} text
 * @param {string} flag
 * @param {number} fallback
 */
function parsePort(text, flag, fallback) {
  if (text === undefined) return fallback;
  if (!/^[0-9]{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
    throw new UsageError(`${flag} must be a port number 1..65535`);
  }
  return Number(text);
}

/**
 * The start options from the command line; throws UsageError.
 * @param {string[]} argv
 * @returns {{ help: true } | { help: false, vaultDir: string, customVault: boolean, env: string | undefined,
 *   autoApprove: boolean, workerPort: number, canisterPort: number, explorerPort: number, authPort: number }}
 */
function parseStartArgs(argv) {
  const values = parseOptions(
    argv,
    {
      vault: { type: 'string' },
      env: { type: 'string' },
      port: { type: 'string' },
      'canister-port': { type: 'string' },
      'explorer-port': { type: 'string' },
      'auth-port': { type: 'string' },
      'auto-approve': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    UsageError,
  );
  if (values.help) return { help: true };
  if (values.env !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(values.env)) {
    throw new UsageError('--env must be a wrangler environment name ([A-Za-z0-9_-])');
  }
  const vaultDir = values.vault === undefined ? DEMO_VAULT_DIR : path.resolve(values.vault);
  if (values.vault !== undefined) {
    let isDir = false;
    try {
      isDir = statSync(vaultDir).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) throw new UsageError(`--vault ${values.vault}: not a folder`);
  }
  const ports = {
    workerPort: parsePort(values.port, '--port', WORKER_PORT),
    canisterPort: parsePort(values['canister-port'], '--canister-port', DEV_CANISTER_PORT),
    explorerPort: parsePort(values['explorer-port'], '--explorer-port', DEV_EXPLORER_PORT),
    authPort: parsePort(values['auth-port'], '--auth-port', DEV_AUTH_PORT),
  };
  if (new Set(Object.values(ports)).size !== 4) {
    throw new UsageError('--port, --canister-port, --explorer-port and --auth-port must differ');
  }
  return {
    help: false,
    vaultDir,
    customVault: values.vault !== undefined,
    env: values.env,
    autoApprove: values['auto-approve'] === true,
    ...ports,
  };
}

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
 * @typedef {object} BannerInput
 * @property {string} token
 * @property {string} workerUrl
 * @property {string} canisterUrl
 * @property {string} explorerUrl
 * @property {string} authServerUrl
 * @property {boolean} autoApprove
 * @property {string} vaultLabel
 * @property {string[]} notePaths
 * @property {string} exampleNote
 * @property {boolean} demoVault
 * @property {string | undefined} env
 */

/**
 * @param {BannerInput} input
 * @returns {string}
 */
function usageBanner({ token, workerUrl, canisterUrl, explorerUrl, authServerUrl, autoApprove, vaultLabel, notePaths, exampleNote, demoVault, env }) {
  const auth = `-H ${shellQuote(`Authorization: Bearer ${token}`)}`;
  const encoded = encodeURIComponent(exampleNote);
  const shownPaths = notePaths.slice(0, PATHS_SHOWN).map((notePath) => `  ${notePath}`);
  if (notePaths.length > PATHS_SHOWN) shownPaths.push(`  ... and ${notePaths.length - PATHS_SHOWN} more (all of them in the explorer)`);
  const lines = [
    '',
    '================ Knowtation Edge (local) ================',
    `Worker:          ${workerUrl}   (wrangler dev, ENVIRONMENT=local${env ? `, --env ${env}` : ''})`,
    `Explorer page:   ${explorerUrl}/   (open it in a browser)`,
    `Demo canister:   ${canisterUrl}   (user '${DEMO_USER}', vault '${DEMO_VAULT}', ${notePaths.length} notes from ${vaultLabel})`,
    `OAuth server:    ${authServerUrl}   (signs in '${DEMO_USER}'; ${autoApprove ? 'approves automatically' : 'consent page in the browser'})`,
    ...(notePaths.length > 0 ? ['', 'Some note paths:', ...shownPaths] : ['', 'The vault folder has no *.md notes.']),
    '',
    'Viewer token (sub demo, 12h):',
    token,
    '',
    'Health:',
    `  curl -s ${workerUrl}/health`,
    '',
    'REST routes:',
    ...REST_ROUTES.map((route) => `  curl -s ${auth} "${workerUrl}/api/v1/${route}?path=${encoded}"`),
    ...(demoVault
      ? [
          '',
          'Body never leaks (expect 0):',
          `  curl -s ${auth} "${workerUrl}/api/v1/section-source?path=${encodeURIComponent(SENTINEL_NOTE)}" | grep -c DEMO-BODY-SENTINEL`,
        ]
      : []),
    '',
    'MCP tools/call:',
    `  curl -s -X POST ${workerUrl}/mcp -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' ${auth} -d ${shellQuote(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_note_outline', arguments: { path: exampleNote } },
      }),
    )}`,
    '',
    'MCP Inspector CLI (0.16.8 is the first with --header; it runs on Node 20 here):',
    `  npx -y @modelcontextprotocol/inspector@0.16.8 --cli ${workerUrl}/mcp --transport http --header ${shellQuote(
      `Authorization: Bearer ${token}`,
    )} --method tools/list`,
    '',
    'OAuth-only clients (no token, no custom header): give them the MCP URL, they discover the',
    `authorization server from the 401, register, and send you to ${authServerUrl} to approve:`,
    `  MCP URL: ${workerUrl}/mcp   (one vault: ${workerUrl}/mcp/vaults/${DEMO_VAULT})`,
    `  mcp-remote (what Claude Desktop runs): npx mcp-remote ${workerUrl}/mcp`,
    '  recipes for claude.ai, ChatGPT, Cursor, VS Code: docs/MCP.md',
    '',
    'More tokens: npm run -s token -- --help',
    'Press Ctrl-C to stop.',
    '==========================================================',
    '',
  ];
  return lines.join('\n');
}

/**
 * Prints the files the canister skipped or loaded with a caveat, by vault-relative name.
 * @param {{ skipped: Array<{ path: string, reason: string }>, warnings: Array<{ path: string, reason: string }>, limitReached: boolean }} report
 */
function printVaultIssues(report) {
  /**
   * @param {string} title
   * @param {Array<{ path: string, reason: string }>} issues
   */
  const list = (title, issues) => {
    if (issues.length === 0) return;
    process.stdout.write(`${title} (${issues.length}):\n`);
    for (const issue of issues.slice(0, ISSUES_SHOWN)) process.stdout.write(`  ${issue.path}: ${issue.reason}\n`);
    if (issues.length > ISSUES_SHOWN) process.stdout.write(`  ... and ${issues.length - ISSUES_SHOWN} more\n`);
  };
  list('Skipped files', report.skipped);
  list('Served with a caveat', report.warnings);
  if (report.limitReached) process.stdout.write(`Stopped loading at ${MAX_VAULT_NOTES} notes; the rest of the folder is not served.\n`);
}

/** @param {string[]} argv */
async function main(argv) {
  /** @type {ReturnType<typeof parseStartArgs>} */
  let options;
  try {
    options = parseStartArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`npm start: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const { vaultDir, workerPort, canisterPort, explorerPort } = options;
  const workerUrl = `http://${HOST}:${workerPort}`;
  const canisterUrl = `http://${HOST}:${canisterPort}`;
  const vaultLabel = options.customVault ? vaultDir : 'demo/vault';

  if (!existsSync(WRANGLER_BIN)) {
    fail(`wrangler is not installed (${path.relative(REPO_ROOT, WRANGLER_BIN)} is missing); run npm ci first.`);
    return 1;
  }
  try {
    await assertPortFree(HOST, workerPort);
  } catch (error) {
    fail(
      isAddressInUse(error)
        ? `port ${workerPort} on ${HOST} is busy; stop whatever is using it (another npm start or wrangler dev?) or pick another with --port.`
        : `cannot bind ${HOST}:${workerPort}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  }

  process.stdout.write(`Loading notes from ${vaultLabel} ...\n`);
  /** @type {import('../demo/canister.mjs').DemoCanister} */
  let canister;
  try {
    canister = await startDemoCanister({
      host: HOST,
      port: canisterPort,
      gatewaySecret: DEV_CANISTER_AUTH_SECRET,
      vaultDir,
      seedUser: DEMO_USER,
      seedVault: DEMO_VAULT,
    });
  } catch (error) {
    fail(
      isAddressInUse(error)
        ? `port ${canisterPort} on ${HOST} (demo canister) is busy; stop whatever is using it or pick another with --canister-port.`
        : `the demo canister failed to start: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  }
  const notePaths = canister.listNotes();
  if (canister.vault) printVaultIssues(canister.vault);
  process.stdout.write(`Demo canister listening on ${canister.url} with ${notePaths.length} notes.\n`);
  const exampleNote = notePaths.includes(DEMO_EXAMPLE_NOTE) ? DEMO_EXAMPLE_NOTE : (notePaths[0] ?? 'your-note.md');

  /** @type {import('../demo/auth-server.mjs').AuthServer} */
  let authServer;
  try {
    authServer = await startAuthServer({ host: HOST, port: options.authPort, resourceOrigin: workerUrl, autoApprove: options.autoApprove });
  } catch (error) {
    fail(
      isAddressInUse(error)
        ? `port ${options.authPort} on ${HOST} (authorization server) is busy; stop whatever is using it or pick another with --auth-port.`
        : `the authorization server failed to start: ${error instanceof Error ? error.message : String(error)}`,
    );
    await canister.close();
    return 1;
  }

  const token = await mintToken({
    sub: DEMO_USER,
    role: 'viewer',
    type: 'session',
    ttlSeconds: 12 * 3600,
    secret: DEV_SESSION_SECRET,
  });

  /** @type {{ url: string, close(): Promise<void> }} */
  let explorer;
  try {
    explorer = await startExplorer({
      host: HOST,
      port: explorerPort,
      workerUrl,
      token,
      listNotes: () => canister.listNotes(),
      vaultLabel: `${notePaths.length} notes from ${options.customVault ? path.basename(vaultDir) : 'demo/vault'}`,
    });
  } catch (error) {
    fail(
      isAddressInUse(error)
        ? `port ${explorerPort} on ${HOST} (explorer page) is busy; stop whatever is using it or pick another with --explorer-port.`
        : `the explorer page server failed to start: ${error instanceof Error ? error.message : String(error)}`,
    );
    await authServer.close();
    await canister.close();
    return 1;
  }

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
      String(workerPort),
      '--ip',
      HOST,
      '--env-file',
      envFile,
      '--var',
      'ENVIRONMENT:local',
      '--var',
      `CANISTER_URL:${canisterUrl}`,
      // The local stack is an exact OAuth resource too: its own origin, and the local authorization server's keys.
      '--var',
      `PUBLIC_ORIGIN:${workerUrl}`,
      '--var',
      `OAUTH_AUTHORIZATION_SERVER:${authServer.issuer}`,
      '--var',
      `JWT_JWKS_URL:${authServer.jwksUrl}`,
      '--show-interactive-dev-session=false',
      ...(options.env ? ['--env', options.env] : []),
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
      await explorer.close();
      await authServer.close();
      await canister.close();
      removeSecrets();
    })();
    return stopping;
  }

  /** @param {string} reason */
  const requestStop = (reason) => {
    if (stopping) return;
    process.stdout.write(`\nnpm start: ${reason}, stopping wrangler, the explorer, the authorization server and the demo canister...\n`);
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

  const startedWaiting = Date.now();
  const deadline = startedWaiting + READY_TIMEOUT_MS;
  let nextProgress = startedWaiting + PROGRESS_EVERY_MS;
  let ready = false;
  process.stdout.write(`Waiting for the Worker at ${workerUrl}/health (wrangler dev is bundling and starting workerd) ...\n`);
  while (!ready && !wranglerDone && !stopping && Date.now() < deadline) {
    if (Date.now() >= nextProgress) {
      process.stdout.write(`  still waiting for ${workerUrl}/health (${Math.round((Date.now() - startedWaiting) / 1000)}s of ${READY_TIMEOUT_MS / 1000}s) ...\n`);
      nextProgress += PROGRESS_EVERY_MS;
    }
    try {
      const response = await fetch(`${workerUrl}/health`, { signal: AbortSignal.timeout(2000) });
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
        ? `wrangler dev exited (code ${code ?? 'by signal'}) before the Worker answered ${workerUrl}/health; see its output above.`
        : `the Worker did not answer ${workerUrl}/health with 200 within ${READY_TIMEOUT_MS / 1000}s.`,
    );
    await stopAll();
    return 1;
  }

  process.stdout.write(
    usageBanner({
      token,
      workerUrl,
      canisterUrl: canister.url,
      explorerUrl: explorer.url,
      authServerUrl: authServer.issuer,
      autoApprove: options.autoApprove,
      vaultLabel,
      notePaths: canister.listNotes(),
      exampleNote,
      demoVault: !options.customVault,
      env: options.env,
    }),
  );

  const outcome = await Promise.race([
    stopRequested.then(() => /** @type {const} */ ('stop-requested')),
    wranglerExited.then(() => /** @type {const} */ ('wrangler-exited')),
  ]);
  if (outcome === 'wrangler-exited' && !stopping) {
    const code = await wranglerExited;
    fail(`wrangler dev exited unexpectedly (code ${code ?? 'by signal'}); stopping the explorer, the authorization server and the demo canister.`);
    await stopAll();
    return 1;
  }
  await stopAll();
  process.stdout.write('npm start: stopped.\n');
  return 0;
}

// Explicit exit: idle keep-alive sockets of fetch() must not hold the process open after shutdown.
process.exit(await main(process.argv.slice(2)));
