// The local authorization server (demo/auth-server.mjs) as the Hub's authorization server must
// behave for the MCP connectors: registrations of every known connector, the redirect URIs that
// must be refused, bounded registration, CORS for the browser-based MCP Inspector and for no page
// off loopback, automatic
// approval for loopback redirect URIs only, vaults the user may not read refused before any page,
// refresh tokens, and RFC 9207 `iss`. Real loopback HTTP, no mocks.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startAuthServer, type AuthServer, type DemoUser } from '../../demo/auth-server.mjs';
import { MAX_REDIRECT_URIS, MAX_REGISTERED_CLIENTS_PER_ORIGIN, MAX_REGISTRATION_BYTES } from '../../demo/lib/oauth-clients.mjs';
import { CONNECTOR_CLIENTS, connectorRegistration } from '../../scripts/lib/connector-clients';
import {
  CookieJar,
  authorizationUrl,
  followRedirects,
  pkce,
  register,
  registeredClientId,
  tokenRequest,
  type Pkce,
} from '../support/node/oauth-user-agent';

/** A Worker origin nothing listens on: the authorization server never calls the resource. */
const WORKER = 'http://127.0.0.1:8787';
const MCP_RESOURCE = `${WORKER}/mcp`;
const LOOPBACK_REDIRECT = 'http://127.0.0.1:49152/callback';
const INSPECTOR_ORIGIN = 'http://localhost:6274';
const USER: DemoUser = {
  sub: 'demo',
  role: 'viewer',
  allowedVaultIds: ['default', 'team-notes'],
  effectiveCanisterUserId: 'demo',
  name: 'Demo user',
};

/**
 * What the MCP Inspector 0.16.8 web page registers, from the browser (@modelcontextprotocol/inspector-client
 * 0.16.8; docs/MCP.md runs it). 2.x registers from its own backend, without CORS (scripts/lib/connector-clients.ts).
 */
const INSPECTOR_BROWSER_REGISTRATION = {
  client_name: 'unit test (MCP Inspector 0.16.8)',
  redirect_uris: [`${INSPECTOR_ORIGIN}/oauth/callback`, `${INSPECTOR_ORIGIN}/oauth/callback/debug`],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  client_uri: 'https://github.com/modelcontextprotocol/inspector',
  scope: '',
};

function publicClient(redirectUris: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_name: 'Unit test client',
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  };
}

/** The server's grant_types_supported, which VS Code's registration is filtered by. */
async function grantTypesSupported(as: AuthServer): Promise<unknown> {
  const metadata = (await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json()) as { grant_types_supported?: unknown };
  return metadata.grant_types_supported;
}

/** The usual code request: PKCE S256, scope vault:read, the MCP resource, a state. */
function codeRequest(as: AuthServer, clientId: string, redirectUri: string, challenge: Pkce, overrides: Record<string, string | undefined> = {}): string {
  return authorizationUrl(`${as.issuer}/auth`, {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'vault:read',
    code_challenge: challenge.challenge,
    code_challenge_method: 'S256',
    resource: MCP_RESOURCE,
    state: 'state-123',
    ...overrides,
  });
}

function exchange(as: AuthServer, clientId: string, redirectUri: string, code: string, verifier: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}) {
  return tokenRequest(
    `${as.issuer}/token`,
    { grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: redirectUri, code_verifier: verifier, resource: MCP_RESOURCE, ...extra },
    headers,
  );
}

function refresh(as: AuthServer, clientId: string, refreshToken: string, extra: Record<string, string> = {}) {
  return tokenRequest(`${as.issuer}/token`, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken, ...extra });
}

async function audienceOf(as: AuthServer, accessToken: string): Promise<unknown> {
  const { payload } = await jwtVerify(accessToken, createRemoteJWKSet(new URL(as.jwksUrl)), { issuer: as.issuer, typ: 'at+jwt' });
  return payload.aud;
}

