// @ts-check
/**
 * The local authorization server's rules for OAuth clients (demo/auth-server.mjs): which redirect
 * URIs a client may register, which clients are native apps, and how much registration it takes.
 * The rules are what the Hub's authorization server must do for the connectors (docs/AUTH.md,
 * "What the Hub's authorization server must issue"); `npm run check-hub` checks them.
 */
import * as oidcErrors from 'oidc-provider/lib/helpers/errors.js';
import { isLoopbackHost } from './loopback.mjs';

/** Largest registration request body (RFC 7591 section 3.1), in bytes; real clients send well under 1 KiB. */
export const MAX_REGISTRATION_BYTES = 8 * 1024;
/** Most redirect URIs one client may register (VS Code sends four, Cursor three). */
export const MAX_REDIRECT_URIS = 10;
/** Most dynamic registrations one start of the server accepts (everything lives in memory). */
export const DEFAULT_MAX_REGISTERED_CLIENTS = 200;
/** Most of those from one web page's origin (the MCP Inspector registers once per connection). */
export const MAX_REGISTERED_CLIENTS_PER_ORIGIN = 20;

/** Loopback hosts of a redirect URI, as URL.hostname writes them (the set oidc-provider admits for native clients). */
const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A private-use URI scheme as RFC 8252 section 7.1 has native apps choose one: a domain name the
 * app's maker controls, written in reverse (`com.example.app`), so two or more DNS labels joined by
 * periods. A scheme without a period (`mailto`, `tel`, `intent`, `chrome-extension`, `ms-settings`,
 * `javascript`, `file`, ...) is not one: browsers and operating systems give such schemes their
 * own meaning, and an authorization code sent there would be run, shown or handed to an unrelated
 * handler.
 */
