/**
 * A bench-only Worker (scripts/lib/bench-phases.ts builds it with wrangler from this entry; never
 * deployed): the phases of one warm REST read of src/, each run on its own over the bench's notes,
 * so that workerd's CPU around one request of it is the CPU of that phase alone. The production
 * Worker carries no timing code: this one calls the same functions with the same inputs.
 *
 *   GET /prepare            reads every note once (BENCH_NOTE_PATHS) and keeps what each phase needs
 *   GET /phase/<name>       runs <name> once per note, in note order; `none` runs an empty loop,
 *                           `handler` the Worker's whole fetch handler, `mcpHandler` the same
 *                           read as an MCP tools/call (2025-11-25), `healthHandler` the whole
 *                           handler on GET /health (entry, routing, log and headers around a route
 *                           that does nothing), `restRoute` the REST route's handler alone (no
 *                           entry, router, log or headers), `floorCanister` the floor Worker's canister GET
 *                           (fetch and json(), scripts/lib/bench-floor-worker.js)
 *
 * Both take the bench's bearer token, as a REST read does. workerd's clock stands still during
 * computation, so the bench reads the CPU from /proc around each request.
 */
import { authenticate, type Principal } from '../../src/auth/jwt';
import { contractsForRole } from '../../src/auth/acl';
import { protectedResource } from '../../src/auth/resource';
import { loadConfig, type Config } from '../../src/config';
import type { StructureColumns } from '@knowtation/note-structure';
import { decodeWireFrontmatter, MAX_NOTE_HEADINGS, type ContractPayload, type Frontmatter } from '../../src/contracts';
import { buildContract, contractNamed, linearAnalyzer } from '../../src/contracts/registry';
import { singlePathParam } from '../../src/http/query';
import { restRoute } from '../../src/http/rest';
import { finalizeResponse, payloadResponse } from '../../src/http/responses';
import { writeLogLine, type LogFacts } from '../../src/log';
import { takeRateLimit } from '../../src/rate-limit';
import { canisterNoteUrl, readNoteFromCanister } from '../../src/vault/canister';
import { admitVault, isInScope, isOutsideScopeUnread, normalizeVaultPath, requestedVault } from '../../src/vault/path';
import { jsonRpcBody, MCP_ACCEPT, restTarget, toolCallParams } from './worker-api';
import worker from '../../src/index';

const CONTRACT = contractNamed('note_outline');
const REST_ROUTE = restRoute(CONTRACT);

interface PreparedNote {
  path: string;
  /** The canister URL and headers of its read, as src/vault/canister.ts sends them. */
  canisterUrl: string;
  canisterHeaders: Headers;
  /** GET /health on the same origin, with the same token. */
  health: Request;
  /** The REST request that reads it (its URL and headers), as the bench client sends it. */
  request: Request;
  wireFrontmatter: unknown;
  frontmatter: Frontmatter;
  body: string;
  structure: StructureColumns;
  payload: ContractPayload;
  facts: LogFacts;
}

interface Prepared {
  config: Config;
  principal: Principal;
  authorization: string;
  vaultId: string;
  notes: PreparedNote[];
}

let prepared: Prepared | null = null;
/** The origin the phase requests are addressed to (ENVIRONMENT=local takes the request's own). */
const MCP_ORIGIN = 'http://127.0.0.1';

/** One phase on one note. */
type Phase = (note: PreparedNote, state: Prepared, env: object) => unknown;

