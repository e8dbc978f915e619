// @ts-check
/**
 * Local OAuth 2.1 authorization server for the demo, built on oidc-provider. `npm start` and the
 * e2e tests run it on a loopback port next to the Worker, so that OAuth-only MCP clients (MCP SDK
 * clients with an OAuthClientProvider, mcp-remote, connector-style clients) can run the whole
 * flow on one machine: discovery, dynamic registration, authorization code + PKCE, consent,
 * token exchange for one resource, refresh. It behaves as the Hub's authorization server must
 * (docs/AUTH.md); `npm run check-hub` checks both.
 *
 * What it issues: for a resource of the Worker (`<origin>`, `<origin>/mcp` or
 * `<origin>/mcp/vaults/<id>`), an RFC 9068 JWT access token (header `typ: at+jwt`, ES256 with a key
 * generated at start and published at `<issuer>/jwks`) with `aud` = that resource, `scope`
 * (space-separated, at most `vault:read`), `client_id`, `iss`, `sub`, `iat`, `exp`, `jti` and the
 * project's claims `role`, `allowed_vault_ids`, `effective_canister_user_id` for the one configured
 * demo user. Any other resource, and a vault endpoint of a vault the demo user may not read, is
 * `invalid_target` (RFC 8707 section 2), before any page is shown.
 *
 * Guards: binds a loopback address; a Host header other than its own `127.0.0.1:<port>` or
 * `localhost:<port>` is answered 421 before oidc-provider sees the request (DNS rebinding, the
 * same rule as demo/explorer/server.mjs); redirect URIs follow demo/lib/oauth-clients.mjs (an
 * allowlist: https, loopback http, reverse-domain private-use schemes and Cursor's; never a
 * fragment); registration is open to web pages on loopback origins only and is bounded in size,
 * in count and in count per origin;
 * PKCE S256 is required of every client; automatic approval (tests, `npm start -- --auto-approve`)
 * applies to loopback redirect URIs only; the consent page escapes every dynamic value and carries
 * a strict CSP; the Approve/Deny POSTs are refused from another origin.
 *
 * Nothing is persisted: keys, cookie keys, clients, grants and tokens live in memory for one start.
 * Nothing is logged but real server errors, and never a token or code. Types for TypeScript callers
 * live in auth-server.d.mts next to this file.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { isAddressedTo, isLoopbackHost, ownHostValues, urlHost } from './lib/loopback.mjs';
// The package entry (oidc-provider/lib/index.js) only re-exports these modules, after printing an
// "unsupported runtime" warning on any Node release older than 22 LTS. This project runs on Node 20
// and is tested there, so the modules are imported directly to keep the start quiet.
import { Provider } from 'oidc-provider/lib/provider.js';
import * as oidcErrors from 'oidc-provider/lib/helpers/errors.js';
// A memory adapter factory gives each server its own store (the default adapter shares one module-wide
// store between providers and warns at start that it is for development only, which this is).
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import {
  DEFAULT_MAX_REGISTERED_CLIENTS,
  applyClientRules,
  isLoopbackRedirectUri,
  registrationGuard,
} from './lib/oauth-clients.mjs';

/**
 * @typedef {import('node:http').IncomingMessage} IncomingMessage
 * @typedef {import('node:http').ServerResponse} ServerResponse
 *
 * oidc-provider ships no type declarations; these name the parts of its objects used here.
 * @typedef {any} KoaContext oidc-provider's Koa request context
 * @typedef {{ clientAuthMethod: string, redirectUris: string[], grantTypeAllowed(type: string): boolean,
 *   metadata(): Record<string, unknown> }} OidcClient
 *
 * @typedef {object} DemoUser
 * @property {string} sub
 * @property {string} role
 * @property {string[]} allowedVaultIds
 * @property {string} effectiveCanisterUserId
 * @property {string} name
 *
 * @typedef {object} AuthServerOptions
 * @property {string} [host] loopback address to listen on (default 127.0.0.1)
 * @property {number} [port] 0 picks a free port
 * @property {string | (() => string)} resourceOrigin the Worker's public origin; a function when it
 *   is known only after this server starts
 * @property {DemoUser} [user] the one account that can sign in
 * @property {boolean} [autoApprove] sign in and consent without a page (tests), for loopback
 *   redirect URIs only
 * @property {number} [accessTokenTtlSeconds] lifetime of access tokens (default 3600)
 * @property {number} [maxRegisteredClients] dynamic registrations accepted per start (default 200)
 *
 * @typedef {object} SignAccessTokenOptions
 * @property {string} resource becomes `aud`
 * @property {number} expiresInSeconds negative for an already-expired token
 * @property {Record<string, unknown>} [claims] added last, so they override the defaults
 */

