// The Worker as an OAuth protected resource, on /mcp and on /mcp/vaults/<id>, in both MCP eras:
// RFC 9728 metadata and challenges, RFC 8707 audience binding, RFC 9068 access tokens, no token
// passthrough to the canister, and the vault chosen without custom headers.
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { LEGACY_REVISIONS, MODERN_REVISION } from '../../src/http/mcp-era';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import {
  AUTHORIZATION_SERVER,
  MCP_HEADERS,
  ORIGIN,
  REST_ROUTES,
  TOOLS,
  callWorker,
  mintToken,
  rateLimitBinding,
  restGet,
  testEnv,
} from '../support/worker/harness';

const NOTE = { path: 'inbox/a.md', frontmatter: { title: 'A' }, body: '# Alpha heading\n\ntext\n' };
const OTHER_NOTE = { path: 'inbox/a.md', frontmatter: { title: 'B' }, body: '# Beta heading\n\ntext\n' };
const MCP = `${ORIGIN}/mcp`;
const vaultEndpoint = (vault: string) => `/mcp/vaults/${vault}`;

/** A user with the same path in two vaults, so the heading says which vault was read. */
async function twoVaultUser(): Promise<string> {
  const user = uniqueUser('oauth');
  await seedNotes(user, 'alpha', [NOTE]);
  await seedNotes(user, 'beta', [OTHER_NOTE]);
  return user;
}

/** An RFC 9068 JWT access token (section 2.1 header, section 2.2 claims) as the Hub issues it. */
function accessToken(user: string, claims: Record<string, unknown> = {}): Promise<string> {
  return mintToken(
    { iss: AUTHORIZATION_SERVER, sub: user, client_id: 'client-1', jti: crypto.randomUUID(), scope: 'vault:read', aud: MCP, ...claims },
    { header: { typ: 'at+jwt' } },
  );
}

type Era = 'legacy' | 'modern';
const ERAS: Era[] = ['legacy', 'modern'];

/** One tools/call in an era: 2025 needs no initialize (stateless); 2026-07-28 carries _meta and its headers. */
function toolCall(endpoint: string, era: Era, token: string | null, headers: Record<string, string> = {}): Promise<Response> {
  const params: Record<string, unknown> = { name: TOOLS.note_outline, arguments: { path: NOTE.path } };
  const eraHeaders: Record<string, string> =
    era === 'modern'
      ? { 'MCP-Protocol-Version': MODERN_REVISION, 'Mcp-Method': 'tools/call', 'Mcp-Name': TOOLS.note_outline }
      : { 'MCP-Protocol-Version': LEGACY_REVISIONS[0] };
  if (era === 'modern') {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
      'io.modelcontextprotocol/clientInfo': { name: 'test', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
  }
  return callWorker(endpoint, {
    method: 'POST',
    token,
    headers: { ...MCP_HEADERS, ...eraHeaders, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params }),
  });
}

async function headingRead(response: Response): Promise<string> {
  expect(response.status).toBe(200);
  const rpc = await response.json<any>();
  expect(rpc.result.isError, JSON.stringify(rpc.result)).toBeUndefined();
  return rpc.result.structuredContent.headings[0].text;
}

