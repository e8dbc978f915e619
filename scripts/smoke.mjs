#!/usr/bin/env node
// @ts-check
/**
 * `npm run smoke`: checks a running Knowtation Edge Worker end to end, as an operator would after a
 * deploy. Every public route is called once (health, protected-resource metadata, each contract's
 * REST route, MCP initialize / tools/list / tools/call of each contract's tool) plus two refusals
 * (no token; a traversal path). Each check prints one `PASS <check>` or `FAIL <check>: <reason>` line
 * on stdout, then one summary line; the exit code is 1 when any check failed, 2 on a usage error.
 * The token is never printed.
 *
 *   npm run smoke                                             # the local `npm start`
 *   npm run smoke -- --base https://edge.example.com --token "$TOKEN" --path notes/a.md --vault work
 */
import { DEMO_USER, WORKER_PORT } from './dev-config.mjs';
import { mintViewerToken } from './token.mjs';
import { isEntryPoint, parseCommandLine } from './lib/cli.mjs';
import { fetchExchange, parseJson } from './lib/http.mjs';
import { CONTRACTS, MCP_ACCEPT, jsonRpcBody, restTarget, toolCallParams } from './lib/worker-api.ts';

export const DEFAULT_BASE = `http://127.0.0.1:${WORKER_PORT}`;
/** A demo-vault note with headings, a project and tags (demo/vault/projects/Aurora/roadmap.md). */
export const DEFAULT_PATH = 'projects/Aurora/roadmap.md';
const DEFAULT_TIMEOUT_MS = 15_000;
const MCP_PROTOCOL_VERSION = '2025-06-18';
/** Longest excerpt of a response body quoted in a FAIL line. */
const MAX_EXCERPT_CHARS = 200;
/** Traversal probe; its marker must never come back in the refusal. */
const TRAVERSAL_MARKER = 'smoke-traversal-probe';
const TRAVERSAL_PATH = `../${TRAVERSAL_MARKER}.md`;

const USAGE = `Usage: npm run smoke -- [options]

Calls every route of a Knowtation Edge Worker and prints PASS/FAIL per check.

Options:
  --base <url>       Worker base URL (default: ${DEFAULT_BASE}, the local npm start)
  --token <jwt>      bearer token (default: a viewer token for sub '${DEMO_USER}' signed with the dev secret)
  --path <path>      vault-relative note that exists (default: ${DEFAULT_PATH})
  --vault <id>       X-Vault-Id header (default: none, i.e. the vault 'default')
  --timeout <ms>     per-request timeout (default: ${DEFAULT_TIMEOUT_MS})
  -h, --help         show this help

Exit code: 0 all passed, 1 a check failed, 2 usage error.
`;

class UsageError extends Error {}

/** A failed expectation; its message is the reason printed after `FAIL <check>:`. */
class CheckFailure extends Error {}

/**
 * @param {unknown} condition
 * @param {string} reason
 * @returns {asserts condition}
 */
function expect(condition, reason) {
  if (!condition) throw new CheckFailure(reason);
}

/** @param {string} text */
function excerpt(text) {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_EXCERPT_CHARS ? `${flat.slice(0, MAX_EXCERPT_CHARS)}...` : flat;
}

/**
 * Structural equality for JSON values (key order ignored).
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
function jsonEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  const aRecord = /** @type {Record<string, unknown>} */ (a);
  const bRecord = /** @type {Record<string, unknown>} */ (b);
  const keys = Object.keys(aRecord);
  return keys.length === Object.keys(bRecord).length && keys.every((key) => key in bRecord && jsonEqual(aRecord[key], bRecord[key]));
}

/**
 * @typedef {object} SmokeOptions
 * @property {string} base base URL without a trailing slash
 * @property {string} token
 * @property {string} path
 * @property {string | undefined} vault
 * @property {number} timeoutMs
 */

/**
 * @param {string[]} argv
 * @returns {Promise<{ help: true } | { help: false, options: SmokeOptions }>}
 */
