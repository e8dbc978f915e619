// The hosted context from the Hub (src/auth/hosted-context.ts, step 6 of src/gate.ts), against a
// stand-in that answers `GET /api/v1/hosted-context` as the Hub's bridge does
// (demo/hub-context.mjs; aaronrene/knowtation hub/bridge/server.mjs and
// hub/lib/hosted-workspace-resolve.mjs), with the Hub's own token shapes:
// - `mcp_access` (hub/gateway/mcp-oauth-provider.mjs exchangeAuthorizationCode): HS256 with the
//   session secret, `{sub, client_id, scopes, type: "mcp_access", iat, exp}`, no `aud`;
// - the session token (hub/gateway/server.mjs issueToken): `{sub, provider, id, name, role}`.
// A workspace: an owner, a member with the viewer role, one vault (`team`) and a folder scope, and
// a stranger; each test its own, so tests never share a partition or a Hub log.
import { importJWK, SignJWT, type JWK } from 'jose';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { addWorkspace, hostedContextUrl, hubCalls, setHubFault } from '../support/worker/hub';
import { AUTHORIZATION_SERVER, MCP_HEADERS, ORIGIN, REST_ROUTES, TOOLS, callWorker, mintToken, restGet, testEnv, toolText, type CallOptions } from '../support/worker/harness';
import { READ_LIMIT, inOneWindow, realLimiter } from '../support/worker/budget';
import { MODERN_REVISION, PROTOCOL_VERSION_META_KEY } from '../../src/http/mcp-era';

const IN_SCOPE = 'projects/shared/plan.md';
const OUT_OF_SCOPE = 'private/diary.md';
const BODY = '# Plan\n\nSENTINEL-BODY\n\n## Next\n';

afterEach(() => vi.restoreAllMocks());

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (res: Response): Promise<any> => res.json();

/** The Worker as deployed beside the Hub: shared secret, tokens without `aud` accepted, the Hub asked. */
const hubEnv = (overrides: Record<string, string | undefined> = {}) =>
  testEnv({ HOSTED_CONTEXT_URL: hostedContextUrl(), LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE: 'true', ...overrides });

interface Team {
  owner: string;
  member: string;
  stranger: string;
}

/** A workspace whose owner has notes in `default` and `team`; the member may read `team` under projects/shared only. */
async function team(prefix = 'hc'): Promise<Team> {
  const owner = uniqueUser(`${prefix}-owner`);
  const member = uniqueUser(`${prefix}-member`);
  const stranger = uniqueUser(`${prefix}-stranger`);
  const notes = [
    { path: IN_SCOPE, frontmatter: { title: 'Plan' }, body: BODY },
    { path: OUT_OF_SCOPE, frontmatter: { title: 'Diary' }, body: '# Diary\n' },
  ];
  await seedNotes(owner, 'team', notes);
  await seedNotes(owner, 'default', notes);
  await seedNotes(stranger, 'default', [{ path: IN_SCOPE, frontmatter: {}, body: '# Stranger\n' }]);
  await addWorkspace({
    owner,
    roles: { [member]: 'viewer' },
    access: { [member]: ['team'] },
    scope: { [member]: { team: { projects: [], folders: ['projects/shared'] } } },
    vaults: { [owner]: ['default', 'team'] },
  });
  return { owner, member, stranger };
}

/** The Hub's `mcp_access` token for `sub`, exactly as its OAuth provider signs it. */
const mcpAccess = (sub: string) => mintToken({ sub, client_id: crypto.randomUUID(), scopes: ['vault:read'], type: 'mcp_access' }, { expiresIn: '1h' });
/** The Hub's session token for `sub`, exactly as its gateway signs it after sign-in. */
const session = (sub: string) => mintToken({ sub, provider: 'google', id: sub, name: 'Someone', role: 'member' }, { expiresIn: '1h' });

