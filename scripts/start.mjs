#!/usr/bin/env node
// @ts-check
/**
 * `npm start`: the demo canister (in-process, 127.0.0.1:8788, serving demo/vault or the folder
 * given with --vault) plus `wrangler dev` for the Worker (127.0.0.1:8787) wired to it with the
 * published dev secrets, plus the explorer page (127.0.0.1:8789, demo/explorer/) and the local
 * OAuth authorization server (127.0.0.1:8790, demo/auth-server.mjs) whose tokens the Worker
 * verifies through its JWK set, and a stand-in for the Hub's hosted-context endpoint
 * (127.0.0.1:8791, demo/hub-context.mjs) that knows the demo user's workspace and one member, then
 * prints a viewer token, a member token and ready-to-paste curl, MCP Inspector and OAuth client
 * commands. Ctrl-C (SIGINT) or SIGTERM stops wrangler (its whole process group,
 * so no workerd is left behind), the explorer, the Hub stand-in, the authorization server and the
 * canister. With --canister-url the Worker reads from that notes store instead (docs/STORE.md) and
 * no demo canister starts.
 *
 * The dev secrets reach wrangler through a temporary env file (mode 0600, removed on exit), so
 * wrangler lists them as hidden instead of printing them in its binding table.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_VAULT_NOTES, startDemoCanister } from '../demo/canister.mjs';
import { startExplorer } from '../demo/explorer/server.mjs';
import { startAuthServer } from '../demo/auth-server.mjs';
import { startHubContext } from '../demo/hub-context.mjs';
import {
  DEMO_MEMBER,
  DEMO_USER,
  DEMO_VAULT,
  DEV_AUTH_PORT,
  DEV_HUB_PORT,
  DEV_CANISTER_AUTH_SECRET,
  DEV_CANISTER_PORT,
  DEV_EXPLORER_PORT,
  DEV_SESSION_SECRET,
  WORKER_PORT,
} from './dev-config.mjs';
import { mintViewerToken } from './token.mjs';
import { errorMessage, parseCommandLine } from './lib/cli.mjs';
import { healthStatus } from './lib/http.mjs';
import { CONTRACTS, MCP_ACCEPT, jsonRpcBody, restTarget, toolCallParams } from './lib/worker-api.ts';
import { signalGroup, sleep, spawnGroup, stopGroup } from './lib/process.mjs';

const HOST = '127.0.0.1';
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEMO_VAULT_DIR = path.join(REPO_ROOT, 'demo', 'vault');
const WRANGLER_BIN = path.join(REPO_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const READY_TIMEOUT_MS = 90_000;
const PROGRESS_EVERY_MS = 5_000;
const STOP_GRACE_MS = 10_000;
const DEMO_EXAMPLE_NOTE = 'projects/Aurora/roadmap.md';
const SENTINEL_NOTE = 'reference/sentinel-body.md';
/** How many vault paths, and how many skipped or warned files, the start output names. */
const PATHS_SHOWN = 5;
const ISSUES_SHOWN = 20;

const USAGE = `Usage: npm start -- [options]

Runs the Worker locally (wrangler dev, ENVIRONMENT=local) against an embedded demo canister that
serves a folder of Markdown notes, plus an explorer page, and prints a dev token and commands.

Options:
  --vault <dir>           folder of Markdown notes to serve (default: demo/vault); every *.md file
                          below it, YAML frontmatter included, under its /-separated relative path
  --canister-url <url>    read notes from this store instead of the demo canister (docs/STORE.md,
                          e.g. node examples/notes-store.mjs <dir>); it is sent X-Gateway-Auth with
                          the published dev value, and lists nothing, so notes are opened by path
  --env <name>            wrangler environment ([env.<name>] in wrangler.toml), e.g. --env load
  --port <n>              Worker port (default: ${WORKER_PORT})
  --canister-port <n>     demo canister port (default: ${DEV_CANISTER_PORT}; not with --canister-url)
  --explorer-port <n>     explorer page port (default: ${DEV_EXPLORER_PORT})
  --auth-port <n>         local OAuth authorization server port (default: ${DEV_AUTH_PORT})
  --hub-port <n>          port of the stand-in for the Hub's hosted-context endpoint (default: ${DEV_HUB_PORT})
  --auto-approve          the authorization server signs the demo user in and consents without
                          showing its page, for loopback redirect URIs only (scripted clients,
                          tests); any other redirect URI still gets the page
  -h, --help              show this help and exit

Files the demo canister cannot serve (unreadable, not UTF-8, over 8 MiB, symbolic links, paths the
Worker cannot request) are named and skipped; see demo/README.md.
`;

