/**
 * A deliberately non-conformant OAuth authorization server for check-hub's tests, shaped like a
 * provider that predates the Hub contract: OpenID discovery only, an issuer with a trailing slash
 * the tokens do not carry, no registration (one pre-registered client), no PKCE (challenges are
 * ignored), no resource indicators (any resource gets a token), no RFC 9207 `iss`, no key set, no
 * refresh tokens, and access tokens that are HS256 JWTs without `aud`, `iss`, `client_id` or `jti`,
 * `typ: JWT`, for a day. It approves every request at once (no page).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';

export const NONCONFORMANT_CLIENT_ID = 'hub-static-client';
const DAY_SECONDS = 24 * 60 * 60;

export interface NonconformantAuthServer {
  /** The issuer check-hub is told to expect (no trailing slash); the metadata says `${issuer}/`. */
  issuer: string;
  close(): Promise<void>;
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
 * `extraClaims` are added to every access token (an `aud`, say).
 */
export async function startNonconformantAuthServer(redirectUri: string, extraClaims: Record<string, unknown> = {}): Promise<NonconformantAuthServer> {
  const secret = new TextEncoder().encode(randomBytes(32).toString('base64url'));
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
      });
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
        const accessToken = await new SignJWT({ type: 'mcp_access', scope: 'vault:read', role: 'viewer', ...extraClaims })
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
          .setSubject('demo')
          .setIssuedAt()
          .setExpirationTime(`${DAY_SECONDS}s`)
          .sign(secret);
        sendJson(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: DAY_SECONDS });
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
