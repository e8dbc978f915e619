/**
 * A stand-in for the Knowtation Hub's MCP authorization server as the Hub's code states it
 * (aaronrene/knowtation: hub/gateway/server.mjs mounts the MCP SDK v1 `mcpAuthRouter` at its base
 * URL with scopes vault:read, vault:write and vault:admin and the SDK's own rate limits;
 * hub/gateway/mcp-oauth-provider.mjs is the provider). The router here is the real SDK v1 router
 * from node_modules; the provider is written to that provider's behaviour:
 *  - clients registered dynamically, in memory (at most 500, the oldest dropped), 20 registrations
 *    per address per hour (the SDK's limit), any redirect URI the SDK's schema takes;
 *  - an authorization sends the browser to the Hub's sign-in (`/auth/login?provider=google&mcp_state=...`);
 *    here that sign-in either approves a fixed Google user at once (`signIn: 'auto'`, a stand-in for
 *    Google that remembers the user) or goes on to Google as the Hub's does (`signIn: 'google'`);
 *  - access tokens are HS256 JWTs signed with the session secret, `{sub, client_id, scopes: [...],
 *    type: 'mcp_access', iat, exp}` for an hour, with no aud, no iss and no hosted context; the
 *    requested resource is ignored;
 *  - refresh tokens are opaque, rotated at each use with the used one deleted, so a replay is an
 *    unknown token, which the provider throws as a plain Error and the SDK answers 500 server_error;
 *  - no RFC 9207 iss, no key set, no client ID metadata documents, no offline_access in scopes_supported.
 * The Hub's lock pins SDK 1.27.1, whose authorization handler compares redirect_uri exactly; the SDK
 * in node_modules (1.32.2) lets a loopback redirect URI come back on any port (RFC 8252 section 7.3).
 * `redirectUriMatching: 'exact'` (the default) puts 1.27.1's comparison in front of the router.
 * `refreshReplay` says what a used refresh token gets: the Hub's plain Error (500, the default),
 * OAuth's invalid_grant, (`grace`) a new pair until its successor is first used, then invalid_grant,
 * or (`kept`) a new pair for as long as it lives: rotation that never invalidates.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, jwtVerify } from 'jose';
import { InvalidGrantError, InvalidRequestError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** Express's request and response as the routes here use them (the SDK's own types name express's). */
interface RouteRequest {
  method: string;
  body?: unknown;
  query: Record<string, unknown>;
}
type RouteResponse = Parameters<OAuthServerProvider['authorize']>[2];

const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_SECONDS = 86_400;
const CODE_TTL_MS = 5 * 60_000;
const MAX_CLIENTS = 500;
/** The Google user the stand-in sign-in approves (the Hub's user ids are `<provider>:<id>`). */
export const HUB_USER_ID = 'google:104729';

export interface HubLikeAuthServerOptions {
  /** The Hub's SESSION_SECRET. */
  sessionSecret: string;
  signIn?: 'auto' | 'google';
  redirectUriMatching?: 'exact' | 'sdk';
  refreshReplay?: 'server_error' | 'invalid_grant' | 'grace' | 'kept';
}

export interface HubLikeAuthServer {
  /** The issuer as the SDK publishes it: the base URL's href, with its trailing slash. */
  issuer: string;
  origin: string;
  close(): Promise<void>;
}

interface PendingCode {
  clientId: string;
  codeChallenge: string;
  redirectUri: string;
  state?: string;
  scopes: string[];
  userId?: string;
  expires: number;
}

interface StoredRefresh {
  clientId: string;
  userId: string;
  scopes: string[];
  expires: number;
  /** With `grace`: the used token this one replaced, valid until this one is first used. */
  predecessor?: string;
}

class HubClientsStore implements OAuthRegisteredClientsStore {
  readonly clients = new Map<string, OAuthClientInformationFull>();

  getClient(clientId: string): OAuthClientInformationFull | undefined {
    return this.clients.get(clientId);
  }

