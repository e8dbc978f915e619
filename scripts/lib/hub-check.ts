/**
 * The Hub's authorization contract as checks (docs/AUTH.md, "What the Hub's authorization server
 * must issue"): what the hosted MCP connectors (claude.ai, ChatGPT, Cursor, VS Code, mcp-remote,
 * the MCP SDK) do with an authorization server, done against a real one, one result per
 * requirement. `scripts/check-hub.ts` is the command.
 *
 * What it does to the server: reads its metadata and key set; registers a client per known
 * connector plus a few with redirect URIs that must be refused (when it offers registration);
 * runs up to three authorization-code flows with PKCE for a loopback redirect URI, following
 * the server's redirects like a browser, and stops where a person would have to act (a sign-in or
 * consent page, another site's sign-in). Nothing it prints carries a token, code, secret or
 * client secret: only statuses, OAuth error codes, claim names, and values the server publishes
 * (its issuer, its paths).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { CONNECTOR_CLIENTS, connectorRegistration } from './connector-clients';

export type Status = 'pass' | 'fail' | 'not checkable';

export interface RequirementResult {
  /** What is required, with the section of the standard that requires it. */
  requirement: string;
  status: Status;
  /** A short reason, safe to print. */
  why: string;
}

export interface HubCheckOptions {
  /** The issuer identifier, exactly as the Worker's OAUTH_AUTHORIZATION_SERVER names it. */
  issuer: string;
  /** The protected resource the tokens are for, e.g. https://edge.example.com/mcp. */
  resource: string;
  /** Loopback redirect URI for the flows; never fetched (the code is read from the redirect). */
  redirectUri: string;
  /** A resource the server must refuse (RFC 8707 section 2). */
  foreignResource: string;
  /** A pre-registered public client allowed `redirectUri`, for a server without registration. */
  clientId?: string;
  timeoutMs: number;
}

export const READ_SCOPE = 'vault:read';
/** Longest access-token lifetime the contract allows: the Worker keeps no revocation list. */
export const MAX_ACCESS_TOKEN_SECONDS = 3600;
/** The name registered clients carry, so an operator can find and delete them. */
export const CLIENT_NAME_PREFIX = 'check-hub';
/** The asymmetric algorithms the Worker verifies key-set tokens with (docs/AUTH.md, Verification). */
export const WORKER_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];
/** The Worker refuses a larger JWK set unread (src/auth/jwks.ts). */
export const MAX_JWKS_BYTES = 64 * 1024;
/** RFC 9068 section 2.2: claims every JWT access token carries. */
const REQUIRED_CLAIMS: Array<[string, 'string' | 'number' | 'audience']> = [
  ['iss', 'string'],
  ['exp', 'number'],
  ['aud', 'audience'],
  ['sub', 'string'],
  ['client_id', 'string'],
  ['iat', 'number'],
  ['jti', 'string'],
];
/** JWK members that only a private or symmetric key has (RFC 7517, RFC 7518 section 6). */
const PRIVATE_KEY_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);
const MAX_REDIRECT_HOPS = 10;
/** Redirect URIs every authorization server must refuse at registration. */
const UNSAFE_REDIRECT_URIS: Array<[string, string]> = [
  ['http on a host that is not loopback', 'http://check-hub.invalid/callback'],
  ['a javascript: URI', 'javascript:void(0)'],
  ['a fragment', 'https://check-hub.invalid/callback#fragment'],
];

/** The requirements, each with the section that requires it; never a ': ', which separates the reason in the report. */
const R = {
  metadata: 'authorization server metadata (RFC 8414 section 3.1, or OpenID discovery)',
  issuer: 'issuer identical to the one given (RFC 8414 section 3.3)',
  endpoints: 'authorization and token endpoints, code flow (RFC 8414 section 2)',
  pkce: 'PKCE with S256 (OAuth 2.1 section 4.1.1, RFC 7636; MCP authorization)',
  registration: 'client registration, dynamic (RFC 7591) or by client ID metadata document (MCP 2025-11-25)',
  publicClients: 'public clients, token_endpoint_auth_method none (RFC 7591 section 2)',
  connector: (name: string) => `registers ${name} (RFC 7591 section 3)`,
  unsafeRedirects: 'refuses unsafe redirect URIs (OAuth 2.1 section 2.3.1, RFC 6749 section 3.1.2)',
  flow: 'authorization code flow with PKCE, without a person for a loopback client',
  iss: 'iss on the authorization response (RFC 9207)',
  resourceIndicators: 'refuses a foreign resource with invalid_target (RFC 8707 section 2)',
  tokenFormat: 'JWT access token, typ at+jwt, signed RS256, ES256 or EdDSA with a kid in the JWK set (RFC 9068 section 2.1)',
  tokenClaims: 'access token claims iss, exp, aud, sub, client_id, iat, jti (RFC 9068 section 2.2)',
  audience: 'access token aud is the requested resource (RFC 8707 section 2, RFC 9068 section 3)',
  scope: `access token scope contains ${READ_SCOPE} (RFC 9068 section 2.2.3)`,
  lifetime: `access token lifetime at most ${MAX_ACCESS_TOKEN_SECONDS} s`,
  refresh: 'refresh tokens with offline_access, still bound to the resource (OAuth 2.1 section 4.3)',
  rotation: 'refresh token rotation (OAuth 2.1 section 4.3.1)',
  jwks: `JWK set over https, at most ${MAX_JWKS_BYTES / 1024} KiB, every key with a kid, no private keys (RFC 8414 section 2, RFC 7517)`,
} as const;