describe('RFC 9728 protected-resource metadata', () => {
  it.each([
    ['/.well-known/oauth-protected-resource', ORIGIN],
    ['/.well-known/oauth-protected-resource/mcp', MCP],
    ['/.well-known/oauth-protected-resource/mcp/vaults/alpha', `${MCP}/vaults/alpha`],
  ])('%s names exactly its resource (section 3.3), the authorization server, scopes and bearer methods', async (path, resource) => {
    const res = await callWorker(path);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      resource,
      authorization_servers: [AUTHORIZATION_SERVER],
      scopes_supported: ['vault:read'],
      bearer_methods_supported: ['header'],
      resource_name: 'Knowtation Edge',
    });
  });

  it('outside local mode the public origin is configured: a request Host never decides it', async () => {
    const request = new Request('https://attacker.example/.well-known/oauth-protected-resource/mcp', { headers: { Host: 'attacker.example' } });
    const res = await worker.fetch(request, { RATE_LIMITER: rateLimitBinding('TEST_RATE_LIMITER'), PROTOCOL_RATE_LIMITER: rateLimitBinding('TEST_RATE_LIMITER'), ...testEnv() });
    expect((await res.json<any>()).resource).toBe(MCP);
    const challenge = await worker.fetch(new Request('https://attacker.example/mcp', { method: 'POST', headers: MCP_HEADERS, body: '{}' }), {
      RATE_LIMITER: rateLimitBinding('TEST_RATE_LIMITER'),
      PROTOCOL_RATE_LIMITER: rateLimitBinding('TEST_RATE_LIMITER'),
      ...testEnv(),
    });
    expect(challenge.headers.get('WWW-Authenticate')).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('in local mode without PUBLIC_ORIGIN, the request origin names the resource', async () => {
    const env = testEnv({ ENVIRONMENT: 'local', PUBLIC_ORIGIN: undefined });
    const res = await worker.fetch(new Request('http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp'), env);
    expect((await res.json<any>()).resource).toBe('http://127.0.0.1:8787/mcp');
  });

  it.each(['a.b', 'x'.repeat(65), '%61', 'a%2Fb'])('a vault segment that is not a vault id (%s) is a 404', async (segment) => {
    expect((await callWorker(`/.well-known/oauth-protected-resource/mcp/vaults/${segment}`)).status).toBe(404);
    const token = await mintToken({ sub: uniqueUser('seg') });
    expect((await toolCall(vaultEndpoint(segment), 'legacy', token)).status).toBe(404);
  });

  it.each([
    ['OAUTH_AUTHORIZATION_SERVER', { OAUTH_AUTHORIZATION_SERVER: undefined }],
    ['PUBLIC_ORIGIN', { PUBLIC_ORIGIN: undefined }],
  ])('a deployment without %s refuses to serve (503)', async (_name, overrides) => {
    const env = testEnv(overrides);
    expect((await callWorker('/.well-known/oauth-protected-resource/mcp', { env })).status).toBe(503);
    const token = await mintToken({ sub: uniqueUser('no-as') });
    expect((await callWorker('/mcp', { method: 'POST', token, headers: MCP_HEADERS, body: '{}', env })).status).toBe(503);
  });
});

describe('RFC 6750 section 3 challenges name the resource the request addressed', () => {
  it.each([
    ['/mcp', '/mcp'],
    [vaultEndpoint('alpha'), '/mcp/vaults/alpha'],
  ])('401 on %s without a token, and with an invalid one', async (endpoint, suffix) => {
    const metadata = `resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource${suffix}"`;
    const missing = await toolCall(endpoint, 'legacy', null);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('WWW-Authenticate')).toBe(`Bearer ${metadata}, scope="vault:read"`);
    const invalid = await toolCall(endpoint, 'legacy', 'a.b.c');
    expect(invalid.headers.get('WWW-Authenticate')).toBe(`Bearer error="invalid_token", ${metadata}, scope="vault:read"`);
  });

  it('403 insufficient_scope names the scope a read needs (RFC 6750 section 3.1)', async () => {
    const user = await twoVaultUser();
    const res = await toolCall(vaultEndpoint('alpha'), 'modern', await accessToken(user, { scope: 'openid' }));
    expect(res.status).toBe(403);
    expect(res.headers.get('WWW-Authenticate')).toBe(
      `Bearer error="insufficient_scope", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp/vaults/alpha", scope="vault:read"`,
    );
    expect(await canisterRequests(user)).toEqual([]);
  });
});