/** A command-line problem: usage on stderr, exit code 2, nothing started. */
class UsageError extends Error {}

/**
 * @typedef {object} StartOptions
 * @property {false} help
 * @property {string} vaultDir absolute
 * @property {boolean} customVault true when --vault was given
 * @property {string} vaultLabel how the output names the vault: the folder, or demo/vault
 * @property {boolean} ownStore true when --canister-url names the notes store (no demo canister)
 * @property {string | undefined} env
 * @property {boolean} autoApprove
 * @property {number} workerPort
 * @property {number} canisterPort
 * @property {number} explorerPort
 * @property {number} authPort
 * @property {number} hubPort
 * @property {string} workerUrl
 * @property {string} canisterUrl
 *
 * @typedef {Pick<import('../demo/canister.mjs').DemoCanister, 'url' | 'listNotes' | 'close'> & { vault?: import('../demo/canister.mjs').DemoCanister['vault'] }} NotesStore
 *   the demo canister, or the store --canister-url names (which lists nothing)
 *
 * @typedef {object} Services what runs next to wrangler, with the dev token and the vault's paths
 * @property {NotesStore} canister
 * @property {import('../demo/auth-server.mjs').AuthServer} authServer
 * @property {{ url: string, close(): Promise<void> }} explorer
 * @property {{ url: string, contextUrl: string, close(): Promise<void> }} hub the Hub's hosted-context stand-in
 * @property {string} token
 * @property {string} memberToken the workspace member's token (no hosted context: the Hub stand-in gives it)
 * @property {string} memberFolder the member's folder scope, '' for none
 * @property {string[]} notePaths
 *
 * @typedef {object} StopControl
 * @property {Promise<void>} requested resolves when a signal (or the loss of our parent) asks us to stop
 * @property {() => Promise<void> | undefined} stopping the stop under way, if any
 * @property {() => Promise<void>} stopAll stops wrangler, then the servers, then removes the secrets; runs once
 * @property {(reason: string) => void} request says why and starts stopAll, once
 */

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
 * @returns {{ help: true } | StartOptions}
 */
function parseStartArgs(argv) {
  const values = parseCommandLine(
    argv,
    { strings: ['vault', 'canister-url', 'env', 'port', 'canister-port', 'explorer-port', 'auth-port', 'hub-port'], flags: ['auto-approve'] },
    UsageError,
  );
  if (values.help) return { help: true };
  if (values.env !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(values.env)) {
    throw new UsageError('--env must be a wrangler environment name ([A-Za-z0-9_-])');
  }
  const vaultDir = values.vault === undefined ? DEMO_VAULT_DIR : path.resolve(values.vault);
  if (values.vault !== undefined && !isFolder(vaultDir)) throw new UsageError(`--vault ${values.vault}: not a folder`);
  const storeUrl = values['canister-url'] === undefined ? undefined : parseStoreUrl(values['canister-url']);
  if (storeUrl !== undefined && (values.vault !== undefined || values['canister-port'] !== undefined)) {
    throw new UsageError('--canister-url replaces the demo canister: leave out --vault and --canister-port');
  }
  const ports = {
    workerPort: parsePort(values.port, '--port', WORKER_PORT),
    canisterPort: parsePort(values['canister-port'], '--canister-port', DEV_CANISTER_PORT),
    explorerPort: parsePort(values['explorer-port'], '--explorer-port', DEV_EXPLORER_PORT),
    authPort: parsePort(values['auth-port'], '--auth-port', DEV_AUTH_PORT),
    hubPort: parsePort(values['hub-port'], '--hub-port', DEV_HUB_PORT),
  };
  const listening = storeUrl === undefined ? Object.values(ports) : [ports.workerPort, ports.explorerPort, ports.authPort, ports.hubPort];
  if (new Set(listening).size !== listening.length) {
    throw new UsageError('--port, --canister-port, --explorer-port, --auth-port and --hub-port must differ');
  }
  return {
    help: false,
    vaultDir,
    customVault: values.vault !== undefined,
    vaultLabel: storeUrl !== undefined ? storeUrl : values.vault !== undefined ? vaultDir : 'demo/vault',
    ownStore: storeUrl !== undefined,
    env: values.env,
    autoApprove: values['auto-approve'] === true,
    workerUrl: `http://${HOST}:${ports.workerPort}`,
    canisterUrl: storeUrl ?? `http://${HOST}:${ports.canisterPort}`,
    ...ports,
  };
}