/** Every requirement, in the order the report lists them. */
export function requirementOrder(): string[] {
  return Object.values(R).flatMap((requirement) =>
    typeof requirement === 'string' ? [requirement] : CONNECTOR_CLIENTS.map((client) => requirement(client.name)),
  );
}

/** Printable ASCII only, bounded: for values the server publishes (issuer, paths, error codes). */
function shown(value: unknown, max = 80): string {
  const text = String(value).replace(/[^\x20-\x7e]/g, '?');
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** An OAuth error code as printed: the registered shape (RFC 6749 section 5.2), else a placeholder. */
function errorCode(value: unknown): string {
  return typeof value === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(value) ? value : 'an unnamed error';
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTNAMES.has(url.hostname);
}

/** https, or http on a loopback host (a local server): what a published endpoint may be. */
function isSecureEndpoint(value: unknown): value is string {
  const url = typeof value === 'string' ? URL.parse(value) : null;
  return url !== null && (url.protocol === 'https:' || isLoopbackHttp(url));
}

function pathOf(value: string): string {
  const url = URL.parse(value);
  return url ? url.pathname : shown(value);
}

function listed(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

interface Exchange {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** Cookies per origin, as a browser keeps them while it follows the server's redirects. */
class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  store(origin: string, headers: Headers): void {
    const cookies = this.byOrigin.get(origin) ?? new Map<string, string>();
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    this.byOrigin.set(origin, cookies);
  }

  header(origin: string): string {
    return [...(this.byOrigin.get(origin) ?? [])].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

type AuthorizationOutcome =
  | { kind: 'callback'; params: URLSearchParams }
  | { kind: 'page'; where: string }
  | { kind: 'elsewhere'; host: string }
  | { kind: 'refused'; status: number }
  | { kind: 'unreachable'; why: string };

interface Tokens {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Runs every check against the server and returns one result per requirement, in a fixed order.
 */
export async function checkHub(options: HubCheckOptions): Promise<RequirementResult[]> {
  return new HubCheck(options).run();
}

class HubCheck {
  private readonly results: RequirementResult[] = [];

  constructor(private readonly options: HubCheckOptions) {}

  private record(requirement: string, status: Status, why: string): void {
    this.results.push({ requirement, status, why });
  }

  /** One request; redirects are not followed unless `init` says so (documents may move, OAuth endpoints do not). */
  private async request(url: string, init: RequestInit = {}): Promise<Exchange> {
    const response = await fetch(url, { redirect: 'manual', ...init, signal: AbortSignal.timeout(this.options.timeoutMs) });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  private async tryRequest(url: string, init: RequestInit = {}): Promise<Exchange | { failure: string }> {
    try {
      return await this.request(url, init);
    } catch (error) {
      const name = error instanceof Error ? (error.name === 'TimeoutError' ? 'timed out' : ((error.cause as { code?: string })?.code ?? error.name)) : 'failed';
      return { failure: shown(name, 40) };
    }
  }

  async run(): Promise<RequirementResult[]> {
    const doc = await this.discoverMetadata();
    if (!doc) {
      for (const requirement of requirementOrder()) {
        if (requirement !== R.metadata) this.record(requirement, 'not checkable', 'no metadata to read the server from');
      }
      return this.results;
    }
    this.checkIssuer(doc);
    const endpointsUsable = this.checkEndpoints(doc);
    const jwks = await this.checkJwks(doc);

    const registrationEndpoint = isSecureEndpoint(doc.registration_endpoint) ? doc.registration_endpoint : undefined;
    this.checkRegistrationMetadata(doc, registrationEndpoint);
    this.checkPublicClients(doc);
    await this.checkConnectorRegistrations(registrationEndpoint);
    await this.checkUnsafeRedirects(registrationEndpoint);

    const flows = endpointsUsable ? await this.runFlows(doc, registrationEndpoint) : undefined;
    if (!flows) this.record(R.flow, 'not checkable', 'no usable authorization and token endpoints');
    this.checkPkce(doc, flows);
    this.checkIssParameter(doc, flows);
    this.checkForeignResource(flows);
    await this.checkAccessToken(flows, jwks);
    await this.checkRefresh(doc, flows, jwks);

    const order = requirementOrder();
    return [...this.results].sort((a, b) => order.indexOf(a.requirement) - order.indexOf(b.requirement));
  }

  /**
   * RFC 8414 section 3.1 (path insertion) first, then OpenID discovery, in the order MCP
   * 2025-11-25 has clients try them.
   */
  private async discoverMetadata(): Promise<Record<string, unknown> | undefined> {
    const issuer = new URL(this.options.issuer);
    const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
    const candidates: Array<[string, boolean]> = path
      ? [
          [`/.well-known/oauth-authorization-server${path}`, true],
          [`/.well-known/openid-configuration${path}`, false],
          [`${path}/.well-known/openid-configuration`, false],
        ]
      : [
          ['/.well-known/oauth-authorization-server', true],
          ['/.well-known/openid-configuration', false],
        ];
    const tried: string[] = [];
    for (const [candidate, rfc8414] of candidates) {
      const answer = await this.tryRequest(`${issuer.origin}${candidate}`, { headers: { accept: 'application/json' }, redirect: 'follow' });
      if ('failure' in answer) {
        tried.push(`${candidate} ${answer.failure}`);
        continue;
      }
      if (answer.status === 200 && answer.json !== null && typeof answer.json === 'object' && !Array.isArray(answer.json)) {
        this.record(
          R.metadata,
          'pass',
          rfc8414
            ? `RFC 8414 metadata at ${candidate}`
            : `OpenID discovery at ${candidate} (no RFC 8414 document; MCP clients fall back to this one)`,
        );
        return answer.json as Record<string, unknown>;
      }
      tried.push(`${candidate} HTTP ${answer.status}${answer.status === 200 ? ' (not a JSON object)' : ''}`);
    }
    this.record(R.metadata, 'fail', `none found: ${tried.join('; ')}`);
    return undefined;
  }

  private checkIssuer(doc: Record<string, unknown>): void {
    const problems: string[] = [];
    if (doc.issuer !== this.options.issuer) {
      problems.push(doc.issuer === undefined ? 'the metadata has no issuer' : `the metadata says ${shown(JSON.stringify(doc.issuer))}`);
    }
    if (!isSecureEndpoint(this.options.issuer)) problems.push('the issuer must be https (RFC 8414 section 2)');
    if (problems.length) this.record(R.issuer, 'fail', `${listed(problems)}; tokens' iss must equal ${this.options.issuer} exactly`);
    else this.record(R.issuer, 'pass', `${this.options.issuer}`);
  }

  private checkEndpoints(doc: Record<string, unknown>): boolean {
    const problems: string[] = [];
    for (const name of ['authorization_endpoint', 'token_endpoint']) {
      if (doc[name] === undefined) problems.push(`no ${name}`);
      else if (!isSecureEndpoint(doc[name])) problems.push(`${name} is not https`);
    }
    const responseTypes = doc.response_types_supported;
    if (!Array.isArray(responseTypes) || !responseTypes.includes('code')) problems.push('response_types_supported lacks code');
    // RFC 8414 section 2: omitted grant_types_supported means authorization_code and implicit.
    const grantTypes = doc.grant_types_supported;
    if (Array.isArray(grantTypes) && !grantTypes.includes('authorization_code')) problems.push('grant_types_supported lacks authorization_code');
    if (problems.length) {
      this.record(R.endpoints, 'fail', listed(problems));
      return !problems.some((problem) => problem.includes('endpoint'));
    }
    this.record(R.endpoints, 'pass', `${pathOf(String(doc.authorization_endpoint))} and ${pathOf(String(doc.token_endpoint))}`);
    return true;
  }

  private async checkJwks(doc: Record<string, unknown>): Promise<JSONWebKeySet | undefined> {
    const uri = doc.jwks_uri;
    if (typeof uri !== 'string' || !URL.parse(uri)) {
      this.record(R.jwks, 'fail', 'no jwks_uri: nothing to verify access tokens with');
      return undefined;
    }
    if (!isSecureEndpoint(uri)) {
      this.record(R.jwks, 'fail', 'jwks_uri is not https (http only on a loopback host)');
      return undefined;
    }
    const answer = await this.tryRequest(uri, { headers: { accept: 'application/json' }, redirect: 'follow' });
    if ('failure' in answer || answer.status !== 200) {
      this.record(R.jwks, 'fail', `${pathOf(uri)}: ${'failure' in answer ? answer.failure : `HTTP ${answer.status}`}`);
      return undefined;
    }
    const size = Buffer.byteLength(answer.text);
    if (size > MAX_JWKS_BYTES) {
      this.record(R.jwks, 'fail', `${pathOf(uri)} is ${size} bytes: the Worker refuses a set over ${MAX_JWKS_BYTES} bytes unread`);
      return undefined;
    }
    const keys = (answer.json as { keys?: unknown })?.keys;
    if (!Array.isArray(keys) || keys.length === 0) {
      this.record(R.jwks, 'fail', `${pathOf(uri)} has no keys`);
      return undefined;
    }
    const problems: string[] = [];
    const kids = keys.map((key) => (key as { kid?: unknown }).kid);
    const withoutKid = kids.filter((kid) => typeof kid !== 'string' || kid === '').length;
    if (withoutKid) problems.push(`${withoutKid} of ${keys.length} keys without a kid`);
    if (new Set(kids).size !== kids.length) problems.push('two keys share a kid');
    const secret = keys.filter((key) => PRIVATE_KEY_MEMBERS.some((member) => Object.hasOwn(key as object, member))).length;
    if (secret) problems.push(`${secret} key(s) with private or symmetric key material published`);
    if (problems.length) this.record(R.jwks, 'fail', `${pathOf(uri)}: ${listed(problems)}`);
    else this.record(R.jwks, 'pass', `${pathOf(uri)}: ${keys.length} public key(s), each with a kid`);
    return secret ? undefined : { keys: keys as JSONWebKeySet['keys'] };
  }

  private checkRegistrationMetadata(doc: Record<string, unknown>, registrationEndpoint: string | undefined): void {
    const cimd = doc.client_id_metadata_document_supported === true;
    if (doc.registration_endpoint !== undefined && !registrationEndpoint) {
      this.record(R.registration, 'fail', 'registration_endpoint is not an https URL');
    } else if (registrationEndpoint && cimd) {
      this.record(R.registration, 'pass', `dynamic registration at ${pathOf(registrationEndpoint)} and client ID metadata documents`);
    } else if (registrationEndpoint) {
      this.record(
        R.registration,
        'pass',
        `dynamic registration at ${pathOf(registrationEndpoint)}; client ID metadata documents (which MCP 2025-11-25 prefers) are not advertised`,
      );
    } else if (cimd) {
      this.record(R.registration, 'pass', 'client ID metadata documents only (clients without them cannot register)');
    } else {
      this.record(R.registration, 'fail', 'no registration_endpoint and no client_id_metadata_document_supported: a connector has no way to become a client');
    }
  }

  private checkPublicClients(doc: Record<string, unknown>): void {
    // RFC 8414 section 2: omitted means client_secret_basic only.
    const methods = Array.isArray(doc.token_endpoint_auth_methods_supported) ? doc.token_endpoint_auth_methods_supported : ['client_secret_basic'];
    if (methods.includes('none')) this.record(R.publicClients, 'pass', 'token_endpoint_auth_methods_supported lists none');
    else this.record(R.publicClients, 'fail', `token_endpoint_auth_methods_supported lacks none (lists ${shown(methods.join(' '))}); connectors are public clients`);
  }

  private async register(endpoint: string, metadata: Record<string, unknown>): Promise<Exchange | { failure: string }> {
    return this.tryRequest(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(metadata),
    });
  }

  private async checkConnectorRegistrations(endpoint: string | undefined): Promise<void> {
    for (const client of CONNECTOR_CLIENTS) {
      const requirement = R.connector(client.name);
      if (!endpoint) {
        this.record(requirement, 'not checkable', 'no registration endpoint');
        continue;
      }
      const answer = await this.register(endpoint, connectorRegistration(client, CLIENT_NAME_PREFIX));
      if ('failure' in answer) {
        this.record(requirement, 'fail', `registration request ${answer.failure}`);
        continue;
      }
      const body = (answer.json ?? {}) as Record<string, unknown>;
      if (answer.status !== 201 && answer.status !== 200) {
        this.record(requirement, 'fail', `refused: HTTP ${answer.status} ${errorCode(body.error)} for ${listed(client.redirectUris.map((uri) => shown(uri)))}`);
        continue;
      }
      const registered = Array.isArray(body.redirect_uris) ? body.redirect_uris : [];
      const dropped = client.redirectUris.filter((uri) => !registered.includes(uri));
      if (typeof body.client_id !== 'string') this.record(requirement, 'fail', 'the answer has no client_id');
      else if (dropped.length) this.record(requirement, 'fail', `registered without ${listed(dropped.map((uri) => shown(uri)))}`);
      else this.record(requirement, 'pass', listed(client.redirectUris.map((uri) => shown(uri))));
    }
  }

  private async checkUnsafeRedirects(endpoint: string | undefined): Promise<void> {
    if (!endpoint) {
      this.record(R.unsafeRedirects, 'not checkable', 'no registration endpoint');
      return;
    }
    const accepted: string[] = [];
    for (const [what, uri] of UNSAFE_REDIRECT_URIS) {
      const answer = await this.register(endpoint, {
        client_name: `${CLIENT_NAME_PREFIX} (must be refused)`,
        redirect_uris: [uri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      if ('failure' in answer || answer.status < 400 || answer.status >= 500) accepted.push(what);
    }
    const names = listed(UNSAFE_REDIRECT_URIS.map(([what]) => what));
    if (accepted.length) this.record(R.unsafeRedirects, 'fail', `accepted (or did not refuse) ${listed(accepted)}`);
    else this.record(R.unsafeRedirects, 'pass', `refused ${names}`);
  }

  // ---- flows ----

  private async runFlows(doc: Record<string, unknown>, registrationEndpoint: string | undefined): Promise<Flows> {
    const flows = new Flows(String(doc.authorization_endpoint), String(doc.token_endpoint));
    flows.clientId = this.options.clientId;
    if (!flows.clientId) {
      if (!registrationEndpoint) {
        flows.notRunnable = 'no registration endpoint to register a client for the flows; pass --client-id of a public client allowed the redirect URI';
        this.record(R.flow, 'not checkable', flows.notRunnable);
        return flows;
      }
      const answer = await this.register(registrationEndpoint, {
        client_name: `${CLIENT_NAME_PREFIX} (flows)`,
        redirect_uris: [this.options.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      const body = ('failure' in answer ? {} : (answer.json ?? {})) as Record<string, unknown>;
      if ('failure' in answer || typeof body.client_id !== 'string') {
        flows.notRunnable = `could not register a client for the flows (${'failure' in answer ? answer.failure : `HTTP ${answer.status} ${errorCode(body.error)}`})`;
        this.record(R.flow, 'fail', flows.notRunnable);
        return flows;
      }
      flows.clientId = body.client_id;
    }

    // The flow a connector runs: the resource, vault:read, offline_access (with prompt=consent,
    // as the MCP SDK sends it), PKCE S256, a state.
    const main = await this.authorize(flows, this.options.resource, `${READ_SCOPE} offline_access`, 'consent');
    flows.mainCallback = main.outcome.kind === 'callback' ? main.outcome.params : undefined;
    if (main.outcome.kind !== 'callback') {
      flows.notRunnable = this.describeStop(main.outcome);
      this.record(R.flow, main.outcome.kind === 'refused' || main.outcome.kind === 'unreachable' ? 'fail' : 'not checkable', flows.notRunnable);
    } else {
      const params = main.outcome.params;
      const code = params.get('code');
      if (!code) {
        flows.notRunnable = `the authorization response is ${errorCode(params.get('error'))}, not a code`;
        this.record(R.flow, 'fail', flows.notRunnable);
      } else if (params.get('state') !== main.state) {
        flows.notRunnable = 'the authorization response does not return the state (RFC 6749 section 4.1.2)';
        this.record(R.flow, 'fail', flows.notRunnable);
      } else {
        flows.tokens = await this.exchange(flows, code, main.verifier, this.options.resource);
        const body = flows.tokens.body;
        if (flows.tokens.status !== 200 || typeof body.access_token !== 'string') {
          flows.notRunnable = `the token request was refused: HTTP ${flows.tokens.status} ${errorCode(body.error)}`;
          this.record(R.flow, 'fail', flows.notRunnable);
          flows.tokens = undefined;
        } else if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer') {
          this.record(R.flow, 'fail', `token_type is ${shown(body.token_type)}, not Bearer: the Worker takes Bearer tokens only`);
        } else {
          this.record(R.flow, 'pass', `authorized a ${this.options.clientId ? 'pre-registered' : 'registered'} public client and redeemed the code`);
        }
      }
    }

    if (!flows.notRunnable) {
      // A second code, redeemed with the wrong verifier: PKCE must be enforced (RFC 7636 section 4.6).
      const second = await this.authorize(flows, this.options.resource, READ_SCOPE);
      const secondCode = second.outcome.kind === 'callback' ? second.outcome.params.get('code') : null;
      if (secondCode) {
        const wrong = await this.exchange(flows, secondCode, pkce().verifier, this.options.resource);
        flows.wrongVerifier = wrong.status === 200 ? 'accepted' : 'refused';
      }
    }

    // A foreign resource: refused at the authorization endpoint, or at the latest at the token endpoint.
    const foreign = await this.authorize(flows, this.options.foreignResource, READ_SCOPE);
    flows.foreign = foreign.outcome;
    if (foreign.outcome.kind === 'callback') {
      const code = foreign.outcome.params.get('code');
      if (code) flows.foreignTokens = await this.exchange(flows, code, foreign.verifier, this.options.foreignResource);
    }
    return flows;
  }

  private describeStop(outcome: AuthorizationOutcome): string {
    switch (outcome.kind) {
      case 'page':
        return `the server shows a page at ${outcome.where} (sign-in or consent): a person must approve, so the token checks cannot run; run against a server that approves loopback clients without a page`;
      case 'elsewhere':
        return `the server sends the browser to ${outcome.host} to sign in: a person must act, so the token checks cannot run`;
      case 'refused':
        return `the authorization endpoint answered HTTP ${outcome.status} without sending the browser back to the client`;
      case 'unreachable':
        return `the authorization endpoint could not be reached (${outcome.why})`;
      default:
        return 'the authorization response is not a redirect to the client';
    }
  }

  /** Runs the browser's part of one authorization request, following the server's own redirects. */
  private async authorize(flows: Flows, resource: string, scope: string, prompt?: string): Promise<{ outcome: AuthorizationOutcome; state: string; verifier: string }> {
    const challenge = pkce();
    const state = randomBytes(16).toString('base64url');
    const url = new URL(flows.authorizationEndpoint);
    const params: Record<string, string> = {
      response_type: 'code',
      client_id: flows.clientId!,
      redirect_uri: this.options.redirectUri,
      scope,
      resource,
      code_challenge: challenge.challenge,
      code_challenge_method: 'S256',
      state,
      ...(prompt ? { prompt } : {}),
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const serverOrigins = new Set([new URL(flows.authorizationEndpoint).origin, new URL(this.options.issuer).origin]);
    const jar = new CookieJar();
    let next = url;
    for (let hop = 0; hop < MAX_REDIRECT_HOPS; hop += 1) {
      let response: Response;
      try {
        response = await fetch(next, {
          redirect: 'manual',
          headers: { cookie: jar.header(next.origin), accept: 'text/html' },
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
      } catch (error) {
        return { outcome: { kind: 'unreachable', why: error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : 'connection failed' }, state, verifier: challenge.verifier };
      }
      jar.store(next.origin, response.headers);
      await response.body?.cancel();
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        const target = new URL(location, next);
        if (sameRedirectTarget(target, this.options.redirectUri)) {
          return { outcome: { kind: 'callback', params: target.searchParams }, state, verifier: challenge.verifier };
        }
        if (!serverOrigins.has(target.origin)) return { outcome: { kind: 'elsewhere', host: shown(target.host) }, state, verifier: challenge.verifier };
        next = target;
        continue;
      }
      if (response.status >= 200 && response.status < 300) {
        return { outcome: { kind: 'page', where: shown(`${next.host}${next.pathname}`) }, state, verifier: challenge.verifier };
      }
      return { outcome: { kind: 'refused', status: response.status }, state, verifier: challenge.verifier };
    }
    return { outcome: { kind: 'refused', status: 0 }, state, verifier: challenge.verifier };
  }

  private async exchange(flows: Flows, code: string, verifier: string, resource: string): Promise<Tokens> {
    return this.tokenRequest(flows, {
      grant_type: 'authorization_code',
      client_id: flows.clientId!,
      code,
      redirect_uri: this.options.redirectUri,
      code_verifier: verifier,
      resource,
    });
  }

  private async tokenRequest(flows: Flows, params: Record<string, string>): Promise<Tokens> {
    const answer = await this.tryRequest(flows.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(params),
    });
    if ('failure' in answer) return { status: 0, body: { error: answer.failure } };
    const body = answer.json !== null && typeof answer.json === 'object' ? (answer.json as Record<string, unknown>) : {};
    return { status: answer.status, body };
  }

  // ---- what the flows showed ----

  private checkPkce(doc: Record<string, unknown>, flows: Flows | undefined): void {
    const methods = doc.code_challenge_methods_supported;
    const advertised = Array.isArray(methods) && methods.includes('S256');
    const problems: string[] = [];
    if (!advertised) problems.push('S256 is not in code_challenge_methods_supported (MCP clients refuse to continue without it)');
    if (flows?.wrongVerifier === 'accepted') problems.push('a code was redeemed with the wrong code_verifier (RFC 7636 section 4.6)');
    if (problems.length) this.record(R.pkce, 'fail', listed(problems));
    else if (flows?.wrongVerifier === 'refused') this.record(R.pkce, 'pass', 'S256 advertised, and a wrong code_verifier is refused');
    else this.record(R.pkce, 'pass', `S256 advertised (enforcement not checkable: ${flows?.notRunnable ?? 'no second code'})`);
  }

  private checkIssParameter(doc: Record<string, unknown>, flows: Flows | undefined): void {
    const advertised = doc.authorization_response_iss_parameter_supported === true;
    const redirects = [flows?.mainCallback, flows?.foreign?.kind === 'callback' ? flows.foreign.params : undefined].filter(
      (params): params is URLSearchParams => params !== undefined,
    );
    const wrong = redirects.filter((params) => params.get('iss') !== this.options.issuer);
    const problems: string[] = [];
    if (!advertised) problems.push('authorization_response_iss_parameter_supported is not true');
    if (wrong.length) problems.push(`${wrong.length} of ${redirects.length} redirects to the client carry no iss equal to the issuer`);
    if (problems.length) this.record(R.iss, 'fail', listed(problems));
    else if (redirects.length === 1) this.record(R.iss, 'pass', 'advertised, and the redirect to the client carries iss');
    else if (redirects.length) this.record(R.iss, 'pass', 'advertised, and both redirects to the client carry iss');
    else this.record(R.iss, 'not checkable', 'advertised, but no redirect to the client was seen');
  }

  private checkForeignResource(flows: Flows | undefined): void {
    const outcome = flows?.foreign;
    if (!outcome) {
      this.record(R.resourceIndicators, 'not checkable', flows?.notRunnable ?? 'the flows could not run');
      return;
    }
    if (outcome.kind !== 'callback') {
      this.record(R.resourceIndicators, outcome.kind === 'refused' ? 'fail' : 'not checkable', `for ${this.options.foreignResource}: ${this.describeStop(outcome)}`);
      return;
    }
    const error = outcome.params.get('error');
    if (error === 'invalid_target') {
      this.record(R.resourceIndicators, 'pass', `${this.options.foreignResource} refused at the authorization endpoint`);
    } else if (error) {
      this.record(R.resourceIndicators, 'fail', `${this.options.foreignResource} answered ${errorCode(error)}, not invalid_target`);
    } else if (flows.foreignTokens && flows.foreignTokens.status === 200) {
      this.record(R.resourceIndicators, 'fail', `a token was issued for ${this.options.foreignResource}`);
    } else if (flows.foreignTokens?.body.error === 'invalid_target') {
      this.record(R.resourceIndicators, 'pass', `${this.options.foreignResource} refused at the token endpoint (a code was issued first)`);
    } else {
      this.record(R.resourceIndicators, 'fail', `${this.options.foreignResource}: a code was issued and the token endpoint answered ${errorCode(flows.foreignTokens?.body.error)}, not invalid_target`);
    }
  }

  private async checkAccessToken(flows: Flows | undefined, jwks: JSONWebKeySet | undefined): Promise<void> {
    const requirements = [R.tokenFormat, R.tokenClaims, R.audience, R.scope, R.lifetime];
    const token = flows?.tokens?.body.access_token;
    if (typeof token !== 'string') {
      for (const requirement of requirements) this.record(requirement, 'not checkable', flows?.notRunnable ?? 'no access token was issued');
      return;
    }
    let header: ReturnType<typeof decodeProtectedHeader>;
    let claims: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      claims = decodeJwt(token);
    } catch {
      this.record(R.tokenFormat, 'fail', 'the access token is not a JWT: the Worker verifies JWT access tokens only');
      for (const requirement of requirements.slice(1)) this.record(requirement, 'not checkable', 'the access token is not a JWT');
      return;
    }

    const formatProblems: string[] = [];
    const typ = typeof header.typ === 'string' ? header.typ.toLowerCase() : undefined;
    if (typ !== 'at+jwt' && typ !== 'application/at+jwt') formatProblems.push(`typ is ${header.typ === undefined ? 'absent' : shown(header.typ, 20)}, not at+jwt`);
    const verifiable = typeof header.alg === 'string' && WORKER_ALGORITHMS.includes(header.alg);
    if (!verifiable) formatProblems.push(`signed ${shown(header.alg, 20)} (the Worker takes ${listed(WORKER_ALGORITHMS).replace(' and ', ' or ')})`);
    if (typeof header.kid !== 'string') formatProblems.push('no kid');
    else if (jwks && !jwks.keys.some((key) => key.kid === header.kid)) formatProblems.push('its kid is not in the JWK set');
    if (!jwks) formatProblems.push('no usable JWK set to verify it with');
    if (formatProblems.length === 0) {
      try {
        await jwtVerify(token, createLocalJWKSet(jwks!), { algorithms: WORKER_ALGORITHMS, clockTolerance: 30 });
      } catch {
        formatProblems.push('its signature does not verify with the JWK set');
      }
    }
    if (formatProblems.length) this.record(R.tokenFormat, 'fail', listed(formatProblems));
    else this.record(R.tokenFormat, 'pass', `typ ${shown(header.typ, 20)}, ${shown(header.alg, 10)}, kid found, signature verifies`);

    const claimProblems: string[] = [];
    const missing = REQUIRED_CLAIMS.filter(([name, kind]) => {
      const value = claims[name];
      if (kind === 'audience') return !(typeof value === 'string' || (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')));
      return typeof value !== kind;
    }).map(([name]) => name);
    if (missing.length) claimProblems.push(`missing or mistyped: ${missing.join(', ')}`);
    if (typeof claims.iss === 'string' && claims.iss !== this.options.issuer) claimProblems.push(`iss is ${shown(JSON.stringify(claims.iss))}, not the issuer`);
    if (typeof claims.client_id === 'string' && claims.client_id !== flows!.clientId) claimProblems.push('client_id is not the client that asked');
    if (claimProblems.length) this.record(R.tokenClaims, 'fail', listed(claimProblems));
    else this.record(R.tokenClaims, 'pass', 'all present; iss is the issuer, client_id the client');

    this.checkAudience(R.audience, claims.aud);

    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
    if (scopes.includes(READ_SCOPE)) this.record(R.scope, 'pass', `scope ${shown(claims.scope)}`);
    else this.record(R.scope, 'fail', claims.scope === undefined ? 'no scope claim' : `scope ${shown(JSON.stringify(claims.scope))} lacks ${READ_SCOPE}`);

    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') {
      this.record(R.lifetime, 'fail', 'exp or iat missing');
    } else {
      const seconds = claims.exp - claims.iat;
      if (seconds > MAX_ACCESS_TOKEN_SECONDS) this.record(R.lifetime, 'fail', `${seconds} s: the Worker has no revocation list, so lifetime bounds a leaked token`);
      else this.record(R.lifetime, 'pass', `${seconds} s`);
    }
  }

  /** aud must be the requested resource: that string, or a list holding only it (RFC 9068 section 3). */
  private checkAudience(requirement: string, aud: unknown): void {
    const resource = this.options.resource;
    if (aud === undefined) {
      this.record(requirement, 'fail', `no aud: the token is not bound to ${resource}`);
      return;
    }
    const values = Array.isArray(aud) ? aud : [aud];
    if (values.length >= 1 && values.every((value) => value === resource)) {
      this.record(requirement, 'pass', `aud is ${resource}`);
      return;
    }
    this.record(
      requirement,
      'fail',
      values.includes(resource) ? `aud also names ${values.length - 1} other audience(s)` : `aud is ${shown(JSON.stringify(aud))}, not ${resource}`,
    );
  }

  private async checkRefresh(doc: Record<string, unknown>, flows: Flows | undefined, jwks: JSONWebKeySet | undefined): Promise<void> {
    const grantTypes = Array.isArray(doc.grant_types_supported) ? doc.grant_types_supported : ['authorization_code', 'implicit'];
    const advertised = grantTypes.includes('refresh_token');
    const refreshToken = flows?.tokens?.body.refresh_token;
    if (!flows?.tokens) {
      this.record(R.refresh, advertised ? 'not checkable' : 'fail', advertised ? (flows?.notRunnable ?? 'no tokens were issued') : 'grant_types_supported lacks refresh_token');
      this.record(R.rotation, 'not checkable', 'no refresh token to use');
      return;
    }
    if (typeof refreshToken !== 'string') {
      const problems = [...(advertised ? [] : ['grant_types_supported lacks refresh_token']), 'no refresh token was issued although offline_access was asked'];
      this.record(R.refresh, 'fail', `${listed(problems)}: users would sign in again when the access token expires`);
      this.record(R.rotation, 'not checkable', 'no refresh token to use');
      return;
    }
    const refresh = (token: string) =>
      this.tokenRequest(flows, { grant_type: 'refresh_token', client_id: flows.clientId!, refresh_token: token, resource: this.options.resource });
    const refreshed = await refresh(refreshToken);
    if (refreshed.status !== 200 || typeof refreshed.body.access_token !== 'string') {
      this.record(R.refresh, 'fail', `the refresh was refused: HTTP ${refreshed.status} ${errorCode(refreshed.body.error)}`);
      this.record(R.rotation, 'not checkable', 'the refresh did not succeed');
      return;
    }
    let aud: unknown;
    let verified = false;
    try {
      if (jwks) {
        aud = (await jwtVerify(refreshed.body.access_token, createLocalJWKSet(jwks), { algorithms: WORKER_ALGORITHMS, clockTolerance: 30 })).payload.aud;
        verified = true;
      } else {
        aud = decodeJwt(refreshed.body.access_token).aud;
      }
    } catch {
      aud = undefined;
    }
    const problems: string[] = [];
    if (!advertised) problems.push('grant_types_supported lacks refresh_token');
    const values = Array.isArray(aud) ? aud : [aud];
    if (!(values.length >= 1 && values.every((value) => value === this.options.resource))) problems.push('the refreshed access token is not bound to the resource');
    if (problems.length) this.record(R.refresh, 'fail', listed(problems));
    else this.record(R.refresh, 'pass', `issued with offline_access; a refresh gave a${verified ? ' verified' : 'n'} access token for ${this.options.resource}`);

    const next = refreshed.body.refresh_token;
    if (typeof next !== 'string' || next === refreshToken) {
      this.record(R.rotation, 'fail', 'the refresh returned no new refresh token: a leaked one stays usable for its whole life');
      return;
    }
    const reused = await refresh(refreshToken);
    if (reused.status === 200) this.record(R.rotation, 'fail', 'a new refresh token was issued, but the used one still works');
    else this.record(R.rotation, 'pass', `a new refresh token at each use; the used one is refused (${errorCode(reused.body.error)})`);
  }
}

/** What the flows produced, for the checks that read them. */
class Flows {
  clientId: string | undefined;
  /** Why the main flow did not reach tokens, when it did not. */
  notRunnable: string | undefined;
  mainCallback: URLSearchParams | undefined;
  tokens: Tokens | undefined;
  wrongVerifier: 'accepted' | 'refused' | undefined;
  foreign: AuthorizationOutcome | undefined;
  foreignTokens: Tokens | undefined;

  constructor(
    readonly authorizationEndpoint: string,
    readonly tokenEndpoint: string,
  ) {}
}

/** The redirect goes to the client: the same scheme, authority and path as the redirect URI. */
function sameRedirectTarget(target: URL, redirectUri: string): boolean {
  const expected = new URL(redirectUri);
  return target.protocol === expected.protocol && target.host === expected.host && target.pathname === expected.pathname;
}

/** RFC 7636 section 4.1-4.2: a random verifier and its S256 challenge. */
function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The report: a heading, one line per requirement (`pass`, `fail` or `not checkable`, then why), a summary. */
export function formatReport(options: Pick<HubCheckOptions, 'issuer' | 'resource'>, results: RequirementResult[]): string {
  const width = 'not checkable'.length;
  const lines = [`check-hub: ${options.issuer} as the authorization server for ${options.resource}`];
  for (const { requirement, status, why } of results) lines.push(`${status.padEnd(width)}  ${requirement}: ${why}`);
  const count = (status: Status) => results.filter((result) => result.status === status).length;
  lines.push(`${count('pass')} pass, ${count('fail')} fail, ${count('not checkable')} not checkable`);
  return `${lines.join('\n')}\n`;
}