const rest = (path: string, token: string, vault: string | null, options: CallOptions = {}) =>
  restGet(REST_ROUTES.note_outline, path, { token, env: hubEnv(), ...options, headers: { ...(vault ? { 'X-Vault-Id': vault } : {}), ...options.headers } });

let rpcId = 0;
type Era = 'legacy' | 'modern';

/** One MCP message in an era, to /mcp with X-Vault-Id or to /mcp/vaults/<vault>. */
async function mcp(method: string, params: Record<string, unknown>, token: string, { era = 'legacy' as Era, vault = 'team', endpoint = false, env = hubEnv() } = {}) {
  const headers: Record<string, string> = { ...MCP_HEADERS };
  let body: Record<string, unknown> = { jsonrpc: '2.0', id: ++rpcId, method, params };
  if (era === 'modern') {
    Object.assign(headers, { 'MCP-Protocol-Version': MODERN_REVISION, 'Mcp-Method': method });
    if (method === 'tools/call') headers['Mcp-Name'] = String(params.name);
    body = { ...body, params: { ...params, _meta: { [PROTOCOL_VERSION_META_KEY]: MODERN_REVISION, 'io.modelcontextprotocol/clientCapabilities': {} } } };
  }
  if (!endpoint) headers['X-Vault-Id'] = vault;
  return callWorker(endpoint ? `/mcp/vaults/${vault}` : '/mcp', { method: 'POST', token, headers, body: JSON.stringify(body), env });
}

const outline = (path: string, token: string, options: { era?: Era; vault?: string; endpoint?: boolean; env?: Record<string, string> } = {}) =>
  mcp('tools/call', { name: TOOLS.note_outline, arguments: { path } }, token, options);

const SURFACES = [
  ['legacy', false],
  ['legacy', true],
  ['modern', false],
  ['modern', true],
] as const;

describe('a workspace member reads the workspace through the Hub', () => {
  it('REST: the member reads the owner\'s note in scope, as the owner\'s partition with the member as actor', async () => {
    const { owner, member } = await team();
    const res = await rest(IN_SCOPE, await mcpAccess(member), 'team');
    expect(res.status).toBe(200);
    expect((await json(res)).headings.map((h: { text: string }) => h.text)).toEqual(['Plan', 'Next']);
    const reads = await canisterRequests(owner);
    expect(reads).toHaveLength(1);
    expect(reads[0].headers['x-user-id']).toBe(owner);
    expect(reads[0].headers['x-actor-id']).toBe(member);
    expect(reads[0].headers['x-vault-id']).toBe('team');
  });

  it.each(SURFACES)('MCP (%s era, vault endpoint %s): the member reads the owner\'s note in scope', async (era, endpoint) => {
    const { owner, member } = await team();
    const res = await outline(IN_SCOPE, await mcpAccess(member), { era, endpoint });
    expect(res.status).toBe(200);
    const rpc = await json(res);
    expect(rpc.result.isError).toBeUndefined();
    expect(rpc.result.structuredContent.headings).toHaveLength(2);
    expect(await canisterRequests(owner)).toHaveLength(1);
  });

  it('the session token the Hub issues at sign-in reads the same way', async () => {
    const { member } = await team();
    expect((await rest(IN_SCOPE, await session(member), 'team')).status).toBe(200);
  });

  it('the owner reads any vault of the workspace, the whole of it', async () => {
    const { owner } = await team();
    const token = await mcpAccess(owner);
    expect((await rest(OUT_OF_SCOPE, token, 'team')).status).toBe(200);
    expect((await rest(OUT_OF_SCOPE, token, null)).status).toBe(200);
  });

  it('tools/list answers the tools of the role the Hub returns, after asking it', async () => {
    const { member } = await team();
    for (const era of ['legacy', 'modern'] as const) {
      const res = await mcp('tools/list', {}, await mcpAccess(member), { era });
      expect(res.status).toBe(200);
      expect((await json(res)).result.tools.map((tool: { name: string }) => tool.name)).toEqual(Object.values(TOOLS));
    }
    expect((await hubCalls(member)).length).toBeGreaterThan(0);
  });
});

