/**
 * Per-user rate limit with wrangler.toml's own
 * RATE_LIMITER binding (60 requests per 60 s) under workerd. The count is
 * per person (the token's subject), shared by REST and MCP, taken after
 * authentication and before any canister read: a refused request reaches
 * neither the canister nor the protocol layer. Window handling:
 * test/support/worker/budget.ts; the gate's order: gate-order.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import {
  HUB_ORIGIN,
  MCP_HEADERS,
  REST_ROUTES,
  TOOLS,
  callWorker,
  mintToken,
  restGet,
  testEnv,
} from '../support/worker/harness';
import { PROTOCOL_LIMIT, READ_LIMIT as LIMIT, inOneWindow as inOneWindowFor, realLimiter } from '../support/worker/budget';

const PATH = 'limits/note.md';
const REST_REFUSAL = JSON.stringify({ error: 'Rate limit exceeded', code: 'RATE_LIMITED' });
/** The MCP refusal repeats the request's id and says when to retry in the error's data as well as in Retry-After. */
const rpcRefusal = (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: 'Rate limit exceeded', data: { retryAfterSeconds: 60 } }, id });

// Hundreds of request log lines: kept out of the test output.
beforeEach(() => void vi.spyOn(console, 'log').mockImplementation(() => undefined));
afterEach(() => vi.restoreAllMocks());

async function seededUser(prefix: string): Promise<string> {
  const user = uniqueUser(prefix);
  await seedNotes(user, 'default', [{ path: PATH, frontmatter: { title: 'Limits' }, body: '# Limits\n\ntext\n' }]);
  return user;
}

function mcpToolCall(token: string, id: number): Promise<Response> {
  return callWorker('/mcp', {
    ...realLimiter(),
    method: 'POST',
    token,
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: TOOLS.note_outline, arguments: { path: PATH } } }),
  });
}

/** Runs `burst` for a fresh seeded user; repeats once if a window boundary fell inside it. */
const inOneWindow = <T>(prefix: string, burst: (user: string) => Promise<T>): Promise<T> => inOneWindowFor(() => seededUser(prefix), burst);

describe('per-user rate limit: REST', () => {
  it(`serves ${LIMIT} requests per user and window, then 429 RATE_LIMITED with Retry-After and no canister read`, async () => {
    const outcome = await inOneWindow('rl-rest', async (user) => {
      const token = await mintToken({ sub: user });
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT; i += 1) {
        const res = await restGet(REST_ROUTES.note_outline, PATH, { token, ...realLimiter() });
        statuses.push(res.status);
        await res.body?.cancel();
      }
      // From the Hub's origin: a browser client must be able to read Retry-After.
      const refused = await restGet(REST_ROUTES.section_source, PATH, { token, headers: { Origin: HUB_ORIGIN }, ...realLimiter() });
      return {
        user,
        statuses,
        refused: { status: refused.status, retryAfter: refused.headers.get('Retry-After'), body: await refused.text() },
        exposed: refused.headers.get('Access-Control-Expose-Headers'),
      };
    });
    expect(outcome.statuses).toEqual(Array(LIMIT).fill(200));
    expect(outcome.refused).toEqual({ status: 429, retryAfter: '60', body: REST_REFUSAL });
    expect(outcome.exposed?.split(/,\s*/)).toContain('Retry-After');
    // Exactly one canister read per served request; the refused one made none.
    expect(await canisterRequests(outcome.user)).toHaveLength(LIMIT);
  });
});

describe('per-user rate limit: MCP', () => {
  it('answers HTTP 429 with the JSON-RPC error `Rate limit exceeded` and no canister read', async () => {
    const outcome = await inOneWindow('rl-mcp', async (user) => {
      const token = await mintToken({ sub: user });
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT; i += 1) {
        const res = await mcpToolCall(token, i + 1);
        statuses.push(res.status);
        await res.body?.cancel();
      }
      const refused = await mcpToolCall(token, LIMIT + 1);
      return { user, statuses, refused: { status: refused.status, retryAfter: refused.headers.get('Retry-After'), body: await refused.text() } };
    });
    expect(outcome.statuses).toEqual(Array(LIMIT).fill(200));
    expect(outcome.refused).toEqual({ status: 429, retryAfter: '60', body: rpcRefusal(LIMIT + 1) });
    expect(await canisterRequests(outcome.user)).toHaveLength(LIMIT);
  });
});

function mcpProtocolCall(token: string, id: number, method = 'tools/list'): Promise<Response> {
  return callWorker('/mcp', {
    ...realLimiter(),
    method: 'POST',
    token,
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id, method }),
  });
}