  registerClient(client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>): OAuthClientInformationFull {
    if (this.clients.size >= MAX_CLIENTS) {
      const oldest = [...this.clients.values()].reduce((a, b) => ((a.client_id_issued_at ?? 0) <= (b.client_id_issued_at ?? 0) ? a : b));
      this.clients.delete(oldest.client_id);
    }
    const full = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
    this.clients.set(full.client_id, full);
    return full;
  }
}

class HubLikeProvider implements OAuthServerProvider {
  readonly clientsStore = new HubClientsStore();
  private readonly pendingCodes = new Map<string, PendingCode>();
  private readonly refreshTokens = new Map<string, StoredRefresh>();
  private readonly key: Uint8Array;

  constructor(
    sessionSecret: string,
    private readonly loginUrl: () => string,
    private readonly refreshReplay: NonNullable<HubLikeAuthServerOptions['refreshReplay']>,
  ) {
    this.key = new TextEncoder().encode(sessionSecret);
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: RouteResponse): Promise<void> {
    const code = randomUUID();
    this.pendingCodes.set(code, {
      clientId: client.client_id,
      codeChallenge: params.codeChallenge,
      redirectUri: params.redirectUri,
      state: params.state,
      scopes: params.scopes ?? [],
      expires: Date.now() + CODE_TTL_MS,
    });
    const mcpState = Buffer.from(JSON.stringify({ code, clientId: client.client_id, redirectUri: params.redirectUri, state: params.state })).toString('base64url');
    const login = new URL(this.loginUrl());
    login.searchParams.set('provider', 'google');
    login.searchParams.set('mcp_state', mcpState);
    res.redirect(login.href);
  }

