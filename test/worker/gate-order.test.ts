// The one request gate (src/gate.ts) runs the same steps in the same order on every surface:
// configuration, screen, authenticate, vault, ask (what the request asks: the route and path, or
// the MCP message), hosted context, admission, budget. A request refused at any step spends no budget: past the limit of refusals, the user
// still has every read. And where two steps would refuse, the earlier one answers. Against
// wrangler.toml's own limits (test/support/worker/budget.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { MCP_HEADERS, REST_ROUTES, TOOLS, callWorker, mintToken, restGet, testEnv, type CallOptions } from '../support/worker/harness';
import { PROTOCOL_LIMIT, READ_LIMIT, inOneWindow, realLimiter } from '../support/worker/budget';

const PATH = 'gate/note.md';
/** More refusals than the read budget holds: if any of them spent it, the read after them would be 429. */
const REFUSALS = READ_LIMIT + 5;

beforeEach(() => void vi.spyOn(console, 'log').mockImplementation(() => undefined));
afterEach(() => vi.restoreAllMocks());

async function seededUser(): Promise<string> {
  const user = uniqueUser('gate');
  await seedNotes(user, 'default', [{ path: PATH, frontmatter: { title: 'Gate' }, body: '# Gate\n\ntext\n' }]);
  await seedNotes(user, 'other', [{ path: PATH, frontmatter: { title: 'Other' }, body: '# Other\n' }]);
  return user;
}

const toolCall = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: TOOLS.note_outline, arguments: { path: PATH } } });

function mcp(endpoint: string, token: string | null, body: string, options: CallOptions = {}): Promise<Response> {
  return callWorker(endpoint, { ...realLimiter(), method: 'POST', token, headers: { ...MCP_HEADERS, ...options.headers }, body, env: options.env });
}

async function statusOf(response: Promise<Response>): Promise<number> {
  const res = await response;
  await res.body?.cancel();
  return res.status;
}

/** Sends `refusals` requests that must all be refused with `status`, then one read that must be served. */
async function refusalsSpendNothing(refuse: (token: string, i: number) => Promise<Response>, status: number, read: (token: string) => Promise<Response>) {
  return inOneWindow(seededUser, async (user) => {
    const token = await mintToken({ sub: user, allowed_vault_ids: ['default'] });
    const refused = new Set<number>();
    for (let i = 0; i < REFUSALS; i += 1) refused.add(await statusOf(refuse(token, i)));
    return { user, refused: [...refused], read: await statusOf(read(token)) };
  });
}

const restRead = (token: string) => restGet(REST_ROUTES.note_outline, PATH, { token, ...realLimiter() });