/** The one scope this server grants; the Worker's read routes and MCP tools need it. */
export const READ_SCOPE = 'vault:read';
/** oidc-provider's own (OpenID Connect) scopes; READ_SCOPE is a resource scope beside them. */
const OIDC_SCOPES = ['openid', 'offline_access'];
const ACCESS_TOKEN_ALG = 'ES256';
const VAULT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const REGISTRATION_PATH = '/reg';
const DAY_SECONDS = 24 * 60 * 60;
const RFC8414_PATH = '/.well-known/oauth-authorization-server';
const OIDC_DISCOVERY_PATH = '/.well-known/openid-configuration';
const INTERACTION_PATH = /^\/interaction\/([A-Za-z0-9_-]{1,64})(?:\/(approve|deny))?$/;

/** @type {DemoUser} */
const DEFAULT_USER = {
  sub: 'demo',
  role: 'viewer',
  allowedVaultIds: ['default'],
  effectiveCanisterUserId: 'demo',
  name: 'Demo user',
};

const PAGE_STYLE = [
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}',
  'h1{font-size:1.4rem}',
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}',
  'dt{font-weight:600}',
  'dd{margin:0;overflow-wrap:anywhere}',
  'code{background:#f2f2f2;padding:0 .2rem}',
  '.actions{display:flex;gap:1rem;margin-top:2rem}',
  'button{font-size:1rem;padding:.5rem 1.5rem;cursor:pointer}',
  '.approve{background:#1f6feb;color:#fff;border:0}',
].join('');
const PAGE_STYLE_HASH = `'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`;

/**
 * Escapes text for HTML element content and double- or single-quoted attribute values.
 * @param {unknown} value
 */
export function escapeHtml(value) {
  return String(value)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/**
 * True when `resource` is exactly one of the Worker's protected resources: the bare origin (with
 * or without the trailing `/`), `<origin>/mcp` or `<origin>/mcp/vaults/<id>`. The raw string is
 * compared, not a parsed and normalized URL, so `..`, percent-encoding, a query or a fragment
 * never slip through; the issued `aud` is this same string.
 * @param {string} resource
 * @param {string} origin normalized origin, no trailing slash
 */
export function isAllowedResource(resource, origin) {
  if (resource === origin || resource === `${origin}/` || resource === `${origin}/mcp`) return true;
  const vaultPrefix = `${origin}/mcp/vaults/`;
  return resource.startsWith(vaultPrefix) && VAULT_ID.test(resource.slice(vaultPrefix.length));
}

/**
 * True when the user may read what `resource` serves: a vault endpoint only for a vault in the
 * user's allowlist (the origin and `/mcp` serve whatever vaults the token allows).
 * @param {string} resource one isAllowedResource admits
 * @param {string} origin
 * @param {DemoUser} user
 */
function userMayRead(resource, origin, user) {
  const vaultPrefix = `${origin}/mcp/vaults/`;
  return !resource.startsWith(vaultPrefix) || user.allowedVaultIds.includes(resource.slice(vaultPrefix.length));
}

/**
 * The CSP source that lets a form submission end at the client's redirect URI: browsers apply
 * `form-action` to the redirects that follow a POST. Only plain origins and scheme sources are
 * emitted, so nothing from the (validated, but client-chosen) URI can add a directive.
 * @param {unknown} redirectUri
 */
function formActionSourceFor(redirectUri) {
  const parsed = typeof redirectUri === 'string' ? URL.parse(redirectUri) : null;
  if (!parsed) return '';
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') {
    return /^https?:\/\/[A-Za-z0-9.\-[\]:]+$/.test(parsed.origin) ? parsed.origin : '';
  }
  return /^[a-z][a-z0-9+.-]*:$/.test(parsed.protocol) ? parsed.protocol : '';
}

