// Real tokens from the local authorization server (oidc-provider, standing in for the Hub), presented
// to the real Worker under production rules. One authorization-code flow asks for
// `openid offline_access vault:read` and gets three tokens signed or issued by the same server: the
// RFC 9068 access token reads, while the OpenID Connect ID token (same signing key) and the refresh
// token are 401 on every route and both MCP endpoint forms (RFC 8725 section 3.11 explicit typing;
// RFC 9068 section 4; MCP authorization: accept only tokens issued for this resource). A flow that
// asks only for `openid` never consented to `vault:read` and reads nothing.
import { createHash, randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { authorizeInUserAgent, connectWithOAuth, InMemoryOAuthProvider, publicClientMetadata, type OAuthConnection } from '../support/node/oauth-client';

const workerUrl = inject('workerUrl');
const issuer = inject('authServerUrl');
const REDIRECT_URI = 'http://127.0.0.1:1/real-tokens/callback';
const NOTE_PATH = 'projects/Aurora/roadmap.md';
const ERAS = [['2026-07-28', { mode: 'auto' as const }], ['2025-11-25', { mode: 'legacy' as const }]] as const;
const ENDPOINTS = ['/mcp', '/mcp/vaults/default'] as const;

interface Tokens {
  /** The registered client the tokens were issued to. */
  clientId: string;
  access_token: string;
  id_token?: string;
  refresh_token?: string;
  scope?: string;
}

const open: OAuthConnection[] = [];
afterEach(async () => {
  for (const connection of open.splice(0)) await connection.client.close().catch(() => {});
});

async function metadata(): Promise<Record<string, string>> {
  return (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, string>;
}

/** Registration (RFC 7591), authorization with PKCE S256 (RFC 7636) for one resource (RFC 8707), and the code redeemed. */
async function tokensFor(scope: string, resource: string): Promise<Tokens> {
  const as = await metadata();
  const registration = await fetch(as.registration_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(publicClientMetadata('real tokens e2e', REDIRECT_URI)),
  });
  expect(registration.status).toBe(201);
  const { client_id: clientId } = (await registration.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorization = new URL(as.authorization_endpoint);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope,
    resource,
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    prompt: 'consent',
  })) {
    authorization.searchParams.set(name, value);
  }
  const callback = await authorizeInUserAgent(authorization, REDIRECT_URI);
  const code = callback.get('code');
  expect(code, callback.get('error') ?? '').toBeTruthy();
  const answer = await fetch(as.token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier, resource }),
  });
  expect(answer.status).toBe(200);
  return { ...((await answer.json()) as Omit<Tokens, 'clientId'>), clientId };
}

const decodeHeader = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString()) as Record<string, unknown>;

async function restStatus(token: string): Promise<{ status: number; challenge: string | null }> {
  const res = await fetch(`${workerUrl}/api/v1/note-outline?path=${encodeURIComponent(NOTE_PATH)}`, { headers: { Authorization: `Bearer ${token}` } });
  await res.body?.cancel();
  return { status: res.status, challenge: res.headers.get('www-authenticate') };
}

/** An MCP SDK v2 client that holds `token` as its access token: the Worker's answer to it, then the client's own recovery. */
async function presentToSdkClient(path: string, era: (typeof ERAS)[number][1], token: string): Promise<OAuthConnection> {
  const connection = await connectWithOAuth(new URL(path, workerUrl), era, new InMemoryOAuthProvider({ tokens: { access_token: token, token_type: 'Bearer', issuer } }));
  open.push(connection);
  return connection;
}

describe('tokens from one openid + vault:read flow', () => {
  it('the ID token is signed with the same key as the access token, for the client', async () => {
    const tokens = await tokensFor('openid offline_access vault:read', `${workerUrl}/mcp`);
    expect(decodeHeader(tokens.access_token)).toMatchObject({ typ: 'at+jwt' });
    expect(tokens.id_token).toBeTruthy();
    expect(decodeHeader(tokens.id_token!).kid).toBe(decodeHeader(tokens.access_token).kid);
    const claims = JSON.parse(Buffer.from(tokens.id_token!.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: issuer, aud: tokens.clientId, sub: 'demo' });
    expect(tokens.refresh_token).toBeTruthy();
  });

  describe.each(ERAS)('MCP SDK v2 client, %s', (_revision, era) => {
    it.each(ENDPOINTS)('on %s: the access token reads; held as its token, the ID token meets 401 invalid_token', async (path) => {
      const tokens = await tokensFor('openid offline_access vault:read', `${workerUrl}${path}`);
      const reading = await presentToSdkClient(path, era, tokens.access_token);
      expect(reading.exchanges.some((exchange) => exchange.status === 401)).toBe(false);
      const result = (await reading.client.callTool({ name: 'get_note_outline', arguments: { path: NOTE_PATH } })) as CallToolResult;
      expect(result.isError).toBeFalsy();

      for (const other of [tokens.id_token!, tokens.refresh_token!]) {
        const refused = await presentToSdkClient(path, era, other);
        expect(refused.exchanges[0].status).toBe(401);
        expect(refused.exchanges[0].wwwAuthenticate).toMatch(/^Bearer error="invalid_token", resource_metadata="[^"]+", scope="vault:read"$/);
        // The client recovers the way the challenge tells it to: a new authorization, a new access token.
        expect(refused.provider.tokens()?.access_token).not.toBe(other);
      }
    });
  });

  it('REST: the ID token and the refresh token are 401; an access token for the origin reads', async () => {
    const forMcp = await tokensFor('openid offline_access vault:read', `${workerUrl}/mcp`);
    expect(await restStatus(forMcp.id_token!)).toMatchObject({ status: 401, challenge: expect.stringMatching(/^Bearer error="invalid_token"/) });
    expect((await restStatus(forMcp.refresh_token!)).status).toBe(401);
    // An access token for /mcp is not one for the REST resource (RFC 8707 section 2).
    expect((await restStatus(forMcp.access_token)).status).toBe(401);
    const forOrigin = await tokensFor('openid vault:read', workerUrl);
    expect((await restStatus(forOrigin.access_token)).status).toBe(200);
    expect((await restStatus(forOrigin.id_token!)).status).toBe(401);
  });

  it('the refreshed access token still reads, bound to its resource; what came beside it does not', async () => {
    const first = await tokensFor('openid offline_access vault:read', `${workerUrl}/mcp`);
    const as = await metadata();
    const answer = await fetch(as.token_endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: first.clientId }),
    });
    expect(answer.status).toBe(200);
    const refreshed = (await answer.json()) as Tokens;
    const connection = await presentToSdkClient('/mcp', ERAS[0][1], refreshed.access_token);
    expect(connection.exchanges.some((exchange) => exchange.status === 401)).toBe(false);
    if (refreshed.id_token) expect((await restStatus(refreshed.id_token)).status).toBe(401);
  });
});

describe('a flow that asked only for openid', () => {
  it('never consented to vault:read: its ID token is 401 and its access token (if any) reads nothing', async () => {
    const tokens = await tokensFor('openid', `${workerUrl}/mcp`);
    expect(tokens.id_token).toBeTruthy();
    expect((await restStatus(tokens.id_token!)).status).toBe(401);
    const mcp = await fetch(`${workerUrl}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokens.access_token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    await mcp.body?.cancel();
    // A JWT access token without vault:read is 403 insufficient_scope (RFC 6750 section 3.1); an opaque one is 401.
    expect([401, 403]).toContain(mcp.status);
    expect(mcp.headers.get('www-authenticate')).toMatch(/^Bearer error="(insufficient_scope|invalid_token)"/);
  });
});