describe('RFC 8707 audience binding', () => {
  // [token audience, endpoint, accepted]
  const MATRIX: Array<[string, string, boolean]> = [
    [MCP, '/mcp', true],
    [MCP, vaultEndpoint('alpha'), true],
    [ORIGIN, '/mcp', true],
    [`${ORIGIN}/`, vaultEndpoint('alpha'), true],
    [`${MCP}/vaults/alpha`, vaultEndpoint('alpha'), true],
    [`${MCP}/vaults/alpha`, '/mcp', false],
    [`${MCP}/vaults/alpha`, vaultEndpoint('beta'), false],
    [`${MCP}/vaults/al`, vaultEndpoint('alpha'), false],
    [`${ORIGIN}/mc`, '/mcp', false],
    ['https://other.example/mcp', '/mcp', false],
    ['HTTPS://EDGE.EXAMPLE/mcp', '/mcp', false],
  ];

  it.each(ERAS.flatMap((era) => MATRIX.map(([aud, endpoint, accepted]) => [era, aud, endpoint, accepted] as const)))(
    '%s era: a token for %s on %s is accepted: %s',
    async (era, aud, endpoint, accepted) => {
      const user = await twoVaultUser();
      const token = await accessToken(user, { aud, allowed_vault_ids: ['alpha', 'beta'] });
      const vaultHeader: Record<string, string> = endpoint === '/mcp' ? { 'X-Vault-Id': 'alpha' } : {};
      const res = await toolCall(endpoint, era, token, vaultHeader);
      if (accepted) {
        expect(await headingRead(res)).toBe(endpoint.endsWith('beta') ? 'Beta heading' : 'Alpha heading');
      } else {
        expect(res.status).toBe(401);
        expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer error="invalid_token", /);
        expect(await canisterRequests(user)).toEqual([]);
      }
    },
  );

  it('an audience list is accepted when one entry admits the resource', async () => {
    const user = await twoVaultUser();
    const token = await accessToken(user, { aud: ['https://other.example', MCP], allowed_vault_ids: ['alpha'] });
    expect(await headingRead(await toolCall('/mcp', 'legacy', token))).toBe('Alpha heading');
  });

  it('a token for /mcp is not a token for the REST routes; one for the origin is', async () => {
    const user = await twoVaultUser();
    const headers = { 'X-Vault-Id': 'alpha' };
    const forMcp = await restGet(REST_ROUTES.note_outline, NOTE.path, { token: await accessToken(user, { aud: MCP }), headers });
    expect(forMcp.status).toBe(401);
    const forOrigin = await restGet(REST_ROUTES.note_outline, NOTE.path, { token: await accessToken(user, { aud: ORIGIN }), headers });
    expect(forOrigin.status).toBe(200);
  });

  it('session tokens keep their rules on both surfaces (JWT_AUDIENCE when set)', async () => {
    const user = await twoVaultUser();
    const token = await mintToken({ sub: user, allowed_vault_ids: ['alpha'] });
    expect(await headingRead(await toolCall('/mcp', 'legacy', token))).toBe('Alpha heading');
    const env = testEnv({ JWT_AUDIENCE: 'knowtation-edge' });
    const refused = await callWorker('/mcp', { method: 'POST', token, headers: MCP_HEADERS, env, body: '{}' });
    expect(refused.status).toBe(401);
  });
});

describe('RFC 9068 access tokens and the hosted scope', () => {
  it('the scope string is read as OAuth scopes, and hosted_scope narrows the read', async () => {
    const user = uniqueUser('scoped');
    await seedNotes(user, 'default', [NOTE, { path: 'projects/x.md', body: '# Inside\n' }]);
    const token = await accessToken(user, { scope: 'openid vault:read', hosted_scope: { folders: ['projects'] } });
    const outside = await (await toolCall('/mcp', 'modern', token)).json<any>();
    expect(JSON.parse(outside.result.content[0].text)).toEqual({ error: 'Upstream 404', code: 'UPSTREAM_ERROR' });
  });

  it('a string scope never widens a hosted scope object', async () => {
    const user = uniqueUser('scoped-session');
    await seedNotes(user, 'default', [NOTE]);
    const token = await mintToken({ sub: user, type: 'mcp_access', aud: MCP, scopes: ['vault:read'], scope: { folders: ['projects'] } });
    const rpc = await (await toolCall('/mcp', 'legacy', token)).json<any>();
    expect(rpc.result.isError).toBe(true);
  });
});