/**
 * The notes store URL as the Worker takes it (CANISTER_URL): http or https, no query or fragment,
 * trailing `/` removed; throws UsageError.
 * @param {string} text
 */
function parseStoreUrl(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    url = null;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '') {
    throw new UsageError('--canister-url must be an http:// or https:// URL without query or fragment');
  }
  return url.href.replace(/\/+$/, '');
}

/** @param {string} dir */
function isFolder(dir) {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** @param {string} message */
function fail(message) {
  process.stderr.write(`\nnpm start: ${message}\n`);
}

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
 * @typedef {object} BannerInput
 * @property {string} token
 * @property {string} memberToken
 * @property {string} memberFolder
 * @property {string} hubUrl
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
 * @property {boolean} ownStore
 */

/**
 * The banner's head: what runs where, and some of the vault's paths.
 * @param {BannerInput} input
 */
function serviceLines({ workerUrl, canisterUrl, explorerUrl, authServerUrl, hubUrl, autoApprove, vaultLabel, notePaths, env, ownStore }) {
  const shownPaths = notePaths.slice(0, PATHS_SHOWN).map((notePath) => `  ${notePath}`);
  if (notePaths.length > PATHS_SHOWN) shownPaths.push(`  ... and ${notePaths.length - PATHS_SHOWN} more (all of them in the explorer)`);
  return [
    '',
    '================ Knowtation Edge (local) ================',
    `Worker:          ${workerUrl}   (wrangler dev, ENVIRONMENT=local${env ? `, --env ${env}` : ''})`,
    `Explorer page:   ${explorerUrl}/   (open it in a browser)`,
    ownStore
      ? `Notes store:     ${canisterUrl}   (yours: the Worker reads one path per request from it; it lists nothing)`
      : `Demo canister:   ${canisterUrl}   (user '${DEMO_USER}', vault '${DEMO_VAULT}', ${notePaths.length} notes from ${vaultLabel})`,
    `OAuth server:    ${authServerUrl}   (signs in '${DEMO_USER}'; ${autoApprove ? 'approves loopback clients automatically' : 'consent page in the browser'})`,
    `Hub stand-in:    ${hubUrl}   (hosted context: '${DEMO_USER}' owns the workspace, '${DEMO_MEMBER}' is a member)`,
    ...(notePaths.length > 0
      ? ['', 'Some note paths:', ...shownPaths]
      : ['', ownStore ? `Open a note by its path: ${explorerUrl}/#path=<path>, or put it in the commands below.` : 'The vault folder has no *.md notes.']),
  ];
}

/**
 * The token and a curl line per REST route (plus the body-never-leaks check on the demo vault).
 * @param {BannerInput} input
 * @param {string} auth the curl -H option with the token
 */
function restLines({ token, memberToken, memberFolder, workerUrl, exampleNote, notePaths, demoVault }, auth) {
  const sentinelCheck = [
    '',
    'Body never leaks (expect 0):',
    `  curl -s ${auth} "${workerUrl}${restTarget('section_source', SENTINEL_NOTE)}" | grep -c DEMO-BODY-SENTINEL`,
  ];
  const outside = memberFolder === '' ? undefined : notePaths.find((notePath) => !notePath.startsWith(`${memberFolder}/`));
  const member = '-H "Authorization: Bearer $MEMBER_TOKEN"';
  const memberLines = [
    '',
    `A workspace member's view: '${DEMO_MEMBER}', whose token carries no hosted context (as the Hub's own),`,
    `so the Worker asks the Hub stand-in, which answers: the notes of '${DEMO_USER}', ${memberFolder === '' ? 'all of them' : `only under ${memberFolder}/`}:`,
    `  export MEMBER_TOKEN=${memberToken}`,
    `  curl -s ${member} "${workerUrl}${restTarget('note_outline', exampleNote)}"`,
    ...(outside ? [`  curl -s ${member} "${workerUrl}${restTarget('note_outline', outside)}"   # outside the scope: 404, as a missing note`] : []),
  ];
  return [
    '',
    'Viewer token (sub demo, 12h); the commands below read it from $TOKEN:',
    `  export TOKEN=${token}`,
    '',
    'Health:',
    `  curl -s ${workerUrl}/health`,
    '',
    'REST routes:',
    ...CONTRACTS.map((contract) => `  curl -s ${auth} "${workerUrl}${restTarget(contract, exampleNote)}"`),
    ...(demoVault ? sentinelCheck : []),
    ...memberLines,
  ];
}

/**
 * An MCP tools/call with curl, the MCP Inspector line and how OAuth-only clients connect.
 * @param {BannerInput} input
 * @param {string} auth the curl -H option with the token
 */
function mcpLines({ workerUrl, authServerUrl, exampleNote }, auth) {
  const call = jsonRpcBody(1, 'tools/call', toolCallParams('note_outline', exampleNote));
  return [
    '',
    'MCP tools/call:',
    `  curl -s -X POST ${workerUrl}/mcp -H 'Content-Type: application/json' -H 'Accept: ${MCP_ACCEPT}' ${auth} -d ${shellQuote(call)}`,
    '',
    'MCP Inspector CLI (2.12.0; the first run downloads it from the npm registry, and npm warns',
    'EBADENGINE because it declares Node 22.19: it runs on Node 20 all the same):',
    `  npx -y @modelcontextprotocol/inspector@2.12.0 --cli ${workerUrl}/mcp --transport http --header "Authorization: Bearer $TOKEN" --method tools/list`,
    '',
    'OAuth-only clients (no token, no custom header): give them the MCP URL, they discover the',
    `authorization server from the 401, register, and send you to ${authServerUrl} to approve:`,
    `  MCP URL: ${workerUrl}/mcp   (one vault: ${workerUrl}/mcp/vaults/${DEMO_VAULT})`,
    `  mcp-remote (what Claude Desktop runs): npx mcp-remote ${workerUrl}/mcp`,
    '  recipes for claude.ai, ChatGPT, Cursor, VS Code: docs/MCP.md',
  ];
}

/**
 * @param {BannerInput} input
 * @returns {string}
 */
function usageBanner(input) {
  const auth = '-H "Authorization: Bearer $TOKEN"';
  const footer = ['', 'More tokens: npm run -s token -- --help', 'Press Ctrl-C to stop.', '==========================================================', ''];
  return [...serviceLines(input), ...restLines(input, auth), ...mcpLines(input, auth), ...footer].join('\n');
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

/**
 * The options, or the exit code when there is nothing to start (help: 0, a usage error: 2).
 * @param {string[]} argv
 * @returns {StartOptions | number}
 */
function optionsOrExitCode(argv) {
  try {
    const options = parseStartArgs(argv);
    if (!options.help) return options;
    process.stdout.write(USAGE);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`npm start: ${error.message}\n\n${USAGE}`);
    return 2;
  }
}

/**
 * Checks what would make wrangler fail late: it is installed, and the Worker port is free.
 * @param {StartOptions} options
 */
async function preflight({ workerPort }) {
  if (!existsSync(WRANGLER_BIN)) {
    fail(`wrangler is not installed (${path.relative(REPO_ROOT, WRANGLER_BIN)} is missing); run npm ci first.`);
    return false;
  }
  try {
    await assertPortFree(HOST, workerPort);
    return true;
  } catch (error) {
    fail(
      isAddressInUse(error)
        ? `port ${workerPort} on ${HOST} is busy; stop whatever is using it (another npm start or wrangler dev?) or pick another with --port.`
        : `cannot bind ${HOST}:${workerPort}: ${errorMessage(error)}`,
    );
    return false;
  }
}

/**
 * Runs start(); when it fails, says why (naming the option that changes a busy port) and gives null.
 * @template T
 * @param {{ name: string, what: string, flag: string, port: number }} service name: in the busy-port
 *   line; what: in the failure line
 * @param {() => Promise<T>} start
 * @returns {Promise<T | null>}
 */
async function startService({ name, what, flag, port }, start) {
  try {
    return await start();
  } catch (error) {
    fail(
      isAddressInUse(error)
        ? `port ${port} on ${HOST} (${name}) is busy; stop whatever is using it or pick another with ${flag}.`
        : `the ${what} failed to start: ${errorMessage(error)}`,
    );
    return null;
  }
}

/**
 * The demo canister with the vault, printing what it loaded and skipped; or, with --canister-url,
 * the store it names, which lists nothing.
 * @param {StartOptions} options
 * @returns {Promise<NotesStore | null>}
 */
async function startCanister({ vaultDir, vaultLabel, canisterPort, ownStore, canisterUrl }) {
  if (ownStore) {
    process.stdout.write(`Reading notes from your store at ${canisterUrl} (no demo canister).\n`);
    return { url: canisterUrl, listNotes: () => [], close: async () => {} };
  }
  process.stdout.write(`Loading notes from ${vaultLabel} ...\n`);
  const canister = await startService({ name: 'demo canister', what: 'demo canister', flag: '--canister-port', port: canisterPort }, () =>
    startDemoCanister({ host: HOST, port: canisterPort, gatewaySecret: DEV_CANISTER_AUTH_SECRET, vaultDir, seedUser: DEMO_USER, seedVault: DEMO_VAULT }),
  );
  if (canister === null) return null;
  if (canister.vault) printVaultIssues(canister.vault);
  process.stdout.write(`Demo canister listening on ${canister.url} with ${canister.listNotes().length} notes.\n`);
  return canister;
}

/**
 * Starts the canister, the authorization server and the explorer page server in turn. When one
 * fails it says why, closes those already started and gives null.
 * @param {StartOptions} options
 * @returns {Promise<Services | null>}
 */
async function startServices(options) {
  const { workerUrl, authPort, explorerPort, hubPort, autoApprove } = options;
  const canister = await startCanister(options);
  if (canister === null) return null;
  const notePaths = canister.listNotes();
  /** @type {Array<{ close(): Promise<void> }>} */
  const started = [canister];
  const closeStarted = async () => {
    for (const service of started.reverse()) await service.close();
  };
  const authServer = await startService({ name: 'authorization server', what: 'authorization server', flag: '--auth-port', port: authPort }, () =>
    startAuthServer({ host: HOST, port: authPort, resourceOrigin: workerUrl, autoApprove }),
  );
  if (authServer === null) return closeStarted().then(() => null);
  started.push(authServer);
  // The member reads the demo user's notes under one folder: the example note's, so its line in the banner answers.
  const exampleNote = exampleNoteOf(notePaths);
  const memberFolder = exampleNote.includes('/') ? exampleNote.slice(0, exampleNote.lastIndexOf('/')) : '';
  const hub = await startService({ name: 'Hub stand-in', what: "stand-in for the Hub's hosted-context endpoint", flag: '--hub-port', port: hubPort }, () =>
    startHubContext({ host: HOST, port: hubPort, secret: DEV_SESSION_SECRET, workspaces: [demoWorkspace(memberFolder)] }),
  );
  if (hub === null) return closeStarted().then(() => null);
  started.push(hub);
  const token = await mintViewerToken(DEMO_USER, 12 * 3600);
  const memberToken = await mintViewerToken(DEMO_MEMBER, 12 * 3600);
  const vaultLabel = options.ownStore
    ? `your notes store (${options.canisterUrl})`
    : `${notePaths.length} notes from ${options.customVault ? path.basename(options.vaultDir) : 'demo/vault'}`;
  const explorer = await startService({ name: 'explorer page', what: 'explorer page server', flag: '--explorer-port', port: explorerPort }, () =>
    startExplorer({ host: HOST, port: explorerPort, workerUrl, token, listNotes: () => canister.listNotes(), vaultLabel }),
  );
  if (explorer === null) return closeStarted().then(() => null);
  return { canister, authServer, hub, explorer, token, memberToken, memberFolder, notePaths };
}

/**
 * The demo user's workspace as the Hub's bridge would hold it: the demo user owns it, and one
 * member with the viewer role may read its default vault under one folder ('' for no scope).
 * @param {string} memberFolder
 * @returns {import('../demo/hub-context.mjs').Workspace}
 */
function demoWorkspace(memberFolder) {
  return {
    owner: DEMO_USER,
    roles: { [DEMO_MEMBER]: 'viewer' },
    access: { [DEMO_MEMBER]: [DEMO_VAULT] },
    scope: memberFolder === '' ? {} : { [DEMO_MEMBER]: { [DEMO_VAULT]: { projects: [], folders: [memberFolder] } } },
    vaults: { [DEMO_USER]: [DEMO_VAULT] },
  };
}

/**
 * The note the banner's commands read: the demo vault's roadmap, else the vault's first note.
 * @param {string[]} notePaths
 */
function exampleNoteOf(notePaths) {
  return notePaths.includes(DEMO_EXAMPLE_NOTE) ? DEMO_EXAMPLE_NOTE : (notePaths[0] ?? 'your-note.md');
}

/**
 * Writes the dev secrets to a temporary env file (mode 0600) for wrangler, so that it lists them
 * as hidden instead of printing them in its binding table. It lives under the git-ignored
 * .wrangler/ folder, so wrangler names it by a short path inside the project.
 */
function writeSecretsFile() {
  const parent = path.join(REPO_ROOT, '.wrangler', 'start');
  mkdirSync(parent, { recursive: true });
  const secretsDir = mkdtempSync(path.join(parent, 'dev-'));
  const envFile = path.join(secretsDir, 'worker.env');
  writeFileSync(envFile, `SESSION_SECRET=${DEV_SESSION_SECRET}\nCANISTER_AUTH_SECRET=${DEV_CANISTER_AUTH_SECRET}\n`, {
    mode: 0o600,
  });
  return { envFile, remove: () => rmSync(secretsDir, { recursive: true, force: true }) };
}

/**
 * `wrangler dev` for the Worker, wired to the canister and the authorization server, in its own
 * process group (with its workerd children) that is signalled as a unit.
 * @param {StartOptions} options
 * @param {Services} services
 * @param {string} envFile
 */
function startWrangler({ workerPort, workerUrl, canisterUrl, env }, { authServer, hub }, envFile) {
  const vars = {
    ENVIRONMENT: 'local',
    CANISTER_URL: canisterUrl,
    // Tokens without hosted context (the dev tokens, as the Hub's own) take it from the Hub stand-in.
    HOSTED_CONTEXT_URL: hub.contextUrl,
    // The local stack is an exact OAuth resource too: its own origin, and the local authorization server's keys.
    PUBLIC_ORIGIN: workerUrl,
    OAUTH_AUTHORIZATION_SERVER: authServer.issuer,
    JWT_JWKS_URL: authServer.jwksUrl,
  };
  const args = [WRANGLER_BIN, 'dev', '--port', String(workerPort), '--ip', HOST, '--env-file', envFile];
  for (const [name, value] of Object.entries(vars)) args.push('--var', `${name}:${value}`);
  args.push('--show-interactive-dev-session=false', ...(env ? ['--env', env] : []));
  return spawnGroup(
    process.execPath,
    args,
    {
      cwd: REPO_ROOT,
      // Offline and quiet: no metrics, no Request.cf lookup, no update notice for the pinned wrangler.
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_HIDE_BANNER: 'true' },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
    (error) => fail(`could not run wrangler: ${error.message}`),
  );
}

/**
 * How the start stops: wrangler (SIGINT, then whatever is left of its process group), then the
 * explorer, the Hub stand-in, the authorization server and the canister, then the secrets file.
 * @param {import('./lib/process.mjs').ProcessGroup} wrangler
 * @param {Services} services
 * @param {() => void} removeSecrets
 * @returns {StopControl}
 */
function createStopControl(wrangler, { explorer, hub, authServer, canister }, removeSecrets) {
  /** @type {Promise<void> | undefined} */
  let stopping;
  /** @type {() => void} */
  let announceStop = () => {};
  /** @type {Promise<void>} */
  const requested = new Promise((resolve) => {
    announceStop = () => resolve(undefined);
  });
  const stopAll = () => {
    stopping ??= (async () => {
      await stopGroup(wrangler, STOP_GRACE_MS);
      await explorer.close();
      await hub.close();
      await authServer.close();
      await canister.close();
      removeSecrets();
    })();
    return stopping;
  };
  /** @param {string} reason */
  const request = (reason) => {
    if (stopping) return;
    process.stdout.write(`\nnpm start: ${reason}, stopping wrangler, the explorer, the Hub stand-in, the authorization server and the demo canister...\n`);
    announceStop();
    void stopAll();
  };
  return { requested, stopping: () => stopping, stopAll, request };
}

/**
 * Ctrl-C, SIGTERM and SIGHUP ask for a stop, and so does the loss of our parent: `kill <npm pid>`
 * reaches only npm's shell, which exits without passing the signal on, and an orphaned start
 * script must still take wrangler down instead of leaving it running.
 * @param {StopControl} stop
 */
function stopOnSignals(stop) {
  for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
    process.on(signal, () => stop.request(`${signal} received`));
  }
  const parentPid = process.ppid;
  setInterval(() => {
    if (process.ppid !== parentPid) stop.request('parent process exited');
  }, 500).unref();
}