/** @param {string} formActionSource */
function pageCsp(formActionSource) {
  return [
    "default-src 'none'",
    `style-src ${PAGE_STYLE_HASH}`,
    "img-src 'none'",
    `form-action 'self'${formActionSource ? ` ${formActionSource}` : ''}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * @param {string} title
 * @param {string} bodyHtml already escaped
 */
function pageHtml(title, bodyHtml) {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
${bodyHtml}
</body>
</html>
`;
}

/**
 * @param {ServerResponse} res
 * @param {number} status
 * @param {string} html
 * @param {string} formActionSource
 */
function sendPage(res, status, html, formActionSource) {
  const body = Buffer.from(html, 'utf8');
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(body.length),
    'Content-Security-Policy': pageCsp(formActionSource),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the
    // page's POSTs, and the decision handlers check Origin.
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

/**
 * @param {ServerResponse} res
 * @param {number} status
 * @param {string} text
 */
function sendText(res, status, text) {
  const body = Buffer.from(text, 'utf8');
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(body.length),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

/**
 * @param {string} error
 * @param {string | undefined} description
 */
function errorPageHtml(error, description) {
  return pageHtml(
    'Sign-in failed',
    `<h1>Sign-in failed</h1>
<p><code>${escapeHtml(error)}</code>${description ? `: ${escapeHtml(description)}` : ''}</p>
<p>Start the connection again from your MCP client.</p>`,
  );
}

/**
 * The sign-in and consent page: one screen that names the client, what it asks for, at which
 * resource, for which user. Every value is escaped; the client's name and id come from an
 * untrusted registration.
 * @param {{ uid: string, clientName: string | undefined, clientId: string, redirectUri: string,
 *   resources: string[], scopes: string[], user: DemoUser }} view
 */
function consentPageHtml({ uid, clientName, clientId, redirectUri, resources, scopes, user }) {
  const who = clientName ? clientName : clientId;
  const resourceItems = resources.length
    ? resources.map((resource) => `<code>${escapeHtml(resource)}</code>`).join('<br>')
    : '<em>none</em>';
  const scopeText = scopes.length ? scopes.join(' ') : '(none)';
  const action = `/interaction/${encodeURIComponent(uid)}`;
  return pageHtml(
    'Allow access?',
    `<h1>Allow <strong>${escapeHtml(who)}</strong> to read the structure of your notes?</h1>
<p><strong>${escapeHtml(who)}</strong> asks to read the structure of notes (outlines, headings,
sections and metadata facets, never the note text) at ${resourceItems}
as <strong>${escapeHtml(user.name)}</strong>.</p>
<dl>
<dt>Client</dt><dd>${escapeHtml(clientName ?? '(no name given)')}</dd>
<dt>Client ID</dt><dd><code>${escapeHtml(clientId)}</code></dd>
<dt>Returns to</dt><dd><code>${escapeHtml(redirectUri)}</code></dd>
<dt>Resource</dt><dd>${resourceItems}</dd>
<dt>Scope</dt><dd><code>${escapeHtml(scopeText)}</code></dd>
<dt>User</dt><dd>${escapeHtml(user.name)} (<code>${escapeHtml(user.sub)}</code>, role <code>${escapeHtml(user.role)}</code>, vaults <code>${escapeHtml(user.allowedVaultIds.join(', '))}</code>)</dd>
</dl>
<div class="actions">
<form method="post" action="${escapeHtml(`${action}/approve`)}"><button type="submit" class="approve">Approve</button></form>
<form method="post" action="${escapeHtml(`${action}/deny`)}"><button type="submit">Deny</button></form>
</div>`,
  );
}

/**
 * An ES256 signing key for this start only, as the private JWK oidc-provider's keystore takes
 * and as the key object signAccessToken uses.
 */
async function generateSigningKey() {
  const { privateKey } = await generateKeyPair(ACCESS_TOKEN_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { privateKey, kid, jwk: { ...jwk, kid, alg: ACCESS_TOKEN_ALG, use: 'sig' } };
}

/**
 * The resources of one authorization request, as oidc-provider stores its parameters (one string
 * or several).
 * @param {unknown} resource
 * @returns {string[]}
 */
function requestedResources(resource) {
  if (typeof resource === 'string') return [resource];
  return Array.isArray(resource) ? resource.filter((r) => typeof r === 'string') : [];
}

/** @param {unknown} scope */
function requestedScopes(scope) {
  return typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [];
}

/**
 * @typedef {object} AuthServer
 * @property {string} issuer e.g. 'http://127.0.0.1:8790' (no trailing slash)
 * @property {string} jwksUrl the JWK set access tokens verify with (the Worker's JWT_JWKS_URL)
 * @property {number} port
 * @property {(options: SignAccessTokenOptions) => Promise<string>} signAccessToken test-only: a token
 *   signed with this server's key in the issued claim shape (e.g. an already-expired one)
 * @property {() => Promise<void>} close stops listening and closes every connection
 */

/**
 * Starts the authorization server.
 * @param {AuthServerOptions} options
 * @returns {Promise<AuthServer>}
 */
export async function startAuthServer({
  host = '127.0.0.1',
  port = 0,
  resourceOrigin,
  user = DEFAULT_USER,
  autoApprove = false,
  accessTokenTtlSeconds = 3600,
  maxRegisteredClients = DEFAULT_MAX_REGISTERED_CLIENTS,
}) {
  if (!isLoopbackHost(host)) throw new TypeError('auth-server: host must be a loopback address');
  if (!Number.isSafeInteger(accessTokenTtlSeconds) || accessTokenTtlSeconds <= 0) {
    throw new TypeError('auth-server: accessTokenTtlSeconds must be a positive integer');
  }
  if (!Number.isSafeInteger(maxRegisteredClients) || maxRegisteredClients < 0) {
    throw new TypeError('auth-server: maxRegisteredClients must be a non-negative integer');
  }
  const workerOrigin = () => new URL(typeof resourceOrigin === 'function' ? resourceOrigin() : resourceOrigin).origin;
  const signingKey = await generateSigningKey();

  /** @type {((req: IncomingMessage, res: ServerResponse) => void) | undefined} */
  let handle;
  const server = createServer((req, res) => {
    if (!handle) {
      sendText(res, 503, 'starting\n');
      return;
    }
    handle(req, res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(undefined);
    });
  });
  const close = () =>
    new Promise((resolve) => {
      server.close(() => resolve(undefined));
      server.closeAllConnections();
    });
  const address = server.address();
  if (address === null || typeof address === 'string') {
    await close();
    throw new Error('auth-server: unexpected listen address');
  }
  const issuer = `http://${urlHost(host)}:${address.port}`;
  const allowedHosts = ownHostValues(address);

  // The issuer names the port, so the provider is built once the server listens.
  let provider;
  try {
    provider = createProvider({
      issuer,
      port: address.port,
      workerOrigin,
      user,
      accessTokenTtlSeconds,
      maxRegisteredClients,
      signingJwk: signingKey.jwk,
    });
  } catch (error) {
    await close();
    throw error;
  }
  const providerCallback = provider.callback();
  const interactions = interactionHandlers(provider, user, autoApprove);

  handle = (req, res) => {
    const hostHeader = String(req.headers.host ?? '').toLowerCase();
    if (!isAddressedTo(req, allowedHosts)) {
      sendText(res, 421, 'unexpected Host header\n');
      return;
    }
    const target = URL.parse(req.url ?? '/', 'http://auth.invalid');
    if (!target) {
      sendText(res, 400, 'bad request target\n');
      return;
    }
    const { pathname } = target;
    const interaction = INTERACTION_PATH.exec(pathname);
    if (interaction) {
      interactions(req, res, hostHeader, interaction[1], interaction[2]).catch((error) => {
        console.error('auth-server: interaction failed', error);
        if (!res.headersSent) sendPage(res, 500, errorPageHtml('server_error', undefined), '');
        else res.destroy();
      });
      return;
    }
    // RFC 8414 section 3: the issuer has no path, so its metadata lives at exactly this path; it
    // is the same document oidc-provider serves for OpenID Connect discovery.
    if (pathname === RFC8414_PATH) req.url = OIDC_DISCOVERY_PATH;
    providerCallback(req, res);
  };

  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    port: address.port,
    /** @param {SignAccessTokenOptions} options */
    async signAccessToken({ resource, expiresInSeconds, claims = {} }) {
      const now = Math.floor(Date.now() / 1000);
      const exp = now + expiresInSeconds;
      const payload = {
        iss: issuer,
        sub: user.sub,
        aud: resource,
        client_id: 'auth-server-test-signer',
        scope: READ_SCOPE,
        ...projectClaims(user),
        jti: randomUUID(),
        // iat stays before exp, also for an already-expired token.
        iat: Math.min(now, exp - 1),
        exp,
        ...claims,
      };
      return new SignJWT(payload)
        .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, typ: 'at+jwt', kid: signingKey.kid })
        .sign(signingKey.privateKey);
    },
    async close() {
      await close();
    },
  };
}

