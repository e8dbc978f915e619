#!/usr/bin/env node
// @ts-check
/**
 * `npm run smoke`: checks a running Knowtation Edge Worker end to end, as an operator would after a
 * deploy. Every public route is called once (health, protected-resource metadata, the four REST
 * routes, MCP initialize / tools/list / tools/call for the four tools) plus two refusals (no
 * token; a traversal path). Each check prints one `PASS <check>` or `FAIL <check>: <reason>` line
 * on stdout, then one summary line; the exit code is 1 when any check failed, 2 on a usage error.
 * The token is never printed.
 *
 *   npm run smoke                                             # the local `npm start`
 *   npm run smoke -- --base https://edge.example.com --token "$TOKEN" --path notes/a.md --vault work
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEMO_USER, DEV_SESSION_SECRET, WORKER_PORT } from './dev-config.mjs';
import { mintToken } from './token.mjs';
import { parseOptions } from './cli-options.mjs';

export const DEFAULT_BASE = `http://127.0.0.1:${WORKER_PORT}`;
/** A demo-vault note with headings, a project and tags (demo/vault/projects/Aurora/roadmap.md). */
export const DEFAULT_PATH = 'projects/Aurora/roadmap.md';
const DEFAULT_TIMEOUT_MS = 15_000;
const MCP_PROTOCOL_VERSION = '2025-06-18';
const MCP_ACCEPT = 'application/json, text/event-stream';
/** Longest excerpt of a response body quoted in a FAIL line. */
const MAX_EXCERPT_CHARS = 200;
/** Traversal probe; its marker must never come back in the refusal. */
const TRAVERSAL_MARKER = 'smoke-traversal-probe';
const TRAVERSAL_PATH = `../${TRAVERSAL_MARKER}.md`;