describe('out of the member\'s scope is exactly a missing note', () => {
  it('REST: 404 with the body of a missing note, and no canister read (a folder scope decides by the path)', async () => {
    const { owner, member } = await team();
    const token = await mcpAccess(member);
    const outside = await rest(OUT_OF_SCOPE, token, 'team');
    const missing = await rest('projects/shared/none.md', token, 'team');
    expect(outside.status).toBe(404);
    expect(await outside.text()).toBe(await missing.text());
    expect((await canisterRequests(owner)).map((r) => r.url)).toEqual([`/api/v1/notes/${encodeURIComponent('projects/shared/none.md')}`]);
  });

  it.each(SURFACES)('MCP (%s era, vault endpoint %s): the missing note\'s tool error', async (era, endpoint) => {
    const { member } = await team();
    const token = await mcpAccess(member);
    const outside = toolText(await json(await outline(OUT_OF_SCOPE, token, { era, endpoint })));
    const missing = toolText(await json(await outline('projects/shared/none.md', token, { era, endpoint })));
    expect(outside).toEqual({ error: 'Upstream 404', code: 'UPSTREAM_ERROR' });
    expect(outside).toEqual(missing);
  });
});

describe('what the Hub refuses is refused, before any canister read', () => {
  it('REST: a vault the Hub refuses the member is 403 Hosted access refused, never a read of their own partition', async () => {
    const { owner, member } = await team();
    const res = await rest(IN_SCOPE, await mcpAccess(member), 'default');
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({ error: 'Hosted access refused', code: 'FORBIDDEN' });
    expect(await canisterRequests(owner)).toHaveLength(0);
    expect(await canisterRequests(member)).toHaveLength(0);
  });

  it.each(SURFACES)('MCP (%s era, vault endpoint %s): a tools/call is the tool error naming the refusal', async (era, endpoint) => {
    const { owner, member } = await team();
    const res = await outline(IN_SCOPE, await mcpAccess(member), { era, endpoint, vault: 'default' });
    expect(res.status).toBe(200);
    const rpc = await json(res);
    expect(rpc.result.isError).toBe(true);
    expect(toolText(rpc)).toEqual({ error: 'Hosted access refused', code: 'UPSTREAM_ERROR' });
    expect(await canisterRequests(owner)).toHaveLength(0);
    expect(await canisterRequests(member)).toHaveLength(0);
  });

  it('MCP: any other message is 403 Hosted access refused, with the request\'s id (JSON-RPC 2.0 section 5)', async () => {
    const { member } = await team();
    const token = await mcpAccess(member);
    for (const era of ['legacy', 'modern'] as const) {
      const res = await mcp('tools/list', {}, token, { era, vault: 'default' });
      expect(res.status).toBe(403);
      const body = await json(res);
      expect(body.error).toEqual({ code: -32600, message: 'Hosted access refused' });
      expect(body.id).toBe(rpcId);
    }
    await setHubFault(member, { status: 500 });
    const down = await mcp('tools/list', {}, token, { vault: 'team' });
    expect(down.status).toBe(503);
    expect((await json(down)).id).toBe(rpcId);
  });

  it('a signed-in stranger asking for the workspace\'s vault is refused on every surface', async () => {
    const { owner, stranger } = await team();
    const token = await mcpAccess(stranger);
    expect((await rest(IN_SCOPE, token, 'team')).status).toBe(403);
    for (const [era, endpoint] of SURFACES) {
      expect(toolText(await json(await outline(IN_SCOPE, token, { era, endpoint }))).error).toBe('Hosted access refused');
    }
    expect(await canisterRequests(owner)).toHaveLength(0);
    expect(await canisterRequests(stranger)).toHaveLength(0);
  });

  it('a stranger the Hub answers as a solo user reads their own partition, as the Hub\'s gateway does', async () => {
    const { stranger } = await team();
    const res = await rest(IN_SCOPE, await mcpAccess(stranger), null);
    expect(res.status).toBe(200);
    expect((await json(res)).headings[0].text).toBe('Stranger');
  });

  it('a 401 from the Hub (it does not accept the token) is 401 with the invalid_token challenge', async () => {
    const { member } = await team();
    await setHubFault(member, { status: 401, body: JSON.stringify({ error: 'Unauthorized', code: 'UNAUTHORIZED' }) });
    const res = await rest(IN_SCOPE, await mcpAccess(member), 'team');
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer error="invalid_token", resource_metadata=/);
  });
});