  /** The Hub's sign-in callback: binds the code to the signed-in user and sends the browser back to the client. */
  completeAuthorization(mcpState: string, userId: string, res: RouteResponse): void {
    let state: { code?: string; clientId?: string; redirectUri?: string; state?: string };
    try {
      state = JSON.parse(Buffer.from(mcpState, 'base64url').toString());
    } catch {
      res.status(400).json({ error: 'invalid_mcp_state' });
      return;
    }
    const pending = this.pendingCodes.get(String(state.code));
    if (!pending || pending.clientId !== state.clientId || Date.now() > pending.expires) {
      res.status(400).json({ error: 'invalid_or_expired_code' });
      return;
    }
    pending.userId = userId;
    const redirect = new URL(String(state.redirectUri));
    redirect.searchParams.set('code', String(state.code));
    if (state.state) redirect.searchParams.set('state', state.state);
    res.redirect(redirect.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const pending = this.pendingCodes.get(code);
    if (!pending) throw new Error('Unknown authorization code');
    return pending.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const pending = this.pendingCodes.get(code);
    if (!pending) throw new Error('Unknown authorization code');
    if (pending.clientId !== client.client_id) throw new Error('Client mismatch');
    if (Date.now() > pending.expires) {
      this.pendingCodes.delete(code);
      throw new Error('Authorization code expired');
    }
    if (!pending.userId) throw new Error('Authorization not completed');
    this.pendingCodes.delete(code);
    const scopes = pending.scopes.length > 0 ? pending.scopes : ['vault:read'];
    return this.issue(client.client_id, pending.userId, scopes);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[]): Promise<OAuthTokens> {
    const stored = this.refreshTokens.get(refreshToken);
    if (!stored) {
      if (this.refreshReplay === 'server_error') throw new Error('Unknown refresh token');
      throw new InvalidGrantError('Unknown refresh token');
    }
    if (stored.clientId !== client.client_id) throw new Error('Client mismatch');
    if (Math.floor(Date.now() / 1000) > stored.expires) {
      this.refreshTokens.delete(refreshToken);
      throw new Error('Refresh token expired');
    }
    if (this.refreshReplay === 'kept') {
      // Rotated, never invalidated.
    } else if (this.refreshReplay === 'grace') {
      // The first use of a token ends its predecessor; the token itself lives until its successor is used.
      if (stored.predecessor) this.refreshTokens.delete(stored.predecessor);
    } else {
      this.refreshTokens.delete(refreshToken);
    }
    const effective = scopes && scopes.length > 0 ? scopes.filter((scope) => stored.scopes.includes(scope)) : stored.scopes;
    return this.issue(client.client_id, stored.userId, effective, this.refreshReplay === 'grace' ? refreshToken : undefined);
  }

  async verifyAccessToken(token: string) {
    const { payload } = await jwtVerify(token, this.key);
    if (payload.type !== 'mcp_access') throw new Error('Not an MCP access token');
    return { token, clientId: String(payload.client_id), scopes: (payload.scopes as string[]) ?? [], expiresAt: payload.exp, extra: { sub: payload.sub } };
  }

  private async issue(clientId: string, userId: string, scopes: string[], predecessor?: string): Promise<OAuthTokens> {
    const accessToken = await new SignJWT({ sub: userId, client_id: clientId, scopes, type: 'mcp_access' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_SECONDS}s`)
      .sign(this.key);
    const refreshToken = randomUUID();
    this.refreshTokens.set(refreshToken, { clientId, userId, scopes, expires: Math.floor(Date.now() / 1000) + REFRESH_TOKEN_SECONDS, ...(predecessor ? { predecessor } : {}) });
    return { access_token: accessToken, token_type: 'bearer', expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refreshToken, scope: scopes.join(' ') };
  }
}

/** Starts the stand-in on a loopback port. */
export async function startHubLikeAuthServer({
  sessionSecret,
  signIn = 'auto',
  redirectUriMatching = 'exact',
  refreshReplay = 'server_error',
}: HubLikeAuthServerOptions): Promise<HubLikeAuthServer> {
  let origin = '';
  const provider = new HubLikeProvider(sessionSecret, () => `${origin}/auth/login`, refreshReplay);
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    listening.once('error', reject);
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  if (redirectUriMatching === 'exact') {
    // SDK 1.27.1's authorization handler: a redirect_uri is one of the client's, exactly.
    app.use('/authorize', async (req: RouteRequest, res: RouteResponse, next: () => void) => {
      const params = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown>;
      const client = typeof params.client_id === 'string' ? provider.clientsStore.getClient(params.client_id) : undefined;
      if (client && typeof params.redirect_uri === 'string' && !client.redirect_uris.includes(params.redirect_uri)) {
        res.status(400).json(new InvalidRequestError('Unregistered redirect_uri').toResponseObject());
        return;
      }
      next();
    });
  }
  // As the Hub mounts it: the issuer is the base URL, the SDK's rate limits stay on, their validations off.
  const rateLimitOptions = { rateLimit: { validate: false } };
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(origin),
      scopesSupported: ['vault:read', 'vault:write', 'vault:admin'],
      authorizationOptions: rateLimitOptions,
      tokenOptions: rateLimitOptions,
      clientRegistrationOptions: rateLimitOptions,
      revocationOptions: rateLimitOptions,
    }),
  );
  // The Hub's sign-in: on to Google, whose callback completes the MCP authorization.
  app.get('/auth/login', (req: RouteRequest, res: RouteResponse) => {
    const mcpState = typeof req.query.mcp_state === 'string' ? req.query.mcp_state : '';
    if (signIn === 'auto') {
      provider.completeAuthorization(mcpState, HUB_USER_ID, res);
      return;
    }
    const google = new URL('https://accounts.google.com/o/oauth2/v2/auth');
    google.searchParams.set('response_type', 'code');
    google.searchParams.set('redirect_uri', `${origin}/auth/callback/google`);
    google.searchParams.set('scope', 'profile');
    google.searchParams.set('state', `mcp:${mcpState}`);
    res.redirect(google.href);
  });

  return {
    issuer: new URL(origin).href,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