describe('a refusal spends no read budget, on every surface', () => {
  it('REST: a vault outside the allowlist is 403 before the budget', async () => {
    const outcome = await refusalsSpendNothing(
      (token) => restGet(REST_ROUTES.note_outline, PATH, { token, headers: { 'X-Vault-Id': 'other' }, ...realLimiter() }),
      403,
      restRead,
    );
    expect(outcome.refused).toEqual([403]);
    expect(outcome.read).toBe(200);
    expect(await canisterRequests(outcome.user)).toHaveLength(1);
  });

  it('POST /mcp: a vault outside the allowlist (X-Vault-Id) is 403 before the budget', async () => {
    const outcome = await refusalsSpendNothing(
      (token, i) => mcp('/mcp', token, toolCall(i), { headers: { 'X-Vault-Id': 'other' } }),
      403,
      (token) => mcp('/mcp', token, toolCall(999)),
    );
    expect(outcome.refused).toEqual([403]);
    expect(outcome.read).toBe(200);
  });

  it('POST /mcp/vaults/<id>: an endpoint vault outside the allowlist is 403 before the budget', async () => {
    const outcome = await refusalsSpendNothing(
      (token, i) => mcp('/mcp/vaults/other', token, toolCall(i)),
      403,
      (token) => mcp('/mcp/vaults/default', token, toolCall(999)),
    );
    expect(outcome.refused).toEqual([403]);
    expect(outcome.read).toBe(200);
  });

  it('POST /mcp: a message that cannot be read (not JSON, a batch) is refused before the budget', async () => {
    const outcome = await refusalsSpendNothing(
      (token, i) => mcp('/mcp', token, i % 2 ? '{"jsonrpc":' : `[${toolCall(i)}]`),
      400,
      (token) => mcp('/mcp', token, toolCall(999)),
    );
    expect(outcome.refused).toEqual([400]);
    expect(outcome.read).toBe(200);
  });

  it('the Scooling bridge spends a budget of its own: its callers stop at the read limit, the user it reads as does not', async () => {
    const outcome = await inOneWindow(seededUser, async (user) => {
      const bridgeToken = await mintToken({ sub: user }, { expiresIn: '1h' });
      const env = testEnv({ SCOOLING_SMOKE_ENABLED: 'true', ENVIRONMENT: 'staging', SCOOLING_SMOKE_TOKEN: bridgeToken });
      const smoke = () => callWorker(`/scooling/note-outline/smoke?path=${encodeURIComponent(PATH)}`, { env, ...realLimiter() });
      const served = new Set<number>();
      for (let i = 0; i < READ_LIMIT; i += 1) served.add(await statusOf(smoke()));
      const spent = await smoke();
      return {
        served: [...served],
        spent: { status: spent.status, retryAfter: spent.headers.get('Retry-After'), challenge: spent.headers.get('WWW-Authenticate') },
        user: await statusOf(restGet(REST_ROUTES.note_outline, PATH, { token: await mintToken({ sub: user }), ...realLimiter() })),
      };
    });
    expect(outcome.served).toEqual([200]);
    expect(outcome.spent).toEqual({ status: 429, retryAfter: '60', challenge: null });
    expect(outcome.user).toBe(200);
  });
});

describe('a refusal of the message is its own 4xx whatever the budget, and spends nothing', () => {
  // Every check that can refuse a message without its budget runs in the gate's ask step (or screen):
  // with both budgets spent, each answers its own status, one log line each, no canister read.
  const modern = { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': TOOLS.note_outline };
  const meta = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } };
  const call = (params: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params, ...extra });
  const outline = { name: TOOLS.note_outline, arguments: { path: PATH } };
  const KINDS: Array<[string, string, Record<string, string>, number]> = [
    ['not JSON', '{"jsonrpc":', {}, 400],
    ['a batch', `[${call(outline)}]`, {}, 400],
    ['"jsonrpc": "1.0"', call(outline, { jsonrpc: '1.0' }), {}, 400],
    ['id 1.5', call(outline, { id: 1.5 }), {}, 400],
    ['positional params', call([TOOLS.note_outline, { path: PATH }]), {}, 400],
    ['tools/call params without a name', call({ arguments: { path: PATH } }), {}, 400],
    ['tools/call with a name that is not a string', call({ name: 42, arguments: { path: PATH } }), {}, 400],
    ['a revision header no era serves', call(outline), { 'MCP-Protocol-Version': '1999-01-01' }, 400],
    ['a 2026-07-28 request without Mcp-Name', call({ ...outline, ...meta }), { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call' }, 400],
    ['a 2026-07-28 request whose Mcp-Method disagrees', call({ ...outline, ...meta }), { ...modern, 'Mcp-Method': 'tools/list' }, 400],
    ['a malformed X-Vault-Id', call(outline), { 'X-Vault-Id': 'not a vault' }, 400],
    ['a forbidden Origin', call(outline), { Origin: 'https://evil.example' }, 403],
    ['a body over 1 MiB', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024) } }), {}, 413],
  ];

  it('MCP: every kind, past the read and the protocol budgets', async () => {
    const outcome = await inOneWindow(seededUser, async (user) => {
      const token = await mintToken({ sub: user });
      for (let i = 0; i < READ_LIMIT; i += 1) await statusOf(mcp('/mcp', token, toolCall(i)));
      for (let i = 0; i < PROTOCOL_LIMIT; i += 1) await statusOf(mcp('/mcp', token, JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' })));
      const readsBefore = (await canisterRequests(user)).length;
      const lines: string[] = [];
      vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
      const statuses: number[] = [];
      for (const [, body, headers] of KINDS) statuses.push(await statusOf(mcp('/mcp', token, body, { headers })));
      const spent = [await statusOf(mcp('/mcp', token, toolCall(1000))), await statusOf(mcp('/mcp', token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })))];
      return { statuses, spent, lines: lines.length, reads: (await canisterRequests(user)).length - readsBefore };
    });
    expect(outcome.statuses).toEqual(KINDS.map(([, , , status]) => status));
    // The budgets really were spent: a good message of either kind is 429.
    expect(outcome.spent).toEqual([429, 429]);
    expect(outcome.lines).toBe(KINDS.length + 2);
    expect(outcome.reads).toBe(0);
  });

  it('REST: an invalid path and a malformed vault, past the read budget', async () => {
    const outcome = await inOneWindow(seededUser, async (user) => {
      const token = await mintToken({ sub: user });
      for (let i = 0; i < READ_LIMIT; i += 1) await statusOf(restRead(token));
      return {
        path: await statusOf(restGet(REST_ROUTES.note_outline, '../x.md', { token, ...realLimiter() })),
        repeated: await statusOf(callWorker(`${REST_ROUTES.note_outline}?path=a.md&path=b.md`, { token, ...realLimiter() })),
        vault: await statusOf(restGet(REST_ROUTES.note_outline, PATH, { token, headers: { 'X-Vault-Id': '../x' }, ...realLimiter() })),
        spent: await statusOf(restRead(token)),
      };
    });
    expect(outcome).toEqual({ path: 400, repeated: 400, vault: 400, spent: 429 });
  });
});