/** The four contracts: REST route, MCP tool and payload schema id, in one table. */
export const CONTRACTS = [
  { route: 'note-outline', tool: 'get_note_outline', schema: 'knowtation.note_outline/v1' },
  { route: 'document-tree', tool: 'get_document_tree', schema: 'knowtation.document_tree/v0' },
  { route: 'metadata-facets', tool: 'get_metadata_facets', schema: 'knowtation.metadata_facets/v0' },
  { route: 'section-source', tool: 'get_section_source', schema: 'knowtation.section_source/v0' },
];

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
  const values = parseOptions(
    argv,
    {
      base: { type: 'string' },
      token: { type: 'string' },
      path: { type: 'string' },
      vault: { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    UsageError,
  );
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

  const token =
    values.token ??
    (await mintToken({ sub: DEMO_USER, role: 'viewer', type: 'session', ttlSeconds: 600, secret: DEV_SESSION_SECRET }));
  return {
    help: false,
    options: { base: baseUrl.href.replace(/\/+$/, ''), token, path, vault: values.vault, timeoutMs },
  };
}

/**
 * One HTTP exchange, its body read as text and parsed as JSON when possible.
 * @typedef {{ status: number, headers: Headers, text: string, json: unknown }} Exchange
 */

/**
 * Runs every check against a Worker; prints one line per check plus the summary through `write`.
 * @param {SmokeOptions} options
 * @param {(line: string) => void} write
 * @returns {Promise<{ passed: number, failed: number }>}
 */
export async function runSmoke(options, write) {
  const { base, token, path, vault, timeoutMs } = options;
  const origin = new URL(base).origin;
  /** @type {Record<string, string>} */
  const vaultHeader = vault === undefined ? {} : { 'X-Vault-Id': vault };
  const auth = { Authorization: `Bearer ${token}` };
  let passed = 0;
  let failed = 0;

  /**
   * @param {string} name
   * @param {() => Promise<void>} body
   */
  async function check(name, body) {
    try {
      await body();
      passed += 1;
      write(`PASS ${name}`);
    } catch (error) {
      failed += 1;
      let reason;
      if (error instanceof CheckFailure) reason = error.message;
      else if (error instanceof Error && error.name === 'TimeoutError') reason = `no answer within ${timeoutMs} ms`;
      else if (error instanceof Error) reason = `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}`;
      else reason = String(error);
      write(`FAIL ${name}: ${reason}`);
    }
  }

  /**
   * @param {string} pathAndQuery
   * @param {RequestInit} [init]
   * @returns {Promise<Exchange>}
   */
  async function call(pathAndQuery, init = {}) {
    const response = await fetch(`${base}${pathAndQuery}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
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
   * @param {Record<string, any>} payload
   * @param {string} schema
   */
  function expectPayload(payload, schema) {
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

  await check('GET /health', async () => {
    const body = expectJson(await call('/health'), 200);
    expect(body.ok === true, `expected {"ok":true}, got ${JSON.stringify(body)}`);
  });

  for (const suffix of ['', '/mcp']) {
    await check(`GET /.well-known/oauth-protected-resource${suffix}`, async () => {
      const body = expectJson(await call(`/.well-known/oauth-protected-resource${suffix}`), 200);
      expect(body.resource === `${origin}${suffix}`, `expected resource ${origin}${suffix}, got ${JSON.stringify(body.resource)}`);
      expect(
        Array.isArray(body.authorization_servers) && body.authorization_servers.length > 0,
        'authorization_servers is missing: OAuth-only clients cannot discover where to sign in',
      );
      expect(Array.isArray(body.scopes_supported) && body.scopes_supported.includes('vault:read'), 'scopes_supported lacks vault:read');
      expect(
        Array.isArray(body.bearer_methods_supported) && body.bearer_methods_supported.includes('header'),
        'bearer_methods_supported lacks header',
      );
    });
  }

  /** REST payload per route, for the MCP parity checks. @type {Map<string, unknown>} */
  const restPayloads = new Map();
  const encodedPath = encodeURIComponent(path);
  for (const contract of CONTRACTS) {
    await check(`GET /api/v1/${contract.route}`, async () => {
      const payload = expectJson(
        await call(`/api/v1/${contract.route}?path=${encodedPath}`, { headers: { ...auth, ...vaultHeader } }),
        200,
      );
      expectPayload(payload, contract.schema);
      restPayloads.set(contract.route, payload);
    });
  }

  await check('REST without a token is refused (401 UNAUTHORIZED)', async () => {
    const exchange = await call(`/api/v1/note-outline?path=${encodedPath}`, { headers: vaultHeader });
    const body = expectJson(exchange, 401);
    expect(body.code === 'UNAUTHORIZED', `expected code UNAUTHORIZED, got ${JSON.stringify(body.code)}`);
    const challenge = exchange.headers.get('www-authenticate') ?? '';
    expect(/^Bearer\b/.test(challenge) && challenge.includes('resource_metadata='), `missing Bearer challenge, got '${challenge}'`);
  });

  await check('REST traversal path is refused (400 INVALID_PATH, no echo)', async () => {
    const exchange = await call(`/api/v1/note-outline?path=${encodeURIComponent(TRAVERSAL_PATH)}`, {
      headers: { ...auth, ...vaultHeader },
    });
    const body = expectJson(exchange, 400);
    expect(
      jsonEqual(body, { error: 'Invalid path', code: 'INVALID_PATH' }),
      `expected {"error":"Invalid path","code":"INVALID_PATH"}, got ${excerpt(exchange.text)}`,
    );
    expect(!exchange.text.includes(TRAVERSAL_MARKER), 'the refusal echoes the requested path');
  });

  /** @type {Record<string, string>} */
  const mcpHeaders = { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, ...auth, ...vaultHeader };
  let rpcId = 0;

  /**
   * One JSON-RPC request over Streamable HTTP; accepts a JSON or an SSE answer.
   * @param {string} method
   * @param {Record<string, unknown>} params
   * @returns {Promise<Record<string, any>>} the `result` member
   */
  async function rpc(method, params) {
    const id = ++rpcId;
    const exchange = await call('/mcp', { method: 'POST', headers: mcpHeaders, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
    expect(exchange.status === 200, `expected HTTP 200, got ${exchange.status} ${excerpt(exchange.text)}`);
    let message = exchange.json;
    if ((exchange.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      message = exchange.text
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => {
          try {
            return JSON.parse(line.slice(5));
          } catch {
            return undefined;
          }
        })
        .find((candidate) => candidate?.id === id);
    }
    const reply = /** @type {Record<string, any> | undefined} */ (message);
    expect(reply && reply.jsonrpc === '2.0' && reply.id === id, `not a JSON-RPC reply to id ${id}: ${excerpt(exchange.text)}`);
    expect(!reply.error, `JSON-RPC error ${JSON.stringify(reply.error)}`);
    expect(typeof reply.result === 'object' && reply.result !== null, 'JSON-RPC reply has no result');
    return reply.result;
  }

  await check('MCP initialize', async () => {
    const result = await rpc('initialize', {
      protocolVersion: MCP_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'knowtation-edge-smoke', version: '0.1.0' },
    });
    expect(result.serverInfo?.name === 'knowtation-hosted', `unexpected serverInfo ${JSON.stringify(result.serverInfo)}`);
    expect(result.protocolVersion === MCP_PROTOCOL_VERSION, `server chose protocol ${JSON.stringify(result.protocolVersion)}`);
    expect(result.capabilities?.tools, 'server does not offer tools');
    mcpHeaders['MCP-Protocol-Version'] = MCP_PROTOCOL_VERSION;
  });

  await check('MCP tools/list', async () => {
    const result = await rpc('tools/list', {});
    const names = Array.isArray(result.tools) ? result.tools.map((/** @type {any} */ tool) => tool.name).sort() : [];
    const expected = CONTRACTS.map((contract) => contract.tool).sort();
    expect(jsonEqual(names, expected), `expected tools ${expected.join(', ')}, got ${names.join(', ') || 'none'}`);
  });

  for (const contract of CONTRACTS) {
    await check(`MCP tools/call ${contract.tool}`, async () => {
      const result = await rpc('tools/call', { name: contract.tool, arguments: { path } });
      const first = Array.isArray(result.content) ? result.content[0] : undefined;
      expect(!result.isError, `tool error ${first?.text ?? JSON.stringify(result)}`);
      expect(first?.type === 'text' && typeof first.text === 'string', 'no text content');
      const payload = /** @type {Record<string, any>} */ (result.structuredContent);
      expect(typeof payload === 'object' && payload !== null, 'no structuredContent');
      expectPayload(payload, contract.schema);
      let textPayload;
      try {
        textPayload = JSON.parse(first.text);
      } catch {
        textPayload = undefined;
      }
      expect(jsonEqual(textPayload, payload), 'text content differs from structuredContent');
      const rest = restPayloads.get(contract.route);
      if (rest !== undefined) expect(jsonEqual(rest, payload), `differs from GET /api/v1/${contract.route}`);
    });
  }

  write(`${failed === 0 ? 'OK' : 'FAILED'}: ${passed} passed, ${failed} failed against ${base}`);
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

function isEntryPoint() {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

// Explicit exit: idle keep-alive sockets of fetch() must not hold the process open.
if (isEntryPoint()) process.exit(await main(process.argv.slice(2)));
