// Drives the local OAuth authorization server (demo/auth-server.mjs) over real loopback HTTP: plain
// fetch with manual redirects and a small cookie jar, like a browser and an OAuth client would, and
// the MCP SDK v2 client's own auth() against a stand-in protected resource. No mocks.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { auth, type OAuthClientMetadata } from '@modelcontextprotocol/client';
// The v1 SDK's auth(), which mcp-remote runs.
import { auth as authV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { isAllowedResource, startAuthServer, type AuthServer, type DemoUser } from '../../demo/auth-server.mjs';
import { InMemoryOAuthProvider, publicClientMetadata } from '../support/node/oauth-client';
import { CookieJar, followRedirects as followRedirectsTo, pkce, type Pkce } from '../support/node/oauth-user-agent';

/** A Worker origin nothing listens on: the authorization server never calls the resource. */
const WORKER = 'http://127.0.0.1:8787';
const MCP_RESOURCE = `${WORKER}/mcp`;
const REDIRECT_URI = 'http://127.0.0.1:49152/callback';
const TTL_SECONDS = 900;
const USER: DemoUser = {
  sub: 'demo',
  role: 'viewer',
  allowedVaultIds: ['default', 'team-notes'],
  effectiveCanisterUserId: 'canister-demo',
  name: 'Demo user',
};

async function registerClient(as: AuthServer, metadata: Record<string, unknown>): Promise<Response> {
  return fetch(`${as.issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
}

async function registerPublicClient(as: AuthServer, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await registerClient(as, {
    client_name: 'Unit test client',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

function authorizationUrl(
  as: AuthServer,
  params: Record<string, string | string[] | undefined>,
): string {
  const url = new URL(`${as.issuer}/auth`);
  for (const [name, value] of Object.entries(params)) {
    for (const one of value === undefined ? [] : Array.isArray(value) ? value : [value]) url.searchParams.append(name, one);
  }
  return url.href;
}

/** The usual request: code flow, PKCE S256, scope vault:read, one resource, a state. */
function codeRequest(as: AuthServer, clientId: string, challenge: Pkce, overrides: Record<string, string | string[] | undefined> = {}) {
  return authorizationUrl(as, {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'vault:read',
    code_challenge: challenge.challenge,
    code_challenge_method: 'S256',
    resource: MCP_RESOURCE,
    state: 'state-123',
    ...overrides,
  });
}

/** The shared user agent's redirect walk, stopping at this client's redirect URI. */
const followRedirects = (start: string, jar: CookieJar, init: RequestInit = {}) => followRedirectsTo(start, REDIRECT_URI, jar, init);

async function authorizeToCallback(start: string, jar = new CookieJar()): Promise<URL> {
  const { callback, last } = await followRedirects(start, jar);
  if (!callback) throw new Error(`no redirect to the client; ended with ${last.response.status} at ${last.url}`);
  return callback;
}

async function tokenRequest(as: AuthServer, params: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function exchangeCode(as: AuthServer, clientId: string, code: string, verifier: string, resource: string | undefined = MCP_RESOURCE) {
  return tokenRequest(as, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    ...(resource === undefined ? {} : { resource }),
  });
}

async function verifyAccessToken(as: AuthServer, token: string, audience: string): Promise<JWTPayload> {
  const jwks = createRemoteJWKSet(new URL(as.jwksUrl));
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer: as.issuer,
    audience,
    typ: 'at+jwt',
    algorithms: ['ES256'],
  });
  expect(protectedHeader.typ).toBe('at+jwt');
  return payload;
}

/** A plain node:http GET with a chosen Host header (fetch would not send a foreign one). */
function getWithHost(port: number, path: string, host: string): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('local authorization server (autoApprove)', () => {
  let as: AuthServer;

  beforeAll(async () => {
    as = await startAuthServer({ resourceOrigin: WORKER, user: USER, autoApprove: true, accessTokenTtlSeconds: TTL_SECONDS });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('starts, serves a flow and stops without writing to the console', async () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => vi.spyOn(console, method));
    try {
      const quiet = await startAuthServer({ resourceOrigin: WORKER, autoApprove: true });
      const clientId = await registerPublicClient(quiet);
      const challenge = pkce();
      const callback = await authorizeToCallback(codeRequest(quiet, clientId, challenge));
      expect((await exchangeCode(quiet, clientId, callback.searchParams.get('code')!, challenge.verifier)).status).toBe(200);
      await quiet.close();
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('names its issuer without a trailing slash and its JWKS under it', () => {
    expect(as.issuer).toBe(`http://127.0.0.1:${as.port}`);
    expect(as.jwksUrl).toBe(`${as.issuer}/jwks`);
  });

  it('serves the same metadata at the RFC 8414 section 3 path and the OIDC discovery path', async () => {
    const rfc8414 = await fetch(`${as.issuer}/.well-known/oauth-authorization-server`);
    const oidc = await fetch(`${as.issuer}/.well-known/openid-configuration`);
    expect(rfc8414.status).toBe(200);
    expect(oidc.status).toBe(200);
    const metadata = (await rfc8414.json()) as Record<string, unknown>;
    expect(await oidc.json()).toEqual(metadata);
    // RFC 8414 section 3.3: the issuer in the document is the issuer the path was built from.
    expect(metadata.issuer).toBe(as.issuer);
    expect(metadata.code_challenge_methods_supported).toContain('S256');
    expect(metadata.code_challenge_methods_supported).not.toContain('plain');
    expect(metadata.registration_endpoint).toBe(`${as.issuer}/reg`);
    expect(metadata.jwks_uri).toBe(as.jwksUrl);
    expect(metadata.response_types_supported).toEqual(['code']);
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');
    expect(metadata.scopes_supported).toContain('vault:read');
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
    expect(metadata).not.toHaveProperty('dpop_signing_alg_values_supported');
  });

  it('publishes one ES256 public key (no private part) at the JWKS URL', async () => {
    const jwks = (await (await fetch(as.jwksUrl)).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  describe('RFC 7591 section 3 dynamic registration', () => {
    it('registers a public client with a loopback redirect URI, without a secret', async () => {
      const response = await registerClient(as, {
        client_name: 'Loopback client',
        redirect_uris: ['http://localhost:50000/oauth/callback', REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        software_id: 'unit-test',
        software_version: '1.0.0',
      });
      expect(response.status).toBe(201);
      const client = (await response.json()) as Record<string, unknown>;
      expect(typeof client.client_id).toBe('string');
      expect(client.token_endpoint_auth_method).toBe('none');
      expect(client.redirect_uris).toEqual(['http://localhost:50000/oauth/callback', REDIRECT_URI]);
      expect(client).not.toHaveProperty('client_secret');
      expect(client.software_id).toBe('unit-test');
    });

    it('accepts a registration naming the resource scope, keeping only OpenID Connect scopes in the client record', async () => {
      const response = await registerClient(as, {
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        scope: 'vault:read openid',
      });
      expect(response.status).toBe(201);
      expect(((await response.json()) as { scope?: string }).scope).toBe('openid');
    });

    it('refuses an http redirect URI on a non-loopback host with invalid_redirect_uri (RFC 7591 section 3.2.2)', async () => {
      const response = await registerClient(as, {
        redirect_uris: [REDIRECT_URI, 'http://attacker.example/callback'],
        token_endpoint_auth_method: 'none',
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    });

    it('accepts an https redirect URI (connector-style clients)', async () => {
      const response = await registerClient(as, {
        redirect_uris: ['https://connector.example/api/mcp/auth_callback'],
        token_endpoint_auth_method: 'none',
      });
      expect(response.status).toBe(201);
    });
  });

  describe('authorization code with PKCE', () => {
    it('issues an RFC 9068 JWT for resource=<origin>/mcp without openid, with the project claims (RFC 9068 section 2.1, RFC 8707 section 2)', async () => {
      const clientId = await registerPublicClient(as);
      const challenge = pkce();
      const callback = await authorizeToCallback(codeRequest(as, clientId, challenge));
      expect(callback.searchParams.get('state')).toBe('state-123');
      // RFC 9207: the authorization response names the issuer.
      expect(callback.searchParams.get('iss')).toBe(as.issuer);
      const code = callback.searchParams.get('code');
      expect(code).toBeTruthy();

      const { status, body } = await exchangeCode(as, clientId, code!, challenge.verifier);
      expect(status).toBe(200);
      expect(body.token_type).toBe('Bearer');
      expect(body.scope).toBe('vault:read');
      expect(body.expires_in).toBe(TTL_SECONDS);
      expect(body).not.toHaveProperty('id_token');
      expect(typeof body.refresh_token).toBe('string');

      const claims = await verifyAccessToken(as, body.access_token as string, MCP_RESOURCE);
      expect(claims.aud).toBe(MCP_RESOURCE);
      expect(claims.scope).toBe('vault:read');
      expect(claims.client_id).toBe(clientId);
      expect(claims.iss).toBe(as.issuer);
      expect(claims.sub).toBe('demo');
      expect(typeof claims.jti).toBe('string');
      expect(claims.exp! - claims.iat!).toBe(TTL_SECONDS);
      expect(claims.role).toBe('viewer');
      expect(claims.allowed_vault_ids).toEqual(['default', 'team-notes']);
      expect(claims.effective_canister_user_id).toBe('canister-demo');
      expect(claims).not.toHaveProperty('type');
    });

    it('refreshes to a new JWT for the same resource, rotating the refresh token', async () => {
      const clientId = await registerPublicClient(as);
      const challenge = pkce();
      const callback = await authorizeToCallback(codeRequest(as, clientId, challenge));
      const first = await exchangeCode(as, clientId, callback.searchParams.get('code')!, challenge.verifier);
      const refreshed = await tokenRequest(as, {
        grant_type: 'refresh_token',
        client_id: clientId,
        refresh_token: first.body.refresh_token as string,
        resource: MCP_RESOURCE,
      });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token);
      const claims = await verifyAccessToken(as, refreshed.body.access_token as string, MCP_RESOURCE);
      expect(claims.scope).toBe('vault:read');
      expect(claims.role).toBe('viewer');
    });

    it('issues the token for the one granted resource when the token request omits resource', async () => {
      const clientId = await registerPublicClient(as);
      const challenge = pkce();
      const callback = await authorizeToCallback(codeRequest(as, clientId, challenge));
      const { status, body } = await exchangeCode(as, clientId, callback.searchParams.get('code')!, challenge.verifier, undefined);
      expect(status).toBe(200);
      expect((await verifyAccessToken(as, body.access_token as string, MCP_RESOURCE)).aud).toBe(MCP_RESOURCE);
    });

    it('issues tokens for a vault resource and for the bare origin (RFC 8707 section 2)', async () => {
      for (const resource of [`${WORKER}/mcp/vaults/team-notes`, WORKER]) {
        const clientId = await registerPublicClient(as);
        const challenge = pkce();
        const callback = await authorizeToCallback(codeRequest(as, clientId, challenge, { resource }));
        const { status, body } = await exchangeCode(as, clientId, callback.searchParams.get('code')!, challenge.verifier, resource);
        expect(status).toBe(200);
        expect((await verifyAccessToken(as, body.access_token as string, resource)).aud).toBe(resource);
      }
    });

    it('with openid and offline_access also returns an ID token, and the access token is still for the resource', async () => {
      const clientId = await registerPublicClient(as);
      const challenge = pkce();
      const callback = await authorizeToCallback(codeRequest(as, clientId, challenge, { scope: 'openid offline_access vault:read' }));
      const { status, body } = await exchangeCode(as, clientId, callback.searchParams.get('code')!, challenge.verifier);
      expect(status).toBe(200);
      expect(typeof body.id_token).toBe('string');
      expect(decodeJwt(body.id_token as string).aud).toBe(clientId);
      const claims = await verifyAccessToken(as, body.access_token as string, MCP_RESOURCE);
      expect(claims.scope).toBe('vault:read');
    });

    it('has no default scope: a request without scope ends in access_denied (RFC 6749 section 3.3)', async () => {
      const clientId = await registerPublicClient(as);
      const callback = await authorizeToCallback(codeRequest(as, clientId, pkce(), { scope: undefined }));
      expect(callback.searchParams.get('error')).toBe('access_denied');
    });

    it('refuses a request without code_challenge (RFC 7636 section 4.4.1)', async () => {
      const clientId = await registerPublicClient(as);
      const callback = await authorizeToCallback(
        codeRequest(as, clientId, pkce(), { code_challenge: undefined, code_challenge_method: undefined }),
      );
      expect(callback.searchParams.get('error')).toBe('invalid_request');
      expect(callback.searchParams.get('code')).toBeNull();
    });

    it('refuses the plain code_challenge_method (RFC 7636 section 4.3, S256 only)', async () => {
      const clientId = await registerPublicClient(as);
      const challenge = pkce();
      const callback = await authorizeToCallback(
        codeRequest(as, clientId, challenge, { code_challenge: challenge.verifier, code_challenge_method: 'plain' }),
      );
      expect(callback.searchParams.get('error')).toBe('invalid_request');
    });

    it('refuses a code redeemed with the wrong code_verifier (RFC 7636 section 4.6)', async () => {
      const clientId = await registerPublicClient(as);
      const challenge = pkce();
      const callback = await authorizeToCallback(codeRequest(as, clientId, challenge));
      const { status, body } = await exchangeCode(as, clientId, callback.searchParams.get('code')!, pkce().verifier);
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_grant');
    });
  });

  describe('RFC 8707 section 2 resource indicators', () => {
    const refused = [
      'http://127.0.0.1:9999/mcp',
      'http://localhost:8787/mcp',
      'https://127.0.0.1:8787/mcp',
      `${WORKER}/admin`,
      `${WORKER}/mcp/`,
      `${WORKER}/mcp?vault=x`,
      `${WORKER}/mcp/vaults/`,
      `${WORKER}/mcp/vaults/bad%20id`,
      `${WORKER}/mcp/vaults/a/b`,
      `${WORKER}/mcp/vaults/${'a'.repeat(65)}`,
      `${WORKER}/mcp/vaults/../../admin`,
      `${WORKER}/api/v1/note-outline`,
    ];

    it.each(refused)('refuses resource %s with invalid_target at the authorization endpoint', async (resource) => {
      const clientId = await registerPublicClient(as);
      const callback = await authorizeToCallback(codeRequest(as, clientId, pkce(), { resource }));
      expect(callback.searchParams.get('error')).toBe('invalid_target');
      expect(callback.searchParams.get('code')).toBeNull();
    });

    it('refuses at the token endpoint a resource that was not granted', async () => {
      const clientId = await registerPublicClient(as);
      const challenge = pkce();
      const callback = await authorizeToCallback(codeRequest(as, clientId, challenge));
      const { status, body } = await exchangeCode(
        as,
        clientId,
        callback.searchParams.get('code')!,
        challenge.verifier,
        `${WORKER}/mcp/vaults/other`,
      );
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_target');
    });

    it('admits exactly the documented resource shapes', () => {
      expect(isAllowedResource(`${WORKER}/mcp/vaults/A_z-09`, WORKER)).toBe(true);
      expect(isAllowedResource(`${WORKER}/`, WORKER)).toBe(true);
      for (const resource of refused) expect(isAllowedResource(resource, WORKER)).toBe(false);
    });
  });

  it('looks up an https client_id as a client ID metadata document (draft-02), refusing one it cannot fetch', async () => {
    const response = await fetch(
      codeRequest(as, 'https://client.invalid/oauth/client-metadata.json', pkce()),
      { redirect: 'manual' },
    );
    // The client is unknown, so the error is shown rather than sent to an unverified redirect URI.
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('invalid_client');
    expect(page).toContain('client_id metadata document');
  });

  describe('DNS-rebinding guard', () => {
    it('answers 421 in plain text to a foreign Host header', async () => {
      for (const host of ['attacker.example', `attacker.example:${as.port}`, `127.0.0.1:${as.port + 1}`, '127.0.0.1']) {
        const response = await getWithHost(as.port, '/.well-known/oauth-authorization-server', host);
        expect(response.status).toBe(421);
        expect(response.type).toBe('text/plain; charset=utf-8');
        expect(response.body).toBe('unexpected Host header\n');
      }
    });

    it('serves its own loopback names', async () => {
      for (const host of [`127.0.0.1:${as.port}`, `localhost:${as.port}`]) {
        expect((await getWithHost(as.port, '/.well-known/oauth-authorization-server', host)).status).toBe(200);
      }
    });
  });

  describe('signAccessToken (test tokens)', () => {
    it('signs a token in the issued shape that verifies against the JWKS', async () => {
      const token = await as.signAccessToken({ resource: MCP_RESOURCE, expiresInSeconds: 60 });
      const claims = await verifyAccessToken(as, token, MCP_RESOURCE);
      expect(claims).toMatchObject({
        sub: 'demo',
        scope: 'vault:read',
        role: 'viewer',
        allowed_vault_ids: ['default', 'team-notes'],
        effective_canister_user_id: 'canister-demo',
      });
      expect(claims).not.toHaveProperty('type');
    });

    it('signs an already-expired token that jose refuses as expired', async () => {
      const token = await as.signAccessToken({ resource: MCP_RESOURCE, expiresInSeconds: -3600 });
      await expect(verifyAccessToken(as, token, MCP_RESOURCE)).rejects.toBeInstanceOf(joseErrors.JWTExpired);
    });

    it('lets claims override the defaults', async () => {
      const token = await as.signAccessToken({ resource: MCP_RESOURCE, expiresInSeconds: 60, claims: { role: 'admin', scope: 'other' } });
      expect(decodeJwt(token)).toMatchObject({ role: 'admin', scope: 'other' });
    });
  });
});

describe('local authorization server consent page (autoApprove false)', () => {
  const HOSTILE_NAME = '<img src=x onerror=alert(1)>';
  let as: AuthServer;

  beforeAll(async () => {
    as = await startAuthServer({ resourceOrigin: () => WORKER, user: USER });
  });
  afterAll(async () => {
    await as?.close();
  });

  /** Starts a code request and stops at the page; returns its URL, response and the jar. */
  async function openConsentPage(clientName: string) {
    const clientId = await registerPublicClient(as, { client_name: clientName });
    const challenge = pkce();
    const jar = new CookieJar();
    const { callback, last } = await followRedirects(codeRequest(as, clientId, challenge), jar);
    expect(callback).toBeUndefined();
    return { clientId, challenge, jar, pageUrl: last.url, response: last.response };
  }

  function postDecision(pageUrl: string, decision: 'approve' | 'deny', jar: CookieJar, origin = as.issuer) {
    return followRedirects(`${pageUrl}/${decision}`, jar, { method: 'POST', headers: { origin } });
  }

  it('shows which client asks for what, for whom, with every value escaped and a strict CSP', async () => {
    const { clientId, response, pageUrl } = await openConsentPage(HOSTILE_NAME);
    expect(response.status).toBe(200);
    expect(pageUrl).toMatch(new RegExp(`^${as.issuer}/interaction/[A-Za-z0-9_-]+$`));
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:49152");
    expect(csp).not.toContain('unsafe');
    const html = await response.text();
    expect(html).not.toContain('<img');
    expect(html).not.toContain('onerror=alert(1)>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain(clientId);
    expect(html).toContain(MCP_RESOURCE);
    expect(html).toContain('vault:read');
    expect(html).toContain('Demo user');
    expect(html).toContain('read the structure of notes');
    expect(html).not.toMatch(/<script|<[^>]*\son\w+=/i);
    const uid = pageUrl.slice(pageUrl.lastIndexOf('/') + 1);
    expect(html).toContain(`<form method="post" action="/interaction/${uid}/approve">`);
    expect(html).toContain(`<form method="post" action="/interaction/${uid}/deny">`);
  });

  it('Deny sends access_denied back to the client (RFC 6749 section 4.1.2.1)', async () => {
    const { pageUrl, jar, response } = await openConsentPage('Deny me');
    await response.body?.cancel();
    const { callback } = await postDecision(pageUrl, 'deny', jar);
    expect(callback).toBeDefined();
    expect(callback!.searchParams.get('error')).toBe('access_denied');
    expect(callback!.searchParams.get('state')).toBe('state-123');
    expect(callback!.searchParams.get('iss')).toBe(as.issuer);
    expect(callback!.searchParams.get('code')).toBeNull();
  });

  it('Approve sends a code that redeems for a token; a loopback (native) client is asked again in the same browser (RFC 8252 section 8.6)', async () => {
    const { clientId, challenge, pageUrl, jar, response } = await openConsentPage('Approve me');
    await response.body?.cancel();
    const { callback } = await postDecision(pageUrl, 'approve', jar);
    const code = callback?.searchParams.get('code');
    expect(code).toBeTruthy();
    const { status, body } = await exchangeCode(as, clientId, code!, challenge.verifier);
    expect(status).toBe(200);
    expect((await verifyAccessToken(as, body.access_token as string, MCP_RESOURCE)).client_id).toBe(clientId);

    const again = await followRedirects(codeRequest(as, clientId, pkce()), jar);
    expect(again.callback).toBeUndefined();
    expect(again.last.url).toMatch(new RegExp(`^${as.issuer}/interaction/[A-Za-z0-9_-]+$`));
    await again.last.response.body?.cancel();
  });

  it('refuses a decision posted from another origin', async () => {
    const { pageUrl, jar, response } = await openConsentPage('Cross-site');
    await response.body?.cancel();
    const { callback, last } = await postDecision(pageUrl, 'approve', jar, 'http://attacker.example');
    expect(callback).toBeUndefined();
    expect(last.response.status).toBe(403);
  });

  it('answers a decision without the interaction cookie with an escaped error page', async () => {
    const { pageUrl, response } = await openConsentPage('No cookie');
    await response.body?.cancel();
    const { last } = await postDecision(pageUrl, 'approve', new CookieJar());
    expect(last.response.status).toBe(400);
    expect(last.response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await last.response.text()).toContain('invalid_request');
  });
});

/** The shared in-memory provider, registered as this file's client (extra metadata as a host adds it). */
function memoryProvider(extraMetadata: Partial<OAuthClientMetadata> = {}): InMemoryOAuthProvider {
  return new InMemoryOAuthProvider({ redirectUrl: REDIRECT_URI, metadata: { ...publicClientMetadata('MCP SDK unit test', REDIRECT_URI), ...extraMetadata } });
}

describe('MCP SDK client auth() against the local authorization server', () => {
  let as: AuthServer;
  let resourceServer: Server;
  let resourceOrigin = '';

  beforeAll(async () => {
    // The resource's origin is known only after the authorization server starts: the function form.
    as = await startAuthServer({ resourceOrigin: () => resourceOrigin, user: USER, autoApprove: true });
    // A stand-in protected resource serving only RFC 9728 metadata that points at the server.
    resourceServer = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://rs.invalid').pathname;
      if (path === '/.well-known/oauth-protected-resource/mcp' || path === '/.well-known/oauth-protected-resource') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          resource: `${resourceOrigin}/mcp`,
          authorization_servers: [as.issuer],
          scopes_supported: ['vault:read'],
          bearer_methods_supported: ['header'],
        }));
        return;
      }
      res.writeHead(401, {
        'www-authenticate': `Bearer resource_metadata="${resourceOrigin}/.well-known/oauth-protected-resource/mcp", scope="vault:read"`,
      });
      res.end();
    });
    await new Promise<void>((resolve) => resourceServer.listen(0, '127.0.0.1', resolve));
    const address = resourceServer.address();
    if (address === null || typeof address === 'string') throw new Error('unexpected address');
    resourceOrigin = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await as?.close();
    if (resourceServer) {
      resourceServer.closeAllConnections();
      await new Promise((resolve) => resourceServer.close(resolve));
    }
  });

  it('v2 auth(): discovers, registers, authorizes, exchanges and refreshes', async () => {
    const provider = memoryProvider();
    const serverUrl = `${resourceOrigin}/mcp`;

    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    const callback = await authorizeToCallback(checkedAuthorizationUrl(provider.authorizationUrl, serverUrl));
    const iss = callback.searchParams.get('iss') ?? undefined;
    expect(await auth(provider, { serverUrl, authorizationCode: callback.searchParams.get('code')!, iss })).toBe('AUTHORIZED');
    const firstAccessToken = await checkedTokens(provider, serverUrl);

    // With a refresh token saved, auth() refreshes instead of redirecting again.
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    expect(provider.tokens()!.access_token).not.toBe(firstAccessToken);
    expect((await verifyAccessToken(as, provider.tokens()!.access_token, serverUrl)).aud).toBe(serverUrl);
  });

  it('v1 auth() (as mcp-remote runs it): discovers, registers with software_id and scope, authorizes, exchanges', async () => {
    const provider = memoryProvider({ software_id: 'mcp-remote-like', software_version: '0.15.1', scope: 'vault:read' });
    const serverUrl = `${resourceOrigin}/mcp`;

    expect(await authV1(provider, { serverUrl })).toBe('REDIRECT');
    const callback = await authorizeToCallback(checkedAuthorizationUrl(provider.authorizationUrl, serverUrl));
    expect(await authV1(provider, { serverUrl, authorizationCode: callback.searchParams.get('code')! })).toBe('AUTHORIZED');
    await checkedTokens(provider, serverUrl);
  });

  /** The authorization request an SDK built: to this server, for the resource, S256, vault:read. */
  function checkedAuthorizationUrl(url: URL | undefined, serverUrl: string): string {
    expect(url?.origin).toBe(as.issuer);
    expect(url!.searchParams.get('resource')).toBe(serverUrl);
    expect(url!.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url!.searchParams.get('scope')?.split(' ')).toContain('vault:read');
    return url!.href;
  }

  /** Checks the saved tokens; returns the access token. */
  async function checkedTokens(provider: InMemoryOAuthProvider, serverUrl: string): Promise<string> {
    const tokens = provider.tokens()!;
    const claims = await verifyAccessToken(as, tokens.access_token, serverUrl);
    expect(claims.scope).toBe('vault:read');
    expect(claims.client_id).toBe(provider.clientInformation()!.client_id);
    expect(claims.allowed_vault_ids).toEqual(['default', 'team-notes']);
    expect(tokens.refresh_token).toBeTruthy();
    return tokens.access_token;
  }
});