describe('where two steps would refuse, the earlier one answers', () => {
  it('authenticate before vault: a bad token on a forbidden vault is 401', async () => {
    const user = await seededUser();
    const forged = await mintToken({ sub: user, allowed_vault_ids: ['default'] }, { secret: 'another-secret-that-is-long-enough-000001' });
    expect(await statusOf(restGet(REST_ROUTES.note_outline, PATH, { token: forged, headers: { 'X-Vault-Id': 'other' } }))).toBe(401);
    expect(await statusOf(mcp('/mcp/vaults/other', forged, toolCall(1)))).toBe(401);
  });

  it('vault before ask: a malformed vault with an unreadable message is the vault\'s 400', async () => {
    const token = await mintToken({ sub: await seededUser(), allowed_vault_ids: ['default'] });
    const res = await mcp('/mcp', token, '{not json', { headers: { 'X-Vault-Id': 'not a vault' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Invalid vault');
  });

  it('ask before admission: a forbidden vault with an unreadable message is the message\'s 400 or 413', async () => {
    // Admission may need the Hub's hosted context, which is never asked for a message that is refused anyway.
    const token = await mintToken({ sub: await seededUser(), allowed_vault_ids: ['default'] });
    expect(await statusOf(mcp('/mcp/vaults/other', token, '{not json'))).toBe(400);
    expect(await statusOf(mcp('/mcp', token, 'x'.repeat(2 * 1024 * 1024), { headers: { 'X-Vault-Id': 'other' } }))).toBe(413);
    expect(await statusOf(restGet(REST_ROUTES.note_outline, '../x.md', { token, headers: { 'X-Vault-Id': 'other' } }))).toBe(400);
  });

  it('ask before budget: with the budget spent, a bad message is its own 400 and a good one 429', async () => {
    const outcome = await inOneWindow(seededUser, async (user) => {
      const token = await mintToken({ sub: user });
      for (let i = 0; i < PROTOCOL_LIMIT; i += 1) await statusOf(mcp('/mcp', token, JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' })));
      return {
        unreadable: await statusOf(mcp('/mcp', token, '{not json')),
        wrongRevision: await statusOf(mcp('/mcp', token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), { headers: { 'MCP-Protocol-Version': '1999-01-01' } })),
        good: await statusOf(mcp('/mcp', token, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }))),
      };
    });
    expect(outcome).toEqual({ unreadable: 400, wrongRevision: 400, good: 429 });
  });

  it('configuration before everything: a misconfigured Worker is 503 even without a token', async () => {
    const env = testEnv({ CANISTER_URL: 'not a url' });
    expect(await statusOf(restGet(REST_ROUTES.note_outline, PATH, { token: null, env }))).toBe(503);
    expect(await statusOf(mcp('/mcp', null, toolCall(1), { env }))).toBe(503);
  });
});