describe('per-user rate limit: protocol traffic has its own budget', () => {
  it('initialize, tools/list and ping spend none of the reads', async () => {
    const outcome = await inOneWindow('rl-protocol', async (user) => {
      const token = await mintToken({ sub: user });
      const protocol: number[] = [];
      for (let i = 0; i < 2 * LIMIT; i += 1) {
        const res = await mcpProtocolCall(token, i + 1, ['tools/list', 'ping', 'initialize'][i % 3]);
        protocol.push(res.status);
        await res.body?.cancel();
      }
      const reads: number[] = [];
      for (let i = 0; i < LIMIT; i += 1) {
        const res = await (i % 2 ? mcpToolCall(token, 1000 + i) : restGet(REST_ROUTES.note_outline, PATH, { token, ...realLimiter() }));
        reads.push(res.status);
        await res.body?.cancel();
      }
      const refused = await restGet(REST_ROUTES.note_outline, PATH, { token, ...realLimiter() });
      return { user, protocol, reads, refused: refused.status };
    });
    expect(outcome.protocol.every((status) => status === 200)).toBe(true);
    expect(outcome.reads).toEqual(Array(LIMIT).fill(200));
    expect(outcome.refused).toBe(429);
    expect(await canisterRequests(outcome.user)).toHaveLength(LIMIT);
  });

  it(`a looping client is stopped at ${PROTOCOL_LIMIT} protocol messages, with the wait in the JSON-RPC data; its reads stay`, async () => {
    const outcome = await inOneWindow('rl-protocol-loop', async (user) => {
      const token = await mintToken({ sub: user });
      const statuses: number[] = [];
      for (let i = 0; i < PROTOCOL_LIMIT; i += 1) {
        const res = await mcpProtocolCall(token, i + 1);
        statuses.push(res.status);
        await res.body?.cancel();
      }
      const refused = await mcpProtocolCall(token, PROTOCOL_LIMIT + 1);
      const read = await mcpToolCall(token, 5000);
      return {
        statuses,
        refused: { status: refused.status, retryAfter: refused.headers.get('Retry-After'), body: await refused.text() },
        read: read.status,
      };
    });
    expect(outcome.statuses).toEqual(Array(PROTOCOL_LIMIT).fill(200));
    expect(outcome.refused).toEqual({ status: 429, retryAfter: '60', body: rpcRefusal(PROTOCOL_LIMIT + 1) });
    expect(outcome.read).toBe(200);
  });
});

describe('per-user rate limit: the key', () => {
  it('is the person (the token\'s subject), shared by REST and MCP; a workspace member on the same canister user keeps a full budget', async () => {
    const outcome = await inOneWindow('rl-key', async (user) => {
      const own = await mintToken({ sub: user });
      // Another token of the same subject spends the same budget.
      const second = await mintToken({ sub: user, role: 'viewer' }, { expiresIn: '20m' });
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT / 2; i += 1) {
        const rest = await restGet(REST_ROUTES.document_tree, PATH, { token: own, ...realLimiter() });
        statuses.push(rest.status);
        await rest.body?.cancel();
        const mcp = await mcpToolCall(second, i + 1);
        statuses.push(mcp.status);
        await mcp.body?.cancel();
      }
      const refusedRest = await restGet(REST_ROUTES.note_outline, PATH, { token: second, ...realLimiter() });
      const refusedMcp = await mcpToolCall(own, 999);
      // A member of the same workspace reads the same canister partition, on a budget of their own.
      const member = await mintToken({ sub: uniqueUser('rl-member'), effective_canister_user_id: user });
      const memberRes = await restGet(REST_ROUTES.note_outline, PATH, { token: member, ...realLimiter() });
      return { user, statuses, refused: [refusedRest.status, refusedMcp.status], member: memberRes.status };
    });
    expect(outcome.statuses).toEqual(Array(LIMIT).fill(200));
    expect(outcome.refused).toEqual([429, 429]);
    expect(outcome.member).toBe(200);
    expect(await canisterRequests(outcome.user)).toHaveLength(LIMIT + 1);
  });

  it('does not count requests that fail authentication', async () => {
    const outcome = await inOneWindow('rl-unauth', async (user) => {
      const forged = await mintToken({ sub: user }, { secret: 'another-secret-that-is-long-enough-000001' });
      for (let i = 0; i < LIMIT + 5; i += 1) {
        const res = await restGet(REST_ROUTES.note_outline, PATH, { token: forged, ...realLimiter() });
        expect(res.status).toBe(401);
        await res.body?.cancel();
      }
      const res = await restGet(REST_ROUTES.note_outline, PATH, { token: await mintToken({ sub: user }), ...realLimiter() });
      return res.status;
    });
    expect(outcome).toBe(200);
  });
});

describe('per-user rate limit: without the binding', () => {
  it.each(['RATE_LIMITER', 'PROTOCOL_RATE_LIMITER'])('production refuses to serve without %s (503, the log line names it); no canister read', async (binding) => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const user = await seededUser('rl-none');
    const token = await mintToken({ sub: user });
    const rest = await restGet(REST_ROUTES.note_outline, PATH, { token, bindings: { [binding]: undefined } });
    expect(rest.status).toBe(503);
    const mcp = await mcpPostWithout(token, binding);
    expect(mcp.status).toBe(503);
    expect(lines.map((line) => JSON.parse(line).config)).toEqual([[binding], [binding]]);
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('a local run without it (bench, bare Miniflare) is served, unlimited', async () => {
    const user = await seededUser('rl-local');
    const token = await mintToken({ sub: user });
    for (let i = 0; i < LIMIT + 1; i += 1) {
      const res = await restGet(REST_ROUTES.note_outline, PATH, {
        token,
        env: testEnv({ ENVIRONMENT: 'local' }),
        bindings: { RATE_LIMITER: undefined, PROTOCOL_RATE_LIMITER: undefined },
      });
      expect(res.status).toBe(200);
      await res.body?.cancel();
    }
  });
});

function mcpPostWithout(token: string, binding: string): Promise<Response> {
  return callWorker('/mcp', {
    method: 'POST',
    token,
    headers: MCP_HEADERS,
    bindings: { [binding]: undefined },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}