/** @param {string} workerUrl */
async function workerAnswers(workerUrl) {
  try {
    return (await healthStatus(workerUrl, 2000)) === 200;
  } catch {
    return false; // Not listening yet.
  }
}

/**
 * Polls the Worker's /health until it answers 200 (true), or wrangler exits, a stop is requested
 * or READY_TIMEOUT_MS pass (false); prints a waiting line every PROGRESS_EVERY_MS.
 * @param {string} workerUrl
 * @param {import('./lib/process.mjs').ProcessGroup} wrangler
 * @param {StopControl} stop
 */
async function waitForWorker(workerUrl, wrangler, stop) {
  const startedWaiting = Date.now();
  const deadline = startedWaiting + READY_TIMEOUT_MS;
  let nextProgress = startedWaiting + PROGRESS_EVERY_MS;
  process.stdout.write(`Waiting for the Worker at ${workerUrl}/health (wrangler dev is bundling and starting workerd) ...\n`);
  while (!wrangler.done && !stop.stopping() && Date.now() < deadline) {
    if (Date.now() >= nextProgress) {
      process.stdout.write(`  still waiting for ${workerUrl}/health (${Math.round((Date.now() - startedWaiting) / 1000)}s of ${READY_TIMEOUT_MS / 1000}s) ...\n`);
      nextProgress += PROGRESS_EVERY_MS;
    }
    if (await workerAnswers(workerUrl)) return true;
    await sleep(250);
  }
  return false;
}