/**
 * The project's claims for the demo user, as the Worker reads them (src/auth/jwt.ts).
 * @param {DemoUser} user
 */
function projectClaims(user) {
  return {
    role: user.role,
    allowed_vault_ids: [...user.allowedVaultIds],
    effective_canister_user_id: user.effectiveCanisterUserId,
  };
}

/**
 * oidc-provider's features: open dynamic registration, client ID metadata documents, and RFC 8707
 * resource indicators limited to the Worker's resources the user may read, whose access tokens
 * are RFC 9068 JWTs.
 * @param {() => string} workerOrigin
 * @param {DemoUser} user
 * @param {number} accessTokenTtlSeconds
 */
function providerFeatures(workerOrigin, user, accessTokenTtlSeconds) {
  return {
    devInteractions: { enabled: false },
    // The Worker accepts Bearer tokens only, so DPoP-bound tokens are not offered.
    dPoP: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
    // draft-ietf-oauth-client-id-metadata-document-02 (an https URL as client_id, fetched on first
    // use); oidc-provider refuses to fetch from special-use addresses (loopback, private ranges).
    clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
    resourceIndicators: {
      enabled: true,
      // A request without `resource` is for the MCP endpoint (scopes for no resource would
      // otherwise be dropped); several resources at the token endpoint stay an error.
      defaultResource: async (
        /** @type {KoaContext} */ _ctx,
        /** @type {OidcClient} */ _client,
        /** @type {string[] | undefined} */ oneOf,
      ) => oneOf ?? `${workerOrigin()}/mcp`,
      // The token endpoint may omit `resource`: the token is then for the one granted resource.
      useGrantedResource: async () => true,
      // Called at the authorization endpoint before any page, and again at the token endpoint.
      // The one demo user is known before sign-in, so a vault they may not read is refused here
      // rather than by the Worker after consent.
      getResourceServerInfo: async (/** @type {KoaContext} */ _ctx, /** @type {string} */ resource) => {
        const origin = workerOrigin();
        if (!isAllowedResource(resource, origin)) throw new oidcErrors.InvalidTarget();
        if (!userMayRead(resource, origin, user)) {
          throw new oidcErrors.InvalidTarget('the user may not read this vault');
        }
        return {
          scope: READ_SCOPE,
          accessTokenFormat: 'jwt',
          accessTokenTTL: accessTokenTtlSeconds,
          jwt: { sign: { alg: ACCESS_TOKEN_ALG } },
        };
      },
    },
  };
}