const REVERSE_DOMAIN_SCHEME = /^[a-z](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+:$/;

/**
 * The one app scheme without a period taken as private-use: Cursor's (`cursor://anysphere.cursor-mcp/...`),
 * which it sends in every registration (scripts/lib/connector-clients.ts); refusing it would refuse
 * Cursor altogether. Nothing else outside REVERSE_DOMAIN_SCHEME is.
 */
const NAMED_APP_SCHEMES = new Set(['cursor:']);

/**
 * Why a redirect URI cannot be registered, or undefined when it can. Allowed are exactly: https
 * with a host (RFC 6749 section 3.1.2, OAuth 2.1 section 2.3.1), http on a loopback host (RFC 8252
 * section 7.3), and a private-use scheme (RFC 8252 section 7.1: REVERSE_DOMAIN_SCHEME, or
 * NAMED_APP_SCHEMES) followed by something; never a fragment (RFC 6749 section 3.1.2), never
 * userinfo.
 * @param {unknown} uri
 * @returns {string | undefined}
 */
export function redirectUriProblem(uri) {
  if (typeof uri !== 'string') return 'redirect_uris must be strings';
  const parsed = URL.parse(uri);
  if (!parsed) return 'redirect_uris must be absolute URIs';
  if (uri.includes('#')) return 'redirect_uris must not contain fragments';
  if (parsed.username || parsed.password) return 'redirect_uris must not carry userinfo';
  if (parsed.protocol === 'http:') {
    return LOOPBACK_HOSTNAMES.has(parsed.hostname) ? undefined : 'redirect_uris using http must use a loopback host';
  }
  if (parsed.protocol === 'https:') return parsed.hostname ? undefined : 'redirect_uris using https must name a host';
  if (!REVERSE_DOMAIN_SCHEME.test(parsed.protocol) && !NAMED_APP_SCHEMES.has(parsed.protocol)) {
    return 'redirect_uris must be https, http on a loopback host, or a private-use scheme named by a reverse domain name (com.example.app:/callback)';
  }
  return parsed.host || parsed.pathname ? undefined : 'redirect_uris with a private-use scheme must name a path';
}

/**
 * True for an http redirect URI on a loopback host: the browser hands the code to a program on
 * this machine.
 * @param {unknown} uri
 */
export function isLoopbackRedirectUri(uri) {
  const parsed = typeof uri === 'string' ? URL.parse(uri) : null;
  return parsed !== null && parsed.protocol === 'http:' && LOOPBACK_HOSTNAMES.has(parsed.hostname);
}

/**
 * True for a redirect URI only a native app receives (RFC 8252): loopback http or a private-use
 * scheme. The MCP SDK derives `application_type: native` from the same rule.
 * @param {unknown} uri
 */
function isNativeRedirectUri(uri) {
  const parsed = typeof uri === 'string' ? URL.parse(uri) : null;
  if (!parsed) return false;
  if (parsed.protocol === 'https:') return false;
  return parsed.protocol !== 'http:' || LOOPBACK_HOSTNAMES.has(parsed.hostname);
}

/**
 * This server's rules for a client's metadata (a registration or a client ID metadata document),
 * applied before oidc-provider validates it:
 *  - at most MAX_REDIRECT_URIS redirect URIs, each acceptable to redirectUriProblem;
 *  - a client with a native redirect URI is `application_type: native`, whatever it sent: Cursor
 *    registers `cursor://...` without `application_type` (or with `web`), which oidc-provider
 *    admits for native clients only, and RFC 8252 section 7.3 (any loopback port at request time,
 *    as VS Code needs) applies to native clients only (RFC 7591 section 2 lets the server replace
 *    a value);
 *  - a registered `scope` keeps only the OpenID Connect scopes. MCP clients register with the
 *    scope they will request (`vault:read`), which oidc-provider would refuse as unknown: it checks
 *    a client's scope against its OpenID Connect scopes only, and uses it as an allowlist of those
 *    only, so a resource scope there has no effect (RFC 7591 section 2 lets the server replace it).
 * @param {Record<string, unknown>} metadata modified in place
 * @param {readonly string[]} oidcScopes
 */
export function applyClientRules(metadata, oidcScopes) {
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new oidcErrors.InvalidClientMetadata(`redirect_uris must have at most ${MAX_REDIRECT_URIS} members`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new oidcErrors.InvalidClientMetadata(problem);
  }
  if (uris.some(isNativeRedirectUri)) metadata.application_type = 'native';
  if (typeof metadata.scope === 'string') {
    const kept = metadata.scope.split(' ').filter((scope) => oidcScopes.includes(scope));
    if (kept.length) metadata.scope = kept.join(' ');
    else delete metadata.scope;
  }
}

/**
 * True for an Origin a page on this machine sends: http or https on a loopback host, any port (the
 * MCP Inspector's is http://localhost:6274 or http://127.0.0.1:6274). `null` and every other
 * origin are not.
 * @param {string} origin
 */
export function isLoopbackOrigin(origin) {
  const parsed = URL.parse(origin);
  return parsed !== null && (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.origin === origin && isLoopbackHost(parsed.hostname);
}

/**
 * Koa middleware for the registration endpoint (RFC 7591 section 3), in front of oidc-provider's:
 *  - a registration from a web page (a request with `Origin`) only from a loopback origin: CORS,
 *    preflight included, is answered for those alone (no credentials), so a browser-based client
 *    on this machine (the MCP Inspector) can register and no other page can; a POST with any
 *    other `Origin` is refused (403) before anything is read, as a page may send a form POST
 *    without a preflight. Native clients send no `Origin`;
 *  - at most `maxClientsPerOrigin` successful registrations per loopback origin per start, so one
 *    page cannot take what the others and the native clients need;
 *  - a body of at most MAX_REGISTRATION_BYTES, declared up front (413, or 411 without a length);
 *  - at most `maxClients` successful registrations per start (429 after that).
 * @param {{ path: string, maxClients: number, maxClientsPerOrigin?: number }} options
 */
export function registrationGuard({ path, maxClients, maxClientsPerOrigin = MAX_REGISTERED_CLIENTS_PER_ORIGIN }) {
  let registered = 0;
  /** @type {Map<string, number>} successful registrations by loopback origin */
  const registeredByOrigin = new Map();
  /**
   * @param {any} ctx Koa context
   * @param {() => Promise<void>} next
   */
  return async function guardRegistration(ctx, next) {
    if (ctx.path !== path) return next();
    ctx.vary('Origin');
    const origin = ctx.get('Origin');
    const fromPage = ctx.headers.origin !== undefined;
    const fromLoopbackPage = fromPage && isLoopbackOrigin(origin);
    if (fromLoopbackPage) ctx.set('Access-Control-Allow-Origin', origin);
    if (ctx.method === 'OPTIONS' && fromPage && ctx.get('Access-Control-Request-Method')) {
      if (!fromLoopbackPage) {
        ctx.status = 403;
        return undefined;
      }
      ctx.set('Access-Control-Allow-Methods', 'POST');
      const requested = ctx.get('Access-Control-Request-Headers');
      if (requested) ctx.set('Access-Control-Allow-Headers', requested);
      ctx.set('Access-Control-Max-Age', '3600');
      ctx.status = 204;
      return undefined;
    }
    if (ctx.method !== 'POST') return next();
    if (fromPage && !fromLoopbackPage) {
      refuse(ctx, 403, 'access_denied', 'registration from a web page is open to loopback origins only');
      return undefined;
    }

    const length = ctx.request.length;
    if (length === undefined) {
      refuse(ctx, 411, 'invalid_request', 'a registration request must declare its Content-Length');
      return undefined;
    }
    if (length > MAX_REGISTRATION_BYTES) {
      refuse(ctx, 413, 'invalid_client_metadata', `client metadata must be at most ${MAX_REGISTRATION_BYTES} bytes`);
      return undefined;
    }
    if (registered >= maxClients) {
      refuse(ctx, 429, 'temporarily_unavailable', `this server has registered its limit of ${maxClients} clients; restart it`);
      return undefined;
    }
    const byOrigin = fromPage ? (registeredByOrigin.get(origin) ?? 0) : 0;
    if (fromPage && byOrigin >= maxClientsPerOrigin) {
      refuse(ctx, 429, 'temporarily_unavailable', `this server has registered its limit of ${maxClientsPerOrigin} clients for this origin; restart it`);
      return undefined;
    }
    // Counted before the registration runs, so concurrent requests cannot pass the limits together.
    registered += 1;
    if (fromPage) registeredByOrigin.set(origin, byOrigin + 1);
    try {
      await next();
    } finally {
      if (ctx.status !== 201) {
        registered -= 1;
        if (fromPage) registeredByOrigin.set(origin, (registeredByOrigin.get(origin) ?? 1) - 1);
      }
    }
    return undefined;
  };
}

/**
 * @param {any} ctx Koa context
 * @param {number} status
 * @param {string} error
 * @param {string} description
 */
function refuse(ctx, status, error, description) {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}