/**
 * Says why the Worker never answered, stops everything; exit code 1.
 * @param {string} workerUrl
 * @param {import('./lib/process.mjs').ProcessGroup} wrangler
 * @param {StopControl} stop
 */
async function failNotReady(workerUrl, wrangler, stop) {
  const code = wrangler.done ? await wrangler.exited : undefined;
  fail(
    wrangler.done
      ? `wrangler dev exited (code ${code ?? 'by signal'}) before the Worker answered ${workerUrl}/health; see its output above.`
      : `the Worker did not answer ${workerUrl}/health with 200 within ${READY_TIMEOUT_MS / 1000}s.`,
  );
  await stop.stopAll();
  return 1;
}

/**
 * The banner's input once everything runs.
 * @param {StartOptions} options
 * @param {Services} services
 * @returns {BannerInput}
 */
function bannerInput(options, { canister, explorer, authServer, hub, token, memberToken, memberFolder, notePaths }) {
  return {
    token,
    memberToken,
    memberFolder,
    hubUrl: hub.contextUrl,
    workerUrl: options.workerUrl,
    canisterUrl: canister.url,
    explorerUrl: explorer.url,
    authServerUrl: authServer.issuer,
    autoApprove: options.autoApprove,
    vaultLabel: options.vaultLabel,
    notePaths: canister.listNotes(),
    exampleNote: exampleNoteOf(notePaths),
    demoVault: !options.customVault && !options.ownStore,
    env: options.env,
    ownStore: options.ownStore,
  };
}