export async function parseSmokeArgs(argv) {
  const values = parseCommandLine(argv, { strings: ['base', 'token', 'path', 'vault', 'timeout'] }, UsageError);
  if (values.help) return { help: true };

  const baseText = values.base ?? DEFAULT_BASE;
  let baseUrl;
  try {
    baseUrl = new URL(baseText);
  } catch {
    throw new UsageError(`--base '${baseText}' is not a URL`);
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') throw new UsageError('--base must be an http(s) URL');
  if (baseUrl.search || baseUrl.hash) throw new UsageError('--base must not carry a query or fragment');

  const path = values.path ?? DEFAULT_PATH;
  if (path === '') throw new UsageError('--path must not be empty');
  const timeoutMs = values.timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout '${values.timeout}' must be a positive integer`);
  if (values.token !== undefined && values.token.trim() === '') throw new UsageError('--token must not be empty');

  const token = values.token ?? (await mintViewerToken(DEMO_USER, 600));
  return {
    help: false,
    options: { base: baseUrl.href.replace(/\/+$/, ''), token, path, vault: values.vault, timeoutMs },
  };
}

/**
 * @typedef {import('./lib/http.mjs').Exchange} Exchange
 * @typedef {import('../src/contracts/registry.ts').ContractSpec} ContractSpec
 *
 * @typedef {object} SmokeSession what the checks share
 * @property {SmokeOptions} options
 * @property {string} origin the base URL's origin
 * @property {Record<string, string>} auth the Authorization header
 * @property {Record<string, string>} vaultHeader X-Vault-Id, when one was given
 * @property {Map<string, unknown>} restPayloads REST payload per contract name, for the MCP parity checks
 * @property {Record<string, string>} mcpHeaders gains MCP-Protocol-Version after initialize
 * @property {number} rpcId the last JSON-RPC id sent
 *
 * @typedef {[name: string, run: (session: SmokeSession) => Promise<void>]} SmokeCheck
 */

/**
 * @param {SmokeSession} session
 * @param {string} pathAndQuery
 * @param {RequestInit} [init]
 * @returns {Promise<Exchange>}
 */
function call({ options }, pathAndQuery, init = {}) {
  return fetchExchange(`${options.base}${pathAndQuery}`, init, options.timeoutMs);
}

/**
 * @param {Exchange} exchange
 * @param {number} status
 * @returns {Record<string, any>}
 */
function expectJson(exchange, status) {
  expect(exchange.status === status, `expected HTTP ${status}, got ${exchange.status} ${excerpt(exchange.text)}`);
  expect(
    /^application\/json\b/.test(exchange.headers.get('content-type') ?? ''),
    `expected application/json, got ${exchange.headers.get('content-type')}`,
  );
  expect(typeof exchange.json === 'object' && exchange.json !== null, `body is not a JSON object: ${excerpt(exchange.text)}`);
  return /** @type {Record<string, any>} */ (exchange.json);
}

/**
 * A body-free payload of this schema for the note asked for.
 * @param {Record<string, any>} payload
 * @param {string} schema
 * @param {string} path
 */
function expectPayload(payload, schema, path) {
  expect(payload.schema === schema, `expected schema ${schema}, got ${JSON.stringify(payload.schema)}`);
  expect(payload.path === path, `expected path ${JSON.stringify(path)}, got ${JSON.stringify(payload.path)}`);
  expect(typeof payload.truncated === 'boolean', 'truncated is not a boolean');
  expect(!/"(body|snippet|content|text_body)"\s*:/.test(JSON.stringify(payload)), 'payload carries a body-like field');
  if (Array.isArray(payload.sections)) {
    expect(
      payload.sections.every((/** @type {any} */ section) => section.body_returned === false && section.snippet_returned === false),
      'a section claims body_returned or snippet_returned',
    );
  }
}

/**
 * The JSON-RPC message with this id in a JSON or an SSE answer.
 * @param {Exchange} exchange
 * @param {number} id
 * @returns {unknown}
 */
function rpcMessage(exchange, id) {
  if (!(exchange.headers.get('content-type') ?? '').startsWith('text/event-stream')) return exchange.json;
  return exchange.text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => /** @type {any} */ (parseJson(line.slice(5))))
    .find((candidate) => candidate?.id === id);
}

/**
 * One JSON-RPC request over Streamable HTTP; accepts a JSON or an SSE answer.
 * @param {SmokeSession} session
 * @param {string} method
 * @param {Record<string, unknown>} params
 * @returns {Promise<Record<string, any>>} the `result` member
 */
async function rpc(session, method, params) {
  const id = ++session.rpcId;
  const exchange = await call(session, '/mcp', { method: 'POST', headers: session.mcpHeaders, body: jsonRpcBody(id, method, params) });
  expect(exchange.status === 200, `expected HTTP 200, got ${exchange.status} ${excerpt(exchange.text)}`);
  const reply = /** @type {Record<string, any> | undefined} */ (rpcMessage(exchange, id));
  expect(reply && reply.jsonrpc === '2.0' && reply.id === id, `not a JSON-RPC reply to id ${id}: ${excerpt(exchange.text)}`);
  expect(!reply.error, `JSON-RPC error ${JSON.stringify(reply.error)}`);
  expect(typeof reply.result === 'object' && reply.result !== null, 'JSON-RPC reply has no result');
  return reply.result;
}

/** @param {SmokeSession} session */
async function checkHealth(session) {
  const body = expectJson(await call(session, '/health'), 200);
  expect(body.ok === true, `expected {"ok":true}, got ${JSON.stringify(body)}`);
}

/**
 * The protected-resource metadata of the origin ('') or of /mcp.
 * @param {string} suffix
 * @returns {(session: SmokeSession) => Promise<void>}
 */
const checkResourceMetadata = (suffix) => async (session) => {
  const body = expectJson(await call(session, `/.well-known/oauth-protected-resource${suffix}`), 200);
  const resource = `${session.origin}${suffix}`;
  expect(body.resource === resource, `expected resource ${resource}, got ${JSON.stringify(body.resource)}`);
  expect(
    Array.isArray(body.authorization_servers) && body.authorization_servers.length > 0,
    'authorization_servers is missing: OAuth-only clients cannot discover where to sign in',
  );
  expect(Array.isArray(body.scopes_supported) && body.scopes_supported.includes('vault:read'), 'scopes_supported lacks vault:read');
  expect(
    Array.isArray(body.bearer_methods_supported) && body.bearer_methods_supported.includes('header'),
    'bearer_methods_supported lacks header',
  );
};

/**
 * @param {ContractSpec} contract
 * @returns {(session: SmokeSession) => Promise<void>}
 */
const checkRestRoute = (contract) => async (session) => {
  const { auth, vaultHeader, options } = session;
  const payload = expectJson(await call(session, restTarget(contract, options.path), { headers: { ...auth, ...vaultHeader } }), 200);
  expectPayload(payload, contract.schema, options.path);
  session.restPayloads.set(contract.name, payload);
};

/** @param {SmokeSession} session */
async function checkNoToken(session) {
  const exchange = await call(session, restTarget('note_outline', session.options.path), { headers: session.vaultHeader });
  const body = expectJson(exchange, 401);
  expect(body.code === 'UNAUTHORIZED', `expected code UNAUTHORIZED, got ${JSON.stringify(body.code)}`);
  const challenge = exchange.headers.get('www-authenticate') ?? '';
  expect(/^Bearer\b/.test(challenge) && challenge.includes('resource_metadata='), `missing Bearer challenge, got '${challenge}'`);
}

/** @param {SmokeSession} session */
async function checkTraversal(session) {
  const exchange = await call(session, restTarget('note_outline', TRAVERSAL_PATH), { headers: { ...session.auth, ...session.vaultHeader } });
  const body = expectJson(exchange, 400);
  expect(
    jsonEqual(body, { error: 'Invalid path', code: 'INVALID_PATH' }),
    `expected {"error":"Invalid path","code":"INVALID_PATH"}, got ${excerpt(exchange.text)}`,
  );
  expect(!exchange.text.includes(TRAVERSAL_MARKER), 'the refusal echoes the requested path');
}

/** @param {SmokeSession} session */
async function checkInitialize(session) {
  const result = await rpc(session, 'initialize', {
    protocolVersion: MCP_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'knowtation-edge-smoke', version: '0.1.0' },
  });
  expect(result.serverInfo?.name === 'knowtation-hosted', `unexpected serverInfo ${JSON.stringify(result.serverInfo)}`);
  expect(result.protocolVersion === MCP_PROTOCOL_VERSION, `server chose protocol ${JSON.stringify(result.protocolVersion)}`);
  expect(result.capabilities?.tools, 'server does not offer tools');
  session.mcpHeaders['MCP-Protocol-Version'] = MCP_PROTOCOL_VERSION;
}

/** @param {SmokeSession} session */
async function checkToolsList(session) {
  const result = await rpc(session, 'tools/list', {});
  const names = Array.isArray(result.tools) ? result.tools.map((/** @type {any} */ tool) => tool.name).sort() : [];
  const expected = CONTRACTS.map((contract) => contract.tool).sort();
  expect(jsonEqual(names, expected), `expected tools ${expected.join(', ')}, got ${names.join(', ') || 'none'}`);
}

/**
 * @param {ContractSpec} contract
 * @returns {(session: SmokeSession) => Promise<void>}
 */
const checkToolCall = (contract) => async (session) => {
  const result = await rpc(session, 'tools/call', toolCallParams(contract, session.options.path));
  const first = Array.isArray(result.content) ? result.content[0] : undefined;
  expect(!result.isError, `tool error ${first?.text ?? JSON.stringify(result)}`);
  expect(first?.type === 'text' && typeof first.text === 'string', 'no text content');
  const payload = /** @type {Record<string, any>} */ (result.structuredContent);
  expect(typeof payload === 'object' && payload !== null, 'no structuredContent');
  expectPayload(payload, contract.schema, session.options.path);
  expect(jsonEqual(parseJson(first.text), payload), 'text content differs from structuredContent');
  const rest = session.restPayloads.get(contract.name);
  if (rest !== undefined) expect(jsonEqual(rest, payload), `differs from GET ${contract.route}`);
};

/** Every check, in the order they run (later ones use what earlier ones learn). @type {SmokeCheck[]} */
const CHECKS = [
  ['GET /health', checkHealth],
  ...['', '/mcp'].map((suffix) => /** @type {SmokeCheck} */ ([`GET /.well-known/oauth-protected-resource${suffix}`, checkResourceMetadata(suffix)])),
  ...CONTRACTS.map((contract) => /** @type {SmokeCheck} */ ([`GET ${contract.route}`, checkRestRoute(contract)])),
  ['REST without a token is refused (401 UNAUTHORIZED)', checkNoToken],
  ['REST traversal path is refused (400 INVALID_PATH, no echo)', checkTraversal],
  ['MCP initialize', checkInitialize],
  ['MCP tools/list', checkToolsList],
  ...CONTRACTS.map((contract) => /** @type {SmokeCheck} */ ([`MCP tools/call ${contract.tool}`, checkToolCall(contract)])),
];

/**
 * The reason printed after `FAIL <check>:`.
 * @param {unknown} error
 * @param {number} timeoutMs
 */
function failureReason(error, timeoutMs) {
  if (error instanceof CheckFailure) return error.message;
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (error instanceof Error) return `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}`;
  return String(error);
}

/**
 * @param {SmokeOptions} options
 * @returns {SmokeSession}
 */
function openSession(options) {
  const auth = { Authorization: `Bearer ${options.token}` };
  /** @type {Record<string, string>} */
  const vaultHeader = options.vault === undefined ? {} : { 'X-Vault-Id': options.vault };
  return {
    options,
    origin: new URL(options.base).origin,
    auth,
    vaultHeader,
    restPayloads: new Map(),
    mcpHeaders: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, ...auth, ...vaultHeader },
    rpcId: 0,
  };
}

/**
 * Runs every check against a Worker; prints one line per check plus the summary through `write`.
 * @param {SmokeOptions} options
 * @param {(line: string) => void} write
 * @returns {Promise<{ passed: number, failed: number }>}
 */
export async function runSmoke(options, write) {
  const session = openSession(options);
  let passed = 0;
  let failed = 0;
  for (const [name, run] of CHECKS) {
    try {
      await run(session);
      passed += 1;
      write(`PASS ${name}`);
    } catch (error) {
      failed += 1;
      write(`FAIL ${name}: ${failureReason(error, options.timeoutMs)}`);
    }
  }
  write(`${failed === 0 ? 'OK' : 'FAILED'}: ${passed} passed, ${failed} failed against ${options.base}`);
  return { passed, failed };
}

/** @param {string[]} argv */
async function main(argv) {
  let parsed;
  try {
    parsed = await parseSmokeArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`smoke: ${error.message}\nRun with --help for usage.\n`);
      return 2;
    }
    throw error;
  }
  if (parsed.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const { options } = parsed;
  process.stderr.write(
    `smoke: ${options.base}, note ${JSON.stringify(options.path)}${options.vault === undefined ? '' : `, vault ${JSON.stringify(options.vault)}`}\n`,
  );
  const { failed } = await runSmoke(options, (line) => process.stdout.write(`${line}\n`));
  return failed === 0 ? 0 : 1;
}

// Explicit exit: idle keep-alive sockets of fetch() must not hold the process open.
if (isEntryPoint(import.meta.url)) process.exit(await main(process.argv.slice(2)));