/**
 * The oidc-provider instance: OAuth 2.1 code flow with PKCE for public and confidential clients,
 * open dynamic registration, client ID metadata documents, resource indicators with JWT access
 * tokens for the Worker's resources only.
 * @param {{ issuer: string, port: number, workerOrigin: () => string, user: DemoUser,
 *   accessTokenTtlSeconds: number, maxRegisteredClients: number, signingJwk: Record<string, unknown> }} settings
 */
function createProvider({ issuer, port, workerOrigin, user, accessTokenTtlSeconds, maxRegisteredClients, signingJwk }) {
  // Browsers ignore the port for cookies, so the names carry it: another local server's cookies
  // (another run of this server, say) are never mistaken for this one's.
  const cookiePrefix = `kt_as_${port}`;

  const provider = new Provider(issuer, {
    adapter: createMemoryAdapter(),
    jwks: { keys: [signingJwk] },
    cookies: {
      keys: [randomBytes(32).toString('base64url')],
      names: {
        session: `${cookiePrefix}_session`,
        interaction: `${cookiePrefix}_interaction`,
        resume: `${cookiePrefix}_resume`,
      },
    },

    /** @param {KoaContext} _ctx @param {string} sub */
    async findAccount(_ctx, sub) {
      if (sub !== user.sub) return undefined;
      return { accountId: sub, claims: async () => ({ sub }) };
    },

    routes: { registration: REGISTRATION_PATH },
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: ACCESS_TOKEN_ALG,
    },
    enabledJWA: { idTokenSigningAlgValues: [ACCESS_TOKEN_ALG] },

    // Refresh tokens: issued on every code exchange to clients registered for the refresh_token
    // grant, with offline_access or without it (oidc-provider keeps offline_access only with
    // prompt=consent, which many MCP clients do not send). They live a day and every use replaces
    // the token (OAuth 2.1 section 4.3.1: rotation for public clients; confidential ones too).
    issueRefreshToken: async (/** @type {KoaContext} */ _ctx, /** @type {OidcClient} */ client) =>
      client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    expiresWithSession: async () => false,

    ttl: {
      AccessToken: accessTokenTtlSeconds,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: DAY_SECONDS,
      Grant: DAY_SECONDS,
      Session: DAY_SECONDS,
      Interaction: 600,
    },

    interactions: {
      url: (/** @type {KoaContext} */ _ctx, /** @type {{ uid: string }} */ interaction) => `/interaction/${interaction.uid}`,
    },
    renderError: async (/** @type {KoaContext} */ ctx, /** @type {Record<string, unknown>} */ out) => {
      ctx.type = 'html';
      ctx.set('Content-Security-Policy', pageCsp(''));
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = errorPageHtml(String(out.error ?? 'error'), out.error_description === undefined ? undefined : String(out.error_description));
    },
    // A browser-based public client (the MCP Inspector, say) may call the token endpoint from one
    // of its registered redirect URIs' origins; no other cross-origin caller is admitted.
    clientBasedCORS: (/** @type {KoaContext} */ _ctx, /** @type {string} */ origin, /** @type {OidcClient} */ client) =>
      client.clientAuthMethod === 'none' && client.redirectUris.some((uri) => URL.parse(uri)?.origin === origin),

    // RFC 7591 section 2 fields MCP clients send; oidc-provider drops unknown metadata otherwise.
    // Their validator is also the hook that sees a whole client before oidc-provider validates it,
    // so it applies this server's client rules once per client (on software_id, which is validated
    // for every registration and client ID metadata document, present or not).
    extraClientMetadata: {
      properties: ['software_id', 'software_version'],
      /** @param {KoaContext} _ctx @param {string} key @param {unknown} value @param {Record<string, unknown>} metadata */
      validator(_ctx, key, value, metadata) {
        if (value !== undefined && typeof value !== 'string') {
          throw new oidcErrors.InvalidClientMetadata(`${key} must be a string`);
        }
        if (key === 'software_id') applyClientRules(metadata, OIDC_SCOPES);
      },
    },
    scopes: OIDC_SCOPES,

    features: providerFeatures(workerOrigin, user, accessTokenTtlSeconds),

    // RFC 9068 section 2.2: oidc-provider sets iss, exp, aud, sub, client_id, iat, jti and scope;
    // these are this project's claims, for resource (JWT) access tokens of the demo user only.
    extraTokenClaims: async (
      /** @type {KoaContext} */ _ctx,
      /** @type {{ resourceServer?: unknown, accountId?: string }} */ token,
    ) => {
      if (!token.resourceServer || token.accountId !== user.sub) return undefined;
      return projectClaims(user);
    },
  });

  provider.use(registrationGuard({ path: REGISTRATION_PATH, maxClients: maxRegisteredClients }));
  // Metadata names the resource scope too, for clients that pick scopes from the AS metadata.
  provider.use(async (/** @type {KoaContext} */ ctx, /** @type {() => Promise<void>} */ next) => {
    await next();
    if (ctx.oidc?.route === 'discovery' && ctx.body && typeof ctx.body === 'object') {
      const body = /** @type {{ scopes_supported?: string[] }} */ (ctx.body);
      body.scopes_supported = [...new Set([...(body.scopes_supported ?? []), READ_SCOPE])];
    }
  });

  provider.on('server_error', (/** @type {KoaContext} */ _ctx, /** @type {unknown} */ error) =>
    console.error('auth-server: server error', error));
  return provider;
}

