/**
 * A deliberately non-conformant OAuth authorization server for check-hub's tests, shaped like a
 * provider that predates the Hub contract: OpenID discovery only, an issuer with a trailing slash
 * the tokens do not carry, no registration (one pre-registered client), no PKCE (challenges are
 * ignored), no resource indicators (any resource gets a token), no RFC 9207 `iss`, no refresh
 * tokens. Its access tokens are HS256 JWTs without `aud`, `iss`, `client_id` or `jti`, `typ: JWT`,
 * for a day, signed with `secret`; or, with `keySet`, tokens that look like RFC 9068 access tokens
 * (ES256, `typ: at+jwt`, a kid its published key set has, every RFC 9068 claim, an hour), so that
 * one lying claim at a time can be put in them. It approves every request at once (no page).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';

export const NONCONFORMANT_CLIENT_ID = 'hub-static-client';
const DAY_SECONDS = 24 * 60 * 60;
const HOUR_SECONDS = 60 * 60;

export interface NonconformantAuthServer {
  /** The issuer check-hub is told to expect (no trailing slash); the metadata says `${issuer}/`. */
  issuer: string;
  /** The HS256 secret its shared-secret tokens are signed with (the Worker's SESSION_SECRET). */
  secret: string;
  close(): Promise<void>;
}

export interface NonconformantOptions {
  /** Issue RFC 9068-looking ES256 tokens verifiable with a published key set, with the claims as given. */
  keySet?: boolean;
  /** With keySet: the key set answers a redirect to this URL instead of the keys. */
  jwksRedirect?: string;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Starts the server on a loopback port; `redirectUri` is the one redirect URI its client has.
 * `extraClaims` are put in every access token last (an `aud`, say, or a lying claim).
 */
export async function startNonconformantAuthServer(
  redirectUri: string,
  extraClaims: Record<string, unknown> = {},
  { keySet = false, jwksRedirect }: NonconformantOptions = {},
): Promise<NonconformantAuthServer> {
  const secretText = randomBytes(32).toString('base64url');
  const secret = new TextEncoder().encode(secretText);
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const codes = new Set<string>();
  let issuer = '';

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      sendJson(res, 200, {
        issuer: `${issuer}/`,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
        scopes_supported: ['vault:read'],
        ...(keySet ? { jwks_uri: `${issuer}/jwks` } : {}),
      });
      return;
    }
    if (keySet && req.method === 'GET' && url.pathname === '/jwks' && jwksRedirect) {
      res.writeHead(302, { location: jwksRedirect }).end();
      return;
    }
    if (keySet && req.method === 'GET' && url.pathname === '/jwks') {
      sendJson(res, 200, { keys: [{ ...publicJwk, kid, alg: 'ES256', use: 'sig' }] });
      return;
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      if (url.searchParams.get('client_id') !== NONCONFORMANT_CLIENT_ID || url.searchParams.get('redirect_uri') !== redirectUri) {
        sendJson(res, 400, { error: 'invalid_request' });
        return;
      }
      const code = randomBytes(16).toString('base64url');
      codes.add(code);
      const target = new URL(redirectUri);
      target.searchParams.set('code', code);
      const state = url.searchParams.get('state');
      if (state !== null) target.searchParams.set('state', state);
      res.writeHead(302, { location: target.href });
      res.end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      readForm(req).then(async (form) => {
        if (form.get('grant_type') !== 'authorization_code') {
          sendJson(res, 400, { error: 'unsupported_grant_type' });
          return;
        }
        const code = form.get('code') ?? '';
        if (!codes.delete(code)) {
          sendJson(res, 400, { error: 'invalid_grant' });
          return;
        }
        const now = Math.floor(Date.now() / 1000);
        const accessToken = keySet
          ? await new SignJWT({
              iss: issuer,
              sub: 'demo',
              client_id: NONCONFORMANT_CLIENT_ID,
              jti: randomUUID(),
              scope: 'vault:read',
              role: 'viewer',
              iat: now,
              exp: now + HOUR_SECONDS,
              ...extraClaims,
            })
              .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
              .sign(privateKey)
          : await new SignJWT({ type: 'mcp_access', scope: 'vault:read', role: 'viewer', sub: 'demo', iat: now, exp: now + DAY_SECONDS, ...extraClaims })
              .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
              .sign(secret);
        const lifetime = keySet ? HOUR_SECONDS : DAY_SECONDS;
        sendJson(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: lifetime });
      }, () => sendJson(res, 500, { error: 'server_error' }));
      return;
    }
    sendJson(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    secret: secretText,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
