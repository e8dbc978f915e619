// Types for demo/auth-server.mjs (kept in step with its JSDoc).

/** The one account the local authorization server signs in, and the project claims it carries. */
export interface DemoUser {
  sub: string;
  role: string;
  allowedVaultIds: string[];
  effectiveCanisterUserId: string;
  name: string;
}

export interface AuthServerOptions {
  /** Loopback address to listen on (default 127.0.0.1). */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** The Worker's public origin, e.g. 'http://127.0.0.1:8787'; a function when it is known only after start. */
  resourceOrigin: string | (() => string);
  /** Default: sub 'demo', role 'viewer', allowedVaultIds ['default'], effectiveCanisterUserId 'demo', name 'Demo user'. */
  user?: DemoUser;
  /** Sign the user in and grant consent without a page (tests), for loopback redirect URIs only; any other gets the page. Default false. */
  autoApprove?: boolean;
  /** Lifetime of access tokens in seconds (default 3600). */
  accessTokenTtlSeconds?: number;
  /** Dynamic registrations accepted per start; later ones are 429 (default 200). */
  maxRegisteredClients?: number;
}

export interface SignAccessTokenOptions {
  /** Becomes `aud`. */
  resource: string;
  /** Negative for an already-expired token. */
  expiresInSeconds: number;
  /** Added last, so they override the default claims. */
  claims?: Record<string, unknown>;
}

export interface AuthServer {
  /** e.g. 'http://127.0.0.1:8790' (no trailing slash). */
  issuer: string;
  /** The JWK set access tokens verify with (the Worker's JWT_JWKS_URL): `${issuer}/jwks`. */
  jwksUrl: string;
  port: number;
  /** Test-only: an access token signed with this server's key, in the same claim shape as issued ones. */
  signAccessToken(options: SignAccessTokenOptions): Promise<string>;
  /** Stops listening and closes every open connection. */
  close(): Promise<void>;
}

export function startAuthServer(options: AuthServerOptions): Promise<AuthServer>;
/** The scope this server grants for the Worker's resources. */
export const READ_SCOPE: 'vault:read';
/** True when `resource` is `<origin>`, `<origin>/`, `<origin>/mcp` or `<origin>/mcp/vaults/<id>` (exact text). */
export function isAllowedResource(resource: string, origin: string): boolean;
export function escapeHtml(value: unknown): string;