/**
 * Handlers for `/interaction/<uid>` (GET: the page, or immediate approval with autoApprove for a
 * loopback redirect URI) and
 * `/interaction/<uid>/approve|deny` (POST from the page).
 * @param {Provider} provider
 * @param {DemoUser} user
 * @param {boolean} autoApprove
 */
function interactionHandlers(provider, user, autoApprove) {
  /**
   * Completes the interaction for the demo user: signs them in and records a grant of every
   * requested scope this server knows (openid/offline_access, and vault:read per resource), in one
   * step, so the client sees one page at most.
   * @param {IncomingMessage} req
   * @param {ServerResponse} res
   * @param {any} details
   */
  async function approve(req, res, details) {
    const { params } = details;
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: user.sub, clientId: params.client_id });
    if (!grant) throw new Error('grant of the interaction not found');
    const scopes = requestedScopes(params.scope);
    const oidcScopes = scopes.filter((scope) => OIDC_SCOPES.includes(scope));
    if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
    if (scopes.includes(READ_SCOPE)) {
      for (const resource of requestedResources(params.resource)) grant.addResourceScope(resource, READ_SCOPE);
    }
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: user.sub }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  /**
   * @param {IncomingMessage} req
   * @param {ServerResponse} res
   */
  async function deny(req, res) {
    await provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'the user denied the request' },
      { mergeWithLastSubmission: false },
    );
  }

  /**
   * @param {any} details
   * @param {ServerResponse} res
   */
  async function showPage(details, res) {
    const { params, uid } = details;
    const client = await provider.Client.find(String(params.client_id));
    const metadata = client ? client.metadata() : {};
    const html = consentPageHtml({
      uid,
      clientName: typeof metadata.client_name === 'string' ? metadata.client_name : undefined,
      clientId: String(params.client_id),
      redirectUri: String(params.redirect_uri),
      resources: requestedResources(params.resource),
      scopes: requestedScopes(params.scope),
      user,
    });
    sendPage(res, 200, html, formActionSourceFor(params.redirect_uri));
  }

  /**
   * @param {IncomingMessage} req
   * @param {ServerResponse} res
   * @param {string} hostHeader the validated Host
   * @param {string} uid from the path
   * @param {string | undefined} decision 'approve' | 'deny' | undefined (the page)
   */
  return async function handleInteraction(req, res, hostHeader, uid, decision) {
    const expectedMethod = decision ? 'POST' : 'GET';
    if (req.method !== expectedMethod) {
      res.setHeader('Allow', expectedMethod);
      sendText(res, 405, 'method not allowed\n');
      return;
    }
    // The decision forms post from this page only: a browser always sends Origin on a POST.
    if (decision && req.headers.origin !== `http://${hostHeader}`) {
      sendText(res, 403, 'cross-origin form submission refused\n');
      return;
    }
    let details;
    try {
      details = await provider.interactionDetails(req, res);
    } catch (error) {
      if (!(error instanceof oidcErrors.SessionNotFound)) throw error;
      sendPage(res, 400, errorPageHtml('invalid_request', 'this sign-in request has expired or was already completed'), '');
      return;
    }
    // The interaction cookie names the interaction; the path must name the same one.
    if (details.uid !== uid) {
      sendPage(res, 400, errorPageHtml('invalid_request', 'this sign-in request does not match the open one'), '');
      return;
    }
    if (decision === 'deny') await deny(req, res);
    else if (decision === 'approve') await approve(req, res, details);
    // Automatic approval hands a code only to a program on this machine; a code for any other
    // redirect URI waits for a person on the page.
    else if (autoApprove && isLoopbackRedirectUri(details.params.redirect_uri)) await approve(req, res, details);
    else await showPage(details, res);
  };
}