describe('no token passthrough (MCP authorization, Security Best Practices)', () => {
  it.each(ERAS)('%s era: the canister gets the gateway secret and identity headers, nothing of the caller credential', async (era) => {
    const user = await twoVaultUser();
    const token = await accessToken(user, { allowed_vault_ids: ['alpha'] });
    const cookie = 'session=SENTINEL-COOKIE';
    await headingRead(await toolCall(vaultEndpoint('alpha'), era, token, { Cookie: cookie }));
    const [request] = await canisterRequests(user);
    expect(Object.keys(request.headers)).not.toContain('authorization');
    expect(Object.keys(request.headers)).not.toContain('cookie');
    expect(JSON.stringify(request.headers)).not.toContain(token.split('.')[1]);
    expect(request.headers['x-gateway-auth']).toBe(testEnv().CANISTER_AUTH_SECRET);
    expect(request.headers['x-user-id']).toBe(user);
    expect(request.headers['x-vault-id']).toBe('alpha');
  });
});

describe('vaults without custom headers', () => {
  it.each(ERAS)('%s era: with no X-Vault-Id, a one-vault allowlist reads that vault', async (era) => {
    const user = await twoVaultUser();
    expect(await headingRead(await toolCall('/mcp', era, await accessToken(user, { allowed_vault_ids: ['beta'] })))).toBe('Beta heading');
    const rest = await restGet(REST_ROUTES.note_outline, NOTE.path, { token: await mintToken({ sub: user, allowed_vault_ids: ['beta'] }) });
    expect((await rest.json<any>()).headings[0].text).toBe('Beta heading');
  });

  it('with no X-Vault-Id and several allowed vaults (or none named), the vault is default', async () => {
    const user = await twoVaultUser();
    const res = await toolCall('/mcp', 'legacy', await accessToken(user, { allowed_vault_ids: ['alpha', 'beta'] }));
    expect(res.status).toBe(403);
  });

  it.each(ERAS)('%s era: /mcp/vaults/<id> reads that vault; an agreeing header is fine, a disagreeing one is refused', async (era) => {
    const user = await twoVaultUser();
    const token = await accessToken(user, { allowed_vault_ids: ['alpha', 'beta'] });
    expect(await headingRead(await toolCall(vaultEndpoint('beta'), era, token))).toBe('Beta heading');
    expect(await headingRead(await toolCall(vaultEndpoint('beta'), era, token, { 'X-Vault-Id': ' beta ' }))).toBe('Beta heading');
    const mismatch = await toolCall(vaultEndpoint('beta'), era, token, { 'X-Vault-Id': 'alpha' });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid vault' }, id: null });
    expect(await canisterRequests(user)).toHaveLength(2);
  });

  it('/mcp/vaults/<id> outside the allowlist is 403 before any read', async () => {
    const user = await twoVaultUser();
    const res = await toolCall(vaultEndpoint('beta'), 'modern', await accessToken(user, { allowed_vault_ids: ['alpha'] }));
    expect(res.status).toBe(403);
    // Refused after the message was read: the answer carries its id (JSON-RPC 2.0 section 5).
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Access to this vault is not allowed.' }, id: 5 });
    expect(await canisterRequests(user)).toEqual([]);
  });

  it('/mcp/vaults/<id> answers other methods with 405, like /mcp', async () => {
    const res = await callWorker(vaultEndpoint('alpha'), { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toBe('POST, OPTIONS');
  });
});