describe('the Hub down is 503 with Retry-After, and no read', () => {
  it.each([
    ['a 500', { status: 500 }],
    ['a 502', { status: 502 }],
    ['a 429', { status: 429, body: '{}' }],
    ['no answer within the deadline', { delayMs: 3_000 }],
  ])('%s', async (_name, fault) => {
    const { owner, member } = await team();
    await setHubFault(member, fault);
    const token = await mcpAccess(member);
    const res = await rest(IN_SCOPE, token, 'team', { env: hubEnv({ CANISTER_TIMEOUT_MS: '500' }) });
    expect(res.status).toBe(503);
    expect(res.headers.get('Retry-After')).toBe('5');
    expect(await json(res)).toEqual({ error: 'Hosted context unavailable', code: 'SERVICE_UNAVAILABLE' });
    const call = await outline(IN_SCOPE, token, { env: hubEnv({ CANISTER_TIMEOUT_MS: '500' }) });
    expect(call.status).toBe(503);
    expect(call.headers.get('Retry-After')).toBe('5');
    expect(await canisterRequests(owner)).toHaveLength(0);
  });

  it('an unreachable Hub', async () => {
    const { owner, member } = await team();
    const env = hubEnv({ HOSTED_CONTEXT_URL: 'http://127.0.0.1:9/api/v1/hosted-context' });
    const res = await rest(IN_SCOPE, await mcpAccess(member), 'team', { env });
    expect(res.status).toBe(503);
    expect(await canisterRequests(owner)).toHaveLength(0);
  });

  it('an outage is not remembered: the next request asks again and is served', async () => {
    const { member } = await team();
    const token = await mcpAccess(member);
    await setHubFault(member, { status: 500 });
    expect((await rest(IN_SCOPE, token, 'team')).status).toBe(503);
    await setHubFault(member, null);
    expect((await rest(IN_SCOPE, token, 'team')).status).toBe(200);
    expect(await hubCalls(member)).toHaveLength(2);
  });
});