/** The phases of one warm REST read, in the order the read runs them (src/gate.ts, src/read-note.ts, src/index.ts). */
export const PHASES: Record<string, Phase> = {
  none: () => undefined,
  entry: (note, state, env) => {
    const rid = crypto.randomUUID();
    Date.now();
    loadConfig(env);
    new URL(note.request.url);
    return finalizeResponse(new Response(null), note.request, state.config, rid);
  },
  authenticate: ({ request }, { config }) =>
    authenticate(request.headers.get('Authorization'), config, protectedResource(new URL(request.url), config, ''), Math.floor(Date.now() / 1000)),
  checks: async ({ request, frontmatter }, { config, principal }) => {
    const vault = requestedVault(principal, { header: request.headers.get('X-Vault-Id'), endpoint: null });
    if (vault.ok) admitVault(principal, vault.value);
    await takeRateLimit(config, principal, 'read');
    contractsForRole(principal.role).includes(CONTRACT);
    const path = normalizeVaultPath(singlePathParam(new URL(request.url)));
    if (!path.ok) throw new Error('a bench path was refused');
    isOutsideScopeUnread(principal, path.value);
    return isInScope(principal, path.value, frontmatter);
  },
  canister: async ({ path }, { config, principal, vaultId }) => {
    const answer = await readNoteFromCanister(config, principal, vaultId, path);
    if (!answer.result.ok) throw new Error('the canister did not answer a bench note');
    return decodeWireFrontmatter(answer.result.value.frontmatter);
  },
  analysis: ({ body }) => linearAnalyzer(body, MAX_NOTE_HEADINGS),
  build: ({ path, frontmatter, body, structure }) => buildContract(CONTRACT, path, frontmatter, body, { analyze: () => structure }),
  serialize: ({ payload }) => payloadResponse(payload).arrayBuffer(),
  log: ({ facts }) => writeLogLine('00000000-0000-4000-8000-000000000000', facts, Date.now()),
  // Not phases: the Worker's own fetch handler on the same read over REST and over MCP, in the same loop.
  handler: async ({ request }, _state, env) => (await worker.fetch(request, env as Record<string, unknown>)).arrayBuffer(),
  restRoute: async ({ request }, { config }) => {
    const handled = await REST_ROUTE({ request, url: new URL(request.url), config });
    return handled.response.arrayBuffer();
  },
  healthHandler: async ({ health }, _state, env) => (await worker.fetch(health, env as Record<string, unknown>)).arrayBuffer(),
  floorCanister: async ({ canisterUrl, canisterHeaders }) => (await fetch(canisterUrl, { headers: canisterHeaders })).json(),
  mcpHandler: async ({ path }, { authorization }, env) => {
    const call = new Request(`${MCP_ORIGIN}/mcp`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json', accept: MCP_ACCEPT, 'mcp-protocol-version': '2025-11-25' },
      body: jsonRpcBody(1, 'tools/call', toolCallParams(CONTRACT, path)),
    });
    return (await worker.fetch(call, env as Record<string, unknown>)).arrayBuffer();
  },
};

async function prepare(request: Request, env: Record<string, unknown>): Promise<Prepared> {
  const loaded = loadConfig(env);
  if (!loaded.ok) throw new Error('the bench configuration is invalid');
  const config = loaded.config;
  const authorization = request.headers.get('Authorization') ?? '';
  const origin = new URL(request.url).origin;
  const authentication = await authenticate(authorization, config, protectedResource(new URL(request.url), config, ''), Math.floor(Date.now() / 1000));
  if (!authentication.ok) throw new Error('the bench token was refused');
  const { principal } = authentication;
  const vault = requestedVault(principal, { header: null, endpoint: null });
  if (!vault.ok) throw new Error('no vault');
  const state: Prepared = { config, principal, authorization, vaultId: vault.value, notes: [] };
  for (const path of JSON.parse(String(env.BENCH_NOTE_PATHS)) as string[]) {
    const answer = await readNoteFromCanister(config, principal, vault.value, path);
    if (!answer.result.ok) throw new Error('the canister did not answer a bench note');
    const { frontmatter: wireFrontmatter, body } = answer.result.value;
    const frontmatter = decodeWireFrontmatter(wireFrontmatter);
    const payload = buildContract(CONTRACT, path, frontmatter, body);
    const headers = { authorization };
    state.notes.push({
      path,
      canisterUrl: canisterNoteUrl(config, path),
      canisterHeaders: new Headers({ Accept: 'application/json', 'X-Vault-Id': vault.value, 'X-User-Id': principal.canisterUserId, 'X-Actor-Id': principal.sub, 'X-Gateway-Auth': config.canisterAuthSecret ?? '' }),
      health: new Request(new URL('/health', origin), { headers }),
      request: new Request(new URL(restTarget(CONTRACT, path), origin), { headers }),
      wireFrontmatter,
      frontmatter,
      body,
      structure: linearAnalyzer(body, MAX_NOTE_HEADINGS),
      payload,
      facts: { surface: 'rest', op: CONTRACT.name, upstream: '2xx', sections: 'headings' in payload ? payload.headings.length : null, truncated: payload.truncated },
    });
  }
  // The build phase reuses each note's analysis: it must give the payload a full build gives.
  for (const note of state.notes) {
    const built = buildContract(CONTRACT, note.path, note.frontmatter, note.body, { analyze: () => note.structure });
    if (JSON.stringify(built) !== JSON.stringify(note.payload)) throw new Error('a kept analysis built another payload');
  }
  return state;
}

export default {
  async fetch(request: Request, env: Record<string, unknown>): Promise<Response> {
    const { pathname } = new URL(request.url);
    try {
      if (pathname === '/prepare') {
        prepared = await prepare(request, env);
        return Response.json({ notes: prepared.notes.length });
      }
      const phase = PHASES[pathname.slice('/phase/'.length)];
      if (!pathname.startsWith('/phase/') || phase === undefined || prepared === null) return new Response('not found', { status: 404 });
      for (const note of prepared.notes) await phase(note, prepared, env);
      return new Response('ok');
    } catch (error) {
      return new Response(error instanceof Error ? error.message : 'failed', { status: 500 });
    }
  },
};
