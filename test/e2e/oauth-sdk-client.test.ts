// An OAuth-only client from zero to tool results, with no token handed in: the MCP SDK v2 client
// with its OAuth client provider against the real Worker (production rules) and the local
// authorization server (oidc-provider, approving the demo user automatically). Both endpoint
// forms, both protocol eras, and the refusals an OAuth client must meet.
//
// Standards exercised: MCP authorization (2025-06-18 onwards; 2026-07-28) discovery from the 401,
// RFC 9728 section 5.1 (resource_metadata in the challenge) and section 3.3 (resource matches the
// URL the client was given), RFC 8414 section 3 (authorization server metadata), RFC 7591
// (dynamic registration), RFC 7636 (PKCE S256), RFC 8707 section 2 (resource indicators; tokens
// bound to their resource), RFC 9068 (JWT access tokens).
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  authorizeInUserAgent,
  connectWithOAuth,
  InMemoryOAuthProvider,
  recordingFetch,
  type OAuthConnection,
  type RecordedExchange,
} from '../support/node/oauth-client';
import { CONTRACTS } from '../../src/contracts/registry';

const workerUrl = inject('workerUrl');
const authServerUrl = inject('authServerUrl');
const NOTE_PATH = 'projects/Aurora/roadmap.md';
/** Every tool the registry declares. */
const TOOLS = CONTRACTS.map((contract) => contract.tool);
const ERAS = [
  ['2026-07-28', { mode: 'auto' as const }],
  ['2025-11-25', { mode: 'legacy' as const }],
] as const;
const ENDPOINTS = ['/mcp', '/mcp/vaults/default'];

const open: OAuthConnection[] = [];
afterEach(async () => {
  for (const connection of open.splice(0)) await connection.client.close().catch(() => {});
});

async function connect(path: string, era: (typeof ERAS)[number][1], provider?: InMemoryOAuthProvider): Promise<OAuthConnection> {
  const connection = await connectWithOAuth(new URL(path, workerUrl), era, provider);
  open.push(connection);
  return connection;
}

describe.each(ERAS)('MCP SDK v2 client over OAuth, %s', (revision, era) => {
  it.each(ENDPOINTS)('on %s: 401, discovery, registration, authorization, token, then every tool', async (path) => {
    const { client, provider, exchanges } = await connect(path, era);
    expect(client.getNegotiatedProtocolVersion()).toBe(revision);

    // The first answer was the Worker's challenge naming this endpoint's own metadata.
    const challenge = exchanges.find((exchange) => exchange.status === 401);
    expect(challenge?.wwwAuthenticate).toBe(
      `Bearer resource_metadata="${workerUrl}/.well-known/oauth-protected-resource${path}", scope="vault:read"`,
    );
    // The token the SDK holds was issued through the flow, for exactly this resource.
    const accessToken = provider.tokens()?.access_token ?? '';
    const [header, claims] = accessToken.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header.typ).toBe('at+jwt');
    expect(claims).toMatchObject({ aud: `${workerUrl}${path}`, scope: expect.stringContaining('vault:read'), sub: 'demo' });
    expect(provider.clientInformation()?.client_id).toEqual(expect.any(String));

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const name of TOOLS) {
      const result = (await client.callTool({ name, arguments: { path: NOTE_PATH } })) as CallToolResult;
      expect(result.isError, name).toBeFalsy();
      expect(result.structuredContent, name).toEqual(JSON.parse((result.content[0] as { text: string }).text));
    }
  });

  it('a token issued for another resource is refused (401 invalid_token) and the client authorizes again', async () => {
    const first = await connect('/mcp/vaults/default', era);
    // Its access token (without the refresh token, which the authorization server binds to its
    // own resource) presented on /mcp: the token's audience is only the vault endpoint.
    const { access_token, issuer } = first.provider.tokens()!;
    const forVault = { access_token, token_type: 'Bearer', issuer: issuer! };
    const again = await connect('/mcp', era, new InMemoryOAuthProvider({ tokens: forVault }));
    const refusal = again.exchanges.find((exchange) => exchange.status === 401);
    expect(refusal?.wwwAuthenticate).toMatch(/^Bearer error="invalid_token", resource_metadata="[^"]+\/mcp", scope="vault:read"$/);
    expect(again.provider.tokens()?.access_token).not.toBe(forVault.access_token);
    const result = (await again.client.callTool({ name: 'get_note_outline', arguments: { path: NOTE_PATH } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
  });

  it('an expired access token is refused (401 invalid_token) and the client authorizes again', async () => {
    const expired = inject('expiredAccessToken');
    const { client, exchanges, provider } = await connect('/mcp', era, new InMemoryOAuthProvider({ tokens: { access_token: expired, token_type: 'Bearer', issuer: authServerUrl } }));
    expect(exchanges[0].status).toBe(401);
    expect(exchanges[0].wwwAuthenticate).toMatch(/^Bearer error="invalid_token", /);
    expect(provider.tokens()?.access_token).not.toBe(expired);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
  });

  it('a vault outside the user allowlist is refused by the authorization server (invalid_target), before consent and before the Worker', async () => {
    const provider = new InMemoryOAuthProvider();
    const exchanges: RecordedExchange[] = [];
    const endpoint = new URL('/mcp/vaults/elsewhere', workerUrl);
    const client = new Client({ name: 'knowtation-edge-e2e-oauth', version: '0.0.0' }, { versionNegotiation: era });
    const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider, fetch: recordingFetch(exchanges) });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    // RFC 8707 section 2: the authorization request itself is answered with invalid_target.
    const callback = await authorizeInUserAgent(provider.authorizationUrl!, provider.redirectUrl);
    expect(callback.get('error')).toBe('invalid_target');
    expect(callback.get('code')).toBeNull();
    // The Worker only ever saw the unauthenticated attempt.
    expect(exchanges.filter((exchange) => exchange.url === endpoint.href).map((exchange) => exchange.status)).toEqual([401]);
    await client.close().catch(() => {});
  });
});