describe('the answer is validated strictly: anything unexpected is 502, never a guess', () => {
  const valid = (sub: string, owner: string) => ({
    actor_sub: sub,
    workspace_owner_id: owner,
    effective_canister_user_id: owner,
    delegating: true,
    allowed_vault_ids: ['team'],
    scope: null,
    role: 'viewer',
    may_approve_proposals: false,
  });
  const cases: Array<[string, (sub: string, owner: string) => Record<string, unknown> | string]> = [
    ['another actor_sub', (sub, owner) => ({ ...valid(sub, owner), actor_sub: `${sub}x` })],
    ['no effective_canister_user_id', (sub, owner) => ({ ...valid(sub, owner), effective_canister_user_id: undefined })],
    ['a blank effective_canister_user_id', (sub, owner) => ({ ...valid(sub, owner), effective_canister_user_id: '  ' })],
    ['an effective user with a control character', (sub, owner) => ({ ...valid(sub, owner), effective_canister_user_id: `${owner}\u0007x` })],
    ['allowed_vault_ids a string', (sub, owner) => ({ ...valid(sub, owner), allowed_vault_ids: 'team' })],
    ['an allowlist without the vault asked for', (sub, owner) => ({ ...valid(sub, owner), allowed_vault_ids: ['default'] })],
    ['an unknown role', (sub, owner) => ({ ...valid(sub, owner), role: 'superuser' })],
    ['a scope that is a list', (sub, owner) => ({ ...valid(sub, owner), scope: ['projects'] })],
    ['a scope without folders', (sub, owner) => ({ ...valid(sub, owner), scope: { projects: [] } })],
    ['delegating a string', (sub, owner) => ({ ...valid(sub, owner), delegating: 'true' })],
    ['an error beside the context', (sub, owner) => ({ ...valid(sub, owner), error: 'Access to this vault is not allowed.' })],
    ['not JSON', () => 'SENTINEL-HUB-TEXT'],
    ['a JSON array', () => '[]'],
  ];
  it.each(cases)('%s', async (_name, answer) => {
    const { owner, member } = await team();
    const body = answer(member, owner);
    await setHubFault(member, { status: 200, body: typeof body === 'string' ? body : JSON.stringify(body) });
    const res = await rest(IN_SCOPE, await mcpAccess(member), 'team');
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: 'Invalid hosted context', code: 'BAD_GATEWAY' });
    expect(text).not.toContain('SENTINEL');
    expect(await canisterRequests(owner)).toHaveLength(0);
  });

  it('the stand-in\'s own valid answer passes through the same path (the cases above are not refused for their shape alone)', async () => {
    const { owner, member } = await team();
    await setHubFault(member, { status: 200, body: JSON.stringify(valid(member, owner)) });
    expect((await rest(IN_SCOPE, await mcpAccess(member), 'team')).status).toBe(200);
  });

  it.each([
    ['a redirect (not followed)', { location: 'http://127.0.0.1:9/elsewhere' }],
    ['a 404 (a wrong URL)', { status: 404 }],
    ['a 204', { status: 204, body: '' }],
    ['an answer over 64 KiB', { status: 200, body: JSON.stringify({ pad: 'x'.repeat(70_000) }) }],
  ])('%s', async (_name, fault) => {
    const { owner, member } = await team();
    await setHubFault(member, fault);
    const res = await rest(IN_SCOPE, await mcpAccess(member), 'team');
    expect(res.status).toBe(502);
    expect(await canisterRequests(owner)).toHaveLength(0);
  });
});