/** The whole browser part of a code flow that the server approves without a page; returns the callback. */
async function authorizeToCallback(url: string, redirectUri: string): Promise<URL> {
  const { callback, last } = await followRedirects(url, redirectUri);
  if (!callback) throw new Error(`no redirect to the client; ended with HTTP ${last.response.status} at ${last.url}`);
  return callback;
}

/** Registers a loopback public client and runs the code flow to tokens. */
async function tokensFor(as: AuthServer, { scope = 'vault:read', prompt, grantTypes }: { scope?: string; prompt?: string; grantTypes?: string[] } = {}) {
  const clientId = await registeredClientId(`${as.issuer}/reg`, publicClient([LOOPBACK_REDIRECT], grantTypes ? { grant_types: grantTypes } : {}));
  const challenge = pkce();
  const callback = await authorizeToCallback(codeRequest(as, clientId, LOOPBACK_REDIRECT, challenge, { scope, prompt }), LOOPBACK_REDIRECT);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${callback.searchParams.get('error')}`);
  const { status, body } = await exchange(as, clientId, LOOPBACK_REDIRECT, code, challenge.verifier);
  expect(status).toBe(200);
  return { clientId, body };
}

/** A CORS preflight for a JSON registration POST from `origin`. */
function registrationPreflight(as: AuthServer, origin: string): Promise<Response> {
  return fetch(`${as.issuer}/reg`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
}

/** A chunked POST (no Content-Length), which fetch never sends for a string body. */
function chunkedPost(port: number, path: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.write(body);
    req.end();
  });
}

describe('local authorization server and the connectors (autoApprove)', () => {
  let as: AuthServer;

  beforeAll(async () => {
    as = await startAuthServer({ resourceOrigin: WORKER, user: USER, autoApprove: true });
  });
  afterAll(async () => {
    await as?.close();
  });

  describe('RFC 7591 section 3: every known connector registers', () => {
    it.each(CONNECTOR_CLIENTS.map((client) => [client.name, client] as const))('%s', async (_name, client) => {
      const metadata = connectorRegistration(client, 'unit test', { grantTypesSupported: await grantTypesSupported(as) });
      const response = await register(`${as.issuer}/reg`, metadata);
      expect(response.status).toBe(201);
      const registered = (await response.json()) as Record<string, unknown>;
      const redirectUris = metadata.redirect_uris as string[];
      expect(registered.redirect_uris).toEqual(redirectUris);
      // A public client, or claude.ai's client_secret_post with the secret it authenticates with.
      expect(registered.token_endpoint_auth_method).toBe(client.registration!.tokenEndpointAuthMethod);
      expect(typeof registered.client_secret).toBe(client.registration!.tokenEndpointAuthMethod === 'none' ? 'undefined' : 'string');
      // RFC 8252: a loopback or private-use redirect URI makes it a native client.
      const native = redirectUris.some((uri) => !uri.startsWith('https:'));
      expect(registered.application_type).toBe(native ? 'native' : 'web');
    });

    it("registers Cursor's callbacks as a native client also when it says application_type web", async () => {
      const cursor = CONNECTOR_CLIENTS.find((client) => client.name.startsWith('Cursor'))!;
      const response = await register(`${as.issuer}/reg`, { ...connectorRegistration(cursor, 'unit test'), application_type: 'web' });
      expect(response.status).toBe(201);
      expect(((await response.json()) as Record<string, unknown>).application_type).toBe('native');
    });

    it('lets a native client come back on another loopback port than registered (RFC 8252 section 7.3), as VS Code does, and nowhere else', async () => {
      const vscode = CONNECTOR_CLIENTS.find((client) => client.name === 'VS Code')!;
      const clientId = await registeredClientId(`${as.issuer}/reg`, connectorRegistration(vscode, 'unit test', { grantTypesSupported: await grantTypesSupported(as) }));
      const otherPort = 'http://127.0.0.1:59656/';
      const callback = await authorizeToCallback(codeRequest(as, clientId, otherPort, pkce()), otherPort);
      expect(callback.searchParams.get('code')).toBeTruthy();

      for (const unregistered of ['http://127.0.0.1:59656/elsewhere', 'https://vscode.dev/redirect/elsewhere', 'http://localhost:33418/']) {
        const response = await fetch(codeRequest(as, clientId, unregistered, pkce()), { redirect: 'manual' });
        // An unregistered redirect URI is never redirected to (RFC 6749 section 4.1.2.1): the error is a page.
        expect(response.status, unregistered).toBe(400);
        expect(response.headers.get('location')).toBeNull();
        expect(await response.text()).toContain('redirect_uri');
      }
    });
  });

  describe('redirect URIs that must be refused (RFC 7591 section 3.2.2: invalid_redirect_uri)', () => {
    const refused: Array<[string, string]> = [
      ['http on a host that is not loopback (OAuth 2.1 section 2.3.1)', 'http://attacker.example/callback'],
      ['http on a LAN address', 'http://192.168.1.10:8080/callback'],
      ['a javascript: URI', 'javascript:alert(1)'],
      ['a data: URI', 'data:text/html,callback'],
      ['a file: URI', 'file:///tmp/callback'],
      ['a vbscript: URI', 'vbscript:msgbox'],
      ['a fragment on https (RFC 6749 section 3.1.2)', 'https://claude.ai/api/mcp/auth_callback#frag'],
      ['an empty fragment on loopback http', 'http://127.0.0.1:5000/callback#'],
      ['a fragment on a private-use scheme', 'cursor://anysphere.cursor-mcp/oauth/callback#frag'],
      ['userinfo', 'https://user@claude.ai/api/mcp/auth_callback'],
      ['a private-use scheme with nothing after it', 'cursor:'],
      ['a reverse-domain scheme with nothing after it', 'com.example.app:'],
      ['a relative reference', '/callback'],
      // RFC 8252 section 7.1: a private-use scheme is a reverse domain name. Schemes without a period
      // are refused, above all those a browser or the operating system already acts on.
      ['a mailto: URI (the mail client)', 'mailto:attacker@example.com'],
      ['a tel: URI (the dialer)', 'tel:+15555550100'],
      ['an sms: URI (messages)', 'sms:+15555550100'],
      ['an intent: URI (Android intents)', 'intent://callback/path'],
      ['a chrome: URI (browser internals)', 'chrome://settings/passwords'],
      ['a chrome-extension: URI (another extension)', 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/callback'],
      ['an ms-settings: URI (Windows settings)', 'ms-settings:privacy'],
      ['a jar: URI', 'jar:https://attacker.example/a.jar!/callback'],
      ['a blob: URI', 'blob:https://claude.ai/0f1e2d3c'],
      ['an about: URI', 'about:blank'],
      ['a ws: URI', 'ws://127.0.0.1:5000/callback'],
      ['a view-source: URI', 'view-source:https://claude.ai/api/mcp/auth_callback'],
      ['an app scheme without a period (not private-use, RFC 8252 section 7.1)', 'myapp://callback'],
      ["VS Code's app scheme, which it does not register (it uses https and loopback callbacks)", 'vscode://callback'],
      ['a web+ scheme (registered by pages with registerProtocolHandler)', 'web+callback://x/y'],
      ['a scheme with an empty label', 'com..example:/callback'],
    ];

    it.each(refused)('%s', async (_why, uri) => {
      for (const redirectUris of [[uri], ['https://claude.ai/api/mcp/auth_callback', uri]]) {
        const response = await register(`${as.issuer}/reg`, publicClient(redirectUris));
        expect(response.status).toBe(400);
        expect(((await response.json()) as { error: string }).error).toBe('invalid_redirect_uri');
      }
    });
  });

  it.each(['com.example.app:/oauth2redirect', 'com.example.app://callback', 'io.github.someone.tool:/cb'])(
    'accepts the reverse-domain private-use scheme of %s as a native client (RFC 8252 section 7.1)',
    async (uri) => {
      const response = await register(`${as.issuer}/reg`, publicClient([uri]));
      expect(response.status).toBe(201);
      expect(((await response.json()) as Record<string, unknown>).application_type).toBe('native');
    },
  );

  describe('registration bounds', () => {
    it(`accepts ${MAX_REDIRECT_URIS} redirect URIs and refuses ${MAX_REDIRECT_URIS + 1}`, async () => {
      const uris = (count: number) => Array.from({ length: count }, (_, i) => `http://127.0.0.1:${40000 + i}/callback`);
      expect((await register(`${as.issuer}/reg`, publicClient(uris(MAX_REDIRECT_URIS)))).status).toBe(201);
      const over = await register(`${as.issuer}/reg`, publicClient(uris(MAX_REDIRECT_URIS + 1)));
      expect(over.status).toBe(400);
      expect(((await over.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    });

    it(`accepts a body of exactly ${MAX_REGISTRATION_BYTES} bytes and refuses one byte more with 413`, async () => {
      const sized = (bytes: number) => {
        const base = JSON.stringify(publicClient([LOOPBACK_REDIRECT], { client_name: '' }));
        return JSON.stringify(publicClient([LOOPBACK_REDIRECT], { client_name: 'n'.repeat(bytes - Buffer.byteLength(base)) }));
      };
      const post = (body: string) => fetch(`${as.issuer}/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(Buffer.byteLength(sized(MAX_REGISTRATION_BYTES))).toBe(MAX_REGISTRATION_BYTES);
      expect((await post(sized(MAX_REGISTRATION_BYTES))).status).toBe(201);
      const over = await post(sized(MAX_REGISTRATION_BYTES + 1));
      expect(over.status).toBe(413);
      expect(((await over.json()) as { error: string }).error).toBe('invalid_client_metadata');
    });

    it('refuses a registration that does not declare its length (411), however small', async () => {
      expect(await chunkedPost(as.port, '/reg', JSON.stringify(publicClient([LOOPBACK_REDIRECT])))).toBe(411);
    });

    it('counts successful registrations only, and answers 429 past maxRegisteredClients', async () => {
      const bounded = await startAuthServer({ resourceOrigin: WORKER, maxRegisteredClients: 2 });
      try {
        const reg = `${bounded.issuer}/reg`;
        expect((await register(reg, publicClient(['http://attacker.example/callback']))).status).toBe(400);
        expect((await register(reg, publicClient([LOOPBACK_REDIRECT]))).status).toBe(201);
        expect((await register(reg, publicClient([LOOPBACK_REDIRECT]))).status).toBe(201);
        const third = await register(reg, publicClient([LOOPBACK_REDIRECT]));
        expect(third.status).toBe(429);
        expect(((await third.json()) as { error: string }).error).toBe('temporarily_unavailable');
      } finally {
        await bounded.close();
      }
    });

    it('takes only a non-negative integer as maxRegisteredClients', async () => {
      for (const maxRegisteredClients of [-1, 1.5, Number.NaN]) {
        await expect(startAuthServer({ resourceOrigin: WORKER, maxRegisteredClients })).rejects.toThrow(TypeError);
      }
    });
  });

  describe('CORS for a browser-based client: the MCP Inspector 0.16.8 flow, from its origin', () => {
    it.each([INSPECTOR_ORIGIN, 'http://127.0.0.1:6274', 'http://[::1]:6274'])(
      'answers the registration preflight and the registration for the loopback origin %s, without credentials',
      async (origin) => {
        const preflight = await registrationPreflight(as, origin);
        expect(preflight.status).toBe(204);
        expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
        expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
        expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
        expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();

        const registration = await register(`${as.issuer}/reg`, INSPECTOR_BROWSER_REGISTRATION, { origin });
        expect(registration.status).toBe(201);
        expect(registration.headers.get('access-control-allow-origin')).toBe(origin);
        expect(registration.headers.get('access-control-allow-credentials')).toBeNull();
      },
    );

    it('a refused registration from the Inspector still carries CORS; one without Origin (a native client) none', async () => {

      const refusal = await register(`${as.issuer}/reg`, publicClient(['http://attacker.example/cb']), { origin: INSPECTOR_ORIGIN });
      expect(refusal.status).toBe(400);
      expect(refusal.headers.get('access-control-allow-origin')).toBe(INSPECTOR_ORIGIN);

      const withoutOrigin = await register(`${as.issuer}/reg`, publicClient([LOOPBACK_REDIRECT]));
      expect(withoutOrigin.status).toBe(201);
      expect(withoutOrigin.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('discovery, registration, authorization and token exchange as the Inspector runs them; the token endpoint only for its own origin', async () => {
      const metadataResponse = await fetch(`${as.issuer}/.well-known/oauth-authorization-server`, { headers: { origin: INSPECTOR_ORIGIN } });
      expect(metadataResponse.headers.get('access-control-allow-origin')).toBe(INSPECTOR_ORIGIN);
      const metadata = (await metadataResponse.json()) as { registration_endpoint: string; token_endpoint: string; scopes_supported: string[] };

      // The Inspector registers with the server's scopes_supported as its scope.
      const registration = { ...INSPECTOR_BROWSER_REGISTRATION, scope: metadata.scopes_supported.join(' ') };
      const registered = await register(metadata.registration_endpoint, registration, { origin: INSPECTOR_ORIGIN });
      const clientId = ((await registered.json()) as { client_id: string }).client_id;

      const redirectUri = INSPECTOR_BROWSER_REGISTRATION.redirect_uris[0];
      const codes = [];
      for (let i = 0; i < 2; i += 1) {
        const challenge = pkce();
        const callback = await authorizeToCallback(codeRequest(as, clientId, redirectUri, challenge), redirectUri);
        codes.push({ code: callback.searchParams.get('code')!, verifier: challenge.verifier });
      }
      const allowed = await exchange(as, clientId, redirectUri, codes[0].code, codes[0].verifier, {}, { origin: INSPECTOR_ORIGIN });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(INSPECTOR_ORIGIN);

      const foreign = await exchange(as, clientId, redirectUri, codes[1].code, codes[1].verifier, {}, { origin: 'http://attacker.example' });
      expect(foreign.status).toBe(400);
      expect(foreign.body.error).toBe('invalid_request');
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('no web page but a loopback one can register (Fetch standard, CORS protocol)', () => {
    // Origins a page elsewhere sends, including ones that look loopback and are not.
    const FOREIGN_ORIGINS = [
      'https://attacker.example',
      'http://attacker.example:6274',
      'http://192.168.1.10:6274',
      'http://localhost.attacker.example:6274',
      'http://127.0.0.1.nip.io:6274',
      'null',
    ];

    it.each(FOREIGN_ORIGINS)('%s: the preflight and the POST are 403 without CORS, and nothing is registered', async (origin) => {
      const bounded = await startAuthServer({ resourceOrigin: WORKER, maxRegisteredClients: 1 });
      try {
        const preflight = await registrationPreflight(bounded, origin);
        expect(preflight.status).toBe(403);
        expect(preflight.headers.get('access-control-allow-origin')).toBeNull();

        const refused = await register(`${bounded.issuer}/reg`, publicClient([LOOPBACK_REDIRECT]), { origin });
        expect(refused.status).toBe(403);
        expect(refused.headers.get('access-control-allow-origin')).toBeNull();
        expect(((await refused.json()) as { error: string }).error).toBe('access_denied');
        // A form POST needs no preflight: refused the same, before its body is read.
        const form = await fetch(`${bounded.issuer}/reg`, {
          method: 'POST',
          headers: { origin, 'content-type': 'text/plain' },
          body: JSON.stringify(publicClient([LOOPBACK_REDIRECT])),
        });
        expect(form.status).toBe(403);

        // The one registration this server allows is still there for a native client.
        expect((await register(`${bounded.issuer}/reg`, publicClient([LOOPBACK_REDIRECT]))).status).toBe(201);
      } finally {
        await bounded.close();
      }
    });

    it(`a loopback page registers at most ${MAX_REGISTERED_CLIENTS_PER_ORIGIN} clients; other origins and native clients keep theirs`, async () => {
      const bounded = await startAuthServer({ resourceOrigin: WORKER });
      try {
        const reg = `${bounded.issuer}/reg`;
        const page = 'http://localhost:5173';
        // A refusal does not count.
        expect((await register(reg, publicClient(['mailto:attacker@example.com']), { origin: page })).status).toBe(400);
        for (let i = 0; i < MAX_REGISTERED_CLIENTS_PER_ORIGIN; i += 1) {
          expect((await register(reg, publicClient([LOOPBACK_REDIRECT]), { origin: page })).status).toBe(201);
        }
        const over = await register(reg, publicClient([LOOPBACK_REDIRECT]), { origin: page });
        expect(over.status).toBe(429);
        expect(over.headers.get('access-control-allow-origin')).toBe(page);
        expect(((await over.json()) as { error: string }).error).toBe('temporarily_unavailable');
        expect((await register(reg, publicClient([LOOPBACK_REDIRECT]), { origin: INSPECTOR_ORIGIN })).status).toBe(201);
        expect((await register(reg, publicClient([LOOPBACK_REDIRECT]))).status).toBe(201);
      } finally {
        await bounded.close();
      }
    });
  });

  describe('automatic approval only for loopback redirect URIs', () => {
    it.each(['http://127.0.0.1:49153/callback', 'http://localhost:49153/callback', 'http://[::1]:49153/callback'])('approves %s without a page', async (redirectUri) => {
      const clientId = await registeredClientId(`${as.issuer}/reg`, publicClient([redirectUri]));
      const callback = await authorizeToCallback(codeRequest(as, clientId, redirectUri, pkce()), redirectUri);
      expect(callback.searchParams.get('code')).toBeTruthy();
    });

    it.each(['https://claude.ai/api/mcp/auth_callback', 'cursor://anysphere.cursor-mcp/oauth/callback', 'https://vscode.dev/redirect'])(
      'shows the consent page for %s',
      async (redirectUri) => {
        const clientId = await registeredClientId(`${as.issuer}/reg`, publicClient([redirectUri]));
        const { callback, last } = await followRedirects(codeRequest(as, clientId, redirectUri, pkce()), redirectUri);
        expect(callback).toBeUndefined();
        expect(last.response.status).toBe(200);
        expect(last.url).toMatch(new RegExp(`^${as.issuer}/interaction/[A-Za-z0-9_-]+$`));
        expect(await last.response.text()).toContain('Allow <strong>Unit test client</strong>');
      },
    );
  });

  describe('refresh tokens', () => {
    it('with offline_access (and prompt=consent, as the MCP SDK v2 asks): issued, rotated on use, the used one refused, each access token for the resource', async () => {
      const { clientId, body } = await tokensFor(as, { scope: 'vault:read offline_access', prompt: 'consent' });
      const first = body.refresh_token as string;
      expect(first).toEqual(expect.any(String));

      const refreshed = await refresh(as, clientId, first, { resource: MCP_RESOURCE });
      expect(refreshed.status).toBe(200);
      expect(await audienceOf(as, refreshed.body.access_token as string)).toBe(MCP_RESOURCE);
      const second = refreshed.body.refresh_token as string;
      expect(second).toEqual(expect.any(String));
      expect(second).not.toBe(first);

      // OAuth 2.1 section 4.3.1: a used refresh token of a public client is spent.
      const reused = await refresh(as, clientId, first);
      expect(reused.status).toBe(400);
      expect(reused.body.error).toBe('invalid_grant');
    });

    it('without offline_access, to a client registered for the refresh_token grant: issued too, and a refresh without resource stays on the granted one', async () => {
      const { clientId, body } = await tokensFor(as);
      expect(body.refresh_token).toEqual(expect.any(String));
      const refreshed = await refresh(as, clientId, body.refresh_token as string);
      expect(refreshed.status).toBe(200);
      expect(await audienceOf(as, refreshed.body.access_token as string)).toBe(MCP_RESOURCE);
    });

    it('not to a client registered without the refresh_token grant, even with offline_access', async () => {
      const { body } = await tokensFor(as, { scope: 'vault:read offline_access', prompt: 'consent', grantTypes: ['authorization_code'] });
      expect(body).not.toHaveProperty('refresh_token');
      expect(typeof body.access_token).toBe('string');
    });

    it.each([`${WORKER}/mcp/vaults/team-notes`, 'https://elsewhere.example/mcp'])(
      'refuses a refresh for %s, which was not granted (invalid_target, RFC 8707 section 2.2)',
      async (resource) => {
        const { clientId, body } = await tokensFor(as);
        const refreshed = await refresh(as, clientId, body.refresh_token as string, { resource });
        expect(refreshed.status).toBe(400);
        expect(refreshed.body.error).toBe('invalid_target');
      },
    );
  });

  it('names itself with iss on a redirect that carries a code (RFC 9207 section 2)', async () => {
    const clientId = await registeredClientId(`${as.issuer}/reg`, publicClient([LOOPBACK_REDIRECT]));
    const callback = await authorizeToCallback(codeRequest(as, clientId, LOOPBACK_REDIRECT, pkce()), LOOPBACK_REDIRECT);
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(callback.searchParams.get('iss')).toBe(as.issuer);
  });
});

describe('local authorization server: a vault the user may not read is refused before any page (consent page on)', () => {
  let as: AuthServer;

  beforeAll(async () => {
    as = await startAuthServer({ resourceOrigin: WORKER, user: USER });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('answers the authorization request itself with invalid_target, state and iss (RFC 8707 section 2, RFC 9207)', async () => {
    const clientId = await registeredClientId(`${as.issuer}/reg`, publicClient([LOOPBACK_REDIRECT]));
    const jar = new CookieJar();
    const { callback, hops } = await followRedirects(codeRequest(as, clientId, LOOPBACK_REDIRECT, pkce(), { resource: `${WORKER}/mcp/vaults/secret` }), LOOPBACK_REDIRECT, jar);
    // The first answer is the redirect to the client: no sign-in or consent page came first.
    expect(hops).toBe(0);
    expect(callback?.searchParams.get('error')).toBe('invalid_target');
    expect(callback?.searchParams.get('state')).toBe('state-123');
    expect(callback?.searchParams.get('iss')).toBe(as.issuer);
    expect(callback?.searchParams.get('code')).toBeNull();
  });

  it.each(['default', 'team-notes'])('shows the consent page for vault %s, which the user may read', async (vault) => {
    const clientId = await registeredClientId(`${as.issuer}/reg`, publicClient([LOOPBACK_REDIRECT]));
    const { callback, last } = await followRedirects(codeRequest(as, clientId, LOOPBACK_REDIRECT, pkce(), { resource: `${WORKER}/mcp/vaults/${vault}` }), LOOPBACK_REDIRECT);
    expect(callback).toBeUndefined();
    expect(last.response.status).toBe(200);
    expect(await last.response.text()).toContain(`${WORKER}/mcp/vaults/${vault}`);
  });
});