/**
 * Runs until a stop is requested (exit code 0) or wrangler exits by itself (1), then stops everything.
 * @param {import('./lib/process.mjs').ProcessGroup} wrangler
 * @param {StopControl} stop
 */
async function runUntilStopped(wrangler, stop) {
  const outcome = await Promise.race([
    stop.requested.then(() => /** @type {const} */ ('stop-requested')),
    wrangler.exited.then(() => /** @type {const} */ ('wrangler-exited')),
  ]);
  if (outcome === 'wrangler-exited' && !stop.stopping()) {
    const code = await wrangler.exited;
    fail(`wrangler dev exited unexpectedly (code ${code ?? 'by signal'}); stopping the explorer, the Hub stand-in, the authorization server and the demo canister.`);
    await stop.stopAll();
    return 1;
  }
  await stop.stopAll();
  process.stdout.write('npm start: stopped.\n');
  return 0;
}

/** @param {string[]} argv */
async function main(argv) {
  const options = optionsOrExitCode(argv);
  if (typeof options === 'number') return options;
  if (!(await preflight(options))) return 1;
  const services = await startServices(options);
  if (services === null) return 1;
  const secrets = writeSecretsFile();
  const wrangler = startWrangler(options, services, secrets.envFile);
  // Last resort on any exit path: never leave wrangler/workerd or the secrets file behind.
  process.on('exit', () => {
    if (wrangler.pid !== undefined) signalGroup(wrangler.pid, 'SIGKILL');
    secrets.remove();
  });
  const stop = createStopControl(wrangler, services, secrets.remove);
  stopOnSignals(stop);
  const ready = await waitForWorker(options.workerUrl, wrangler, stop);
  const stopping = stop.stopping();
  if (stopping) {
    await stopping;
    process.stdout.write('npm start: stopped.\n');
    return 0;
  }
  if (!ready) return failNotReady(options.workerUrl, wrangler, stop);
  process.stdout.write(usageBanner(bannerInput(options, services)));
  return runUntilStopped(wrangler, stop);
}

// Explicit exit: idle keep-alive sockets of fetch() must not hold the process open after shutdown.
process.exit(await main(process.argv.slice(2)));