describe('the token goes to the Hub and nowhere else', () => {
  it('the Hub gets exactly `Bearer <token>`, the vault and Accept; the canister never gets the token', async () => {
    const { owner, member } = await team();
    const token = await mcpAccess(member);
    // The header as a client may spell it: another case and extra spaces.
    expect((await rest(IN_SCOPE, token, 'team', { token: null, headers: { Authorization: `bearer   ${token}` } })).status).toBe(200);
    const calls = await hubCalls(member);
    expect(calls).toHaveLength(1);
    expect(calls[0].authorization).toBe(`Bearer ${token}`);
    expect(calls[0].vault).toBe('team');
    expect(calls[0].headerNames.filter((name) => !['host', 'connection', 'accept-encoding', 'user-agent', 'cf-ray', 'cf-connecting-ip', 'cf-ew-via', 'cdn-loop', 'cf-worker', 'x-forwarded-proto', 'x-real-ip'].includes(name)).sort()).toEqual(['accept', 'authorization', 'x-vault-id']);
    const reads = await canisterRequests(owner);
    expect(reads).toHaveLength(1);
    expect(reads[0].headers.authorization).toBeUndefined();
    expect(JSON.stringify(reads[0])).not.toContain(token.split('.')[2]);
  });

  it('claims in the token win and cost no call: a token with its own hosted context never asks the Hub', async () => {
    const { owner, member } = await team();
    const token = await mintToken({ sub: member, effective_canister_user_id: owner, allowed_vault_ids: ['team'], role: 'viewer' });
    expect((await rest(OUT_OF_SCOPE, token, 'team')).status).toBe(200);
    expect(await hubCalls(member)).toHaveLength(0);
  });

  it('a token verified with the key set (RFC 9068 access token) is never sent to the Hub: it is the token\'s own partition', async () => {
    const { member } = await team();
    const key = await importJWK(JSON.parse(inject('jwksPrivateJwk')) as JWK, 'ES256');
    const accessToken = await new SignJWT({ iss: AUTHORIZATION_SERVER, sub: member, aud: ORIGIN, client_id: 'c', jti: crypto.randomUUID(), scope: 'vault:read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'jwks-test', typ: 'at+jwt' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(key);
    const res = await rest(IN_SCOPE, accessToken, null, { env: hubEnv({ JWT_JWKS_URL: `${inject('jwksUrl')}/good` }) });
    expect(res.status).toBe(404);
    expect(await hubCalls(member)).toHaveLength(0);
  });

  it('without HOSTED_CONTEXT_URL the Hub is never asked: the token\'s own partition, as before', async () => {
    const { member } = await team();
    const res = await rest(IN_SCOPE, await mcpAccess(member), null, { env: hubEnv({ HOSTED_CONTEXT_URL: undefined }) });
    expect(res.status).toBe(404);
    expect(await hubCalls(member)).toHaveLength(0);
  });
});

describe('kept at most 5 seconds per (token, vault), never across tokens', () => {
  it('a second read within 5 s asks nothing; another vault, another token or 5 s later ask again', async () => {
    const { member } = await team();
    const token = await mcpAccess(member);
    expect((await rest(IN_SCOPE, token, 'team')).status).toBe(200);
    expect((await rest(IN_SCOPE, token, 'team')).status).toBe(200);
    expect(await hubCalls(member)).toHaveLength(1);
    expect((await rest(IN_SCOPE, token, 'default')).status).toBe(403);
    expect(await hubCalls(member)).toHaveLength(2);
    expect((await rest(IN_SCOPE, await mcpAccess(member), 'team')).status).toBe(200);
    expect(await hubCalls(member)).toHaveLength(3);
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now + 5_001);
    expect((await rest(IN_SCOPE, token, 'team')).status).toBe(200);
    expect(await hubCalls(member)).toHaveLength(4);
  });

  it('a refusal is remembered too: repeating it asks the Hub once', async () => {
    const { member } = await team();
    const token = await mcpAccess(member);
    for (let i = 0; i < 5; i += 1) expect((await rest(IN_SCOPE, token, 'default')).status).toBe(403);
    expect(await hubCalls(member)).toHaveLength(1);
  });

  it('concurrent requests for one (token, vault) share one call', async () => {
    const { member } = await team();
    const token = await mcpAccess(member);
    await setHubFault(member, { delayMs: 200 });
    const statuses = await Promise.all(Array.from({ length: 8 }, () => rest(IN_SCOPE, token, 'team').then((res) => res.status)));
    expect(statuses).toEqual(Array(8).fill(200));
    expect(await hubCalls(member)).toHaveLength(1);
  });
});

describe('budgets', () => {
  it('a person cannot make the Worker call the Hub more often than their read budget allows', async () => {
    const outcome = await inOneWindow(
      async () => (await team('hcb')).member,
      async (member) => {
        const token = await mcpAccess(member);
        const statuses: number[] = [];
        // Every request names another vault, so none is remembered and each would need a call.
        for (let i = 0; i <= READ_LIMIT; i += 1) statuses.push((await rest(IN_SCOPE, token, `v${i}`, realLimiter())).status);
        return { statuses, calls: (await hubCalls(member)).length };
      },
    );
    expect(outcome.statuses.slice(0, READ_LIMIT)).toEqual(Array(READ_LIMIT).fill(403));
    expect(outcome.statuses[READ_LIMIT]).toBe(429);
    expect(outcome.calls).toBe(READ_LIMIT);
  });

  it('a remembered refusal spends nothing: past the read budget of refusals, the person still reads', async () => {
    const outcome = await inOneWindow(
      async () => (await team('hcr')).member,
      async (member) => {
        const token = await mcpAccess(member);
        const refused = new Set<number>();
        for (let i = 0; i < READ_LIMIT + 5; i += 1) refused.add((await rest(IN_SCOPE, token, 'default', realLimiter())).status);
        return { refused: [...refused], read: (await rest(IN_SCOPE, token, 'team', realLimiter())).status };
      },
    );
    expect(outcome).toEqual({ refused: [403], read: 200 });
  });

  it('budgets belong to the person: one member\'s spent reads leave another member of the workspace reading', async () => {
    const outcome = await inOneWindow(
      async () => {
        const { owner, member } = await team('hcp');
        const other = uniqueUser('hcp-other');
        await addWorkspace({ owner, roles: { [other]: 'viewer' }, access: { [other]: ['team'] }, vaults: { [owner]: ['default', 'team'] } });
        return JSON.stringify({ member, other });
      },
      async (pair) => {
        const { member, other } = JSON.parse(pair) as { member: string; other: string };
        const token = await mcpAccess(member);
        for (let i = 0; i < READ_LIMIT; i += 1) await rest(IN_SCOPE, token, 'team', realLimiter());
        return {
          spent: (await rest(IN_SCOPE, token, 'team', realLimiter())).status,
          other: (await rest(IN_SCOPE, await mcpAccess(other), 'team', realLimiter())).status,
        };
      },
    );
    expect(outcome).toEqual({ spent: 429, other: 200 });
  });
});

describe('the log line says where the context came from, and why it was refused', () => {
  it('hub, hub_remembered, token; hub_refused, hub_unavailable, hub_invalid', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const { owner, member, stranger } = await team();
    const token = await mcpAccess(member);
    await rest(IN_SCOPE, token, 'team');
    await rest(IN_SCOPE, token, 'team');
    await rest(IN_SCOPE, await mintToken({ sub: member, effective_canister_user_id: owner }), 'team');
    await rest(IN_SCOPE, await mcpAccess(stranger), 'team');
    await setHubFault(owner, { status: 503 });
    await rest(IN_SCOPE, await mcpAccess(owner), 'team');
    await setHubFault(owner, { status: 200, body: '{}' });
    await rest(IN_SCOPE, await mcpAccess(owner), 'default');
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries.map((e) => [e.outcome, e.context, e.reason])).toEqual([
      ['ok', 'hub', null],
      ['ok', 'hub_remembered', null],
      ['ok', 'token', null],
      ['FORBIDDEN', 'hub', 'hub_refused'],
      ['SERVICE_UNAVAILABLE', 'hub', 'hub_unavailable'],
      ['BAD_GATEWAY', 'hub', 'hub_invalid'],
    ]);
    expect(lines.join('\n')).not.toContain(token);
  });
});

describe('the Scooling bridge', () => {
  it('a bridge credential without hosted context takes it from the Hub; a caller\'s X-Vault-Id is not obeyed', async () => {
    const { owner, member } = await team();
    const bridgeToken = await mintToken({ sub: member }, { expiresIn: '1h' });
    const env = hubEnv({ SCOOLING_SMOKE_ENABLED: 'true', ENVIRONMENT: 'staging', SCOOLING_SMOKE_TOKEN: bridgeToken });
    const smoke = (vault: string | null) =>
      callWorker(`/scooling/note-outline/smoke?path=${encodeURIComponent(IN_SCOPE)}`, { env, headers: vault ? { 'X-Vault-Id': vault } : {} });
    // The member's context for `default` (the credential's vault) is the Hub's refusal, whatever vault the caller names.
    expect((await smoke('team')).status).toBe(403);
    expect((await hubCalls(member)).map((call) => call.vault)).toEqual(['default']);
    expect(await canisterRequests(owner)).toHaveLength(0);
  });
});
