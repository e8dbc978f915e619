/**
 * The Hub's authorization contract as checks (docs/AUTH.md, "What the Hub's authorization server
 * must issue"): what the hosted MCP connectors (claude.ai, ChatGPT, Claude Code, Cursor, VS Code,
 * mcp-remote, the MCP SDK) do with an authorization server, done against a real one, one result
 * per requirement; and every token it obtains judged by the Worker's own verification
 * (hub-token-judge.ts). `scripts/check-hub.ts` is the command.
 *
 * What it does to the server: reads its metadata and key set; registers each known connector as
 * that connector registers, and three clients that must be refused (when it offers registration;
 * the flows reuse mcp-remote's registration, so no other is made); sends each connector's client ID
 * metadata document authorization request (when it offers them) without completing it; runs up to
 * four authorization requests for a loopback redirect URI, following the server's redirects like a
 * browser and stopping where a person would have to act (or, with `signIn`, letting a person act);
 * redeems the codes, refreshes once and replays the used refresh token. Every request goes through
 * HubNetwork (https on every hop, no private addresses for a remote issuer, capped bodies). Nothing
 * it prints carries a token, code, secret or client id: only statuses, OAuth error codes, claim
 * names, and values the server publishes (its issuer, its paths).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { JWTPayload, ProtectedHeaderParameters } from 'jose';
import { JWKS_DEADLINE_MS, MAX_JWKS_BYTES } from '../../src/auth/jwks';
import { HOSTED_CONTEXT_CLAIMS, hostedContextClaims } from '../../src/auth/jwt';
import {
  CONNECTOR_CLIENTS,
  connectorRegistration,
  metadataDocumentProducts,
  registrationOnlyProducts,
  withPort,
  type ConnectorClient,
} from './connector-clients';
import { HubNetwork, isLoopbackHost, REFUSED, type Answer, type Exchange, type Resolver, type Transport } from './hub-network';
import { decodeToken, judgeToken, resourcePathOf, verificationPath, type Judgement, type VerificationPath, type WorkerTokenSettings } from './hub-token-judge';

export type Status = 'pass' | 'warn' | 'fail' | 'not checkable';

export interface RequirementResult {
  /** What is required, with the section of the standard that requires it. */
  requirement: string;
  status: Status;
  /** A short reason, safe to print. */
  why: string;
}

/**
 * A person's part of one authorization request (`--interactive`): open the URL, sign in and
 * consent, and hand back the parameters the browser brought to the redirect URI.
 */
export type SignIn = (authorizationUrl: URL, redirectUri: string) => Promise<URLSearchParams | { failure: string }>;

export interface HubCheckOptions {
  /** The issuer identifier, exactly as the Worker's OAUTH_AUTHORIZATION_SERVER names it. */
  issuer: string;
  /** The Worker resource the tokens are for, e.g. https://edge.example.com/mcp. */
  resource: string;
  /** Loopback redirect URI for the flows (mcp-remote's shape, so its registration serves them). */
  redirectUri: string;
  /** A resource the server must refuse (RFC 8707 section 2). */
  foreignResource: string;
  /** A pre-registered public client allowed `redirectUri`, for a server without registration. */
  clientId?: string;
  timeoutMs: number;
  /** The Worker's token settings (the shared secret and the rest), for judging shared-secret tokens. */
  worker?: WorkerTokenSettings;
  /** A person signs in for the main flow (`--interactive`); without it the flow stops at any page. */
  signIn?: SignIn;
  /** Tests name hosts and answer requests without DNS or sockets. */
  network?: { resolve?: Resolver; transport?: Transport };
}

export const READ_SCOPE = 'vault:read';
export const OFFLINE_ACCESS = 'offline_access';
/** Longest access-token lifetime the contract allows: the Worker keeps no revocation list. */
export const MAX_ACCESS_TOKEN_SECONDS = 3600;
/** The name registered clients carry, so an operator can find and delete them. */
export const CLIENT_NAME_PREFIX = 'check-hub';
/** Where the Hub answers the hosted context of a caller (its gateway's GET route). */
export const HOSTED_CONTEXT_PATH = '/api/v1/hosted-context';
/** The connector whose registration the flows use: its callback is a loopback one check-hub can listen on. */
const FLOWS_CONNECTOR = 'mcp-remote';
/** RFC 9068 section 2.2: claims every JWT access token carries. */
const RFC9068_CLAIMS = ['iss', 'exp', 'aud', 'sub', 'client_id', 'iat', 'jti'];
/** Claims a shared-secret access token needs for the Worker (exp, sub) and for a reader of it (iat). */
const SHARED_SECRET_CLAIMS = ['exp', 'sub', 'iat'];
/** JWK members that only a private or symmetric key has (RFC 7517, RFC 7518 section 6). */
const PRIVATE_KEY_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
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
  registration: 'client registration by client ID metadata document or dynamic registration (MCP 2026-07-28, client registration)',
  authMethods: 'token endpoint auth methods the connectors register with, none and client_secret_post (RFC 7591 section 2)',
  connector: (name: string) => `registers ${name} as it registers (RFC 7591 section 3)`,
  unsafeRedirects: 'refuses unsafe redirect URIs (OAuth 2.1 section 2.3.1, RFC 6749 section 3.1.2)',
  metadataDocuments: 'authorization requests by client ID metadata document (SEP-991, draft-ietf-oauth-client-id-metadata-document)',
  flow: 'authorization code flow with PKCE',
  loopbackPort: "a native client's loopback redirect on another port than registered (RFC 8252 section 7.3)",
  iss: 'iss on the authorization response (RFC 9207)',
  resourceIndicators: 'refuses a foreign resource with invalid_target (RFC 8707 section 2)',
  workerAccepts: 'access token the Worker accepts, by its own verification (RFC 9068 through the key set, or HS256 with the shared secret)',
  tokenClaims: 'access token claims (RFC 9068 section 2.2, or the shared-secret token claims)',
  audience: 'access token aud is the requested resource (RFC 8707 section 2, RFC 9068 section 3)',
  scope: `access token scope or scopes holds ${READ_SCOPE} (RFC 9068 section 2.2.3)`,
  lifetime: `access token lifetime at most ${MAX_ACCESS_TOKEN_SECONDS} s`,
  hostedContext: 'hosted context of the caller, role, canister user, vaults and folders (docs/AUTH.md, Claims)',
  offlineAccess: 'offline_access in scopes_supported, and a refresh token issued (OAuth 2.1 section 4.3)',
  refresh: 'a refresh gives an access token the Worker accepts (OAuth 2.1 section 4.3)',
  rotation: 'refresh token rotation, a used one refused with invalid_grant (OAuth 2.1 section 4.3.1, RFC 6749 section 5.2)',
  jwks: `JWK set as the Worker fetches it, https, no redirect, at most ${MAX_JWKS_BYTES / 1024} KiB, every key with a kid, no private keys (RFC 8414 section 2, RFC 7517)`,
} as const;

/** The connectors check-hub registers, in the report's order. */
const REGISTERING = CONNECTOR_CLIENTS.filter((client) => client.registration !== null);

/** Every requirement, in the order the report lists them. */
export function requirementOrder(): string[] {
  return Object.values(R).flatMap((requirement) => (typeof requirement === 'string' ? [requirement] : REGISTERING.map((client) => requirement(client.name))));
}

/** How many registrations check-hub makes when the server offers registration (the flows reuse mcp-remote's when the redirect URI has its shape). */
export function registrationCount(redirectUri: string): number {
  return REGISTERING.length + UNSAFE_REDIRECT_URIS.length + (flowsPort(redirectUri) === null ? 1 : 0);
}

/** The port of a redirect URI of mcp-remote's shape (http://localhost:<port>/oauth/callback), else null. */
export function flowsPort(redirectUri: string): number | null {
  const match = /^http:\/\/localhost:(\d{1,5})\/oauth\/callback$/.exec(redirectUri);
  return match ? Number(match[1]) : null;
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

function pathOf(value: string): string {
  const url = URL.parse(value);
  return url ? url.pathname : shown(value);
}

function listed(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function objectOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
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

/** Where one authorization request ended. */
type AuthorizationOutcome =
  | { kind: 'callback'; params: URLSearchParams }
  | { kind: 'page'; where: string }
  | { kind: 'elsewhere'; host: string }
  | { kind: 'refused'; status: number; error?: string }
  | { kind: 'unsafe'; why: string }
  | { kind: 'unreachable'; why: string };

interface Tokens {
  status: number;
  body: Record<string, unknown>;
}

/** The client the flows run as, and how it authenticates at the token endpoint (as the registration answered). */
interface FlowClient {
  clientId: string;
  secret?: string;
  method: string;
  /** Registered by check-hub (as mcp-remote), or given with --client-id. */
  registered: boolean;
}

/**
 * Runs every check against the server and returns one result per requirement, in a fixed order.
 */
export async function checkHub(options: HubCheckOptions): Promise<RequirementResult[]> {
  if (resourcePathOf(options.resource) === null) throw new TypeError('the resource must be one of the Worker\'s: <origin>, <origin>/mcp or <origin>/mcp/vaults/<id>');
  const network = new HubNetwork({ issuer: options.issuer, timeoutMs: options.timeoutMs, ...options.network });
  try {
    return await new HubCheck(options, network).run();
  } finally {
    await network.close();
  }
}

/** Registrations in one run: counted, and stopped at the server's limit (HTTP 429). */
class Registrar {
  private sent = 0;
  /** Why no more are sent: the server's registration limit. */
  limited: string | undefined;

  constructor(
    private readonly network: HubNetwork,
    readonly endpoint: string | undefined,
  ) {}

  async register(metadata: Record<string, unknown>): Promise<Answer | { limited: string }> {
    if (this.limited) return { limited: this.limited };
    this.sent += 1;
    const answer = await this.network.request(this.endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(metadata),
    });
    if (!('failure' in answer) && answer.status === 429) {
      const retryAfter = answer.headers.get('retry-after');
      const wait = retryAfter && /^\d{1,6}$/.test(retryAfter) ? `, retry after ${retryAfter} s` : '';
      this.limited = `the server's registration limit answered HTTP 429 at check-hub's registration ${this.sent}${wait}`;
      return { limited: this.limited };
    }
    return answer;
  }
}

class HubCheck {
  private readonly results: RequirementResult[] = [];
  private tokenEndpoint = '';
  private authorizationEndpoint = '';

  constructor(
    private readonly options: HubCheckOptions,
    private readonly network: HubNetwork,
  ) {}

  private record(requirement: string, status: Status, why: string): void {
    this.results.push({ requirement, status, why });
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
    const endpointsUsable = await this.checkEndpoints(doc);
    const jwks = await this.fetchJwks(doc);

    const registration = await this.checkRegistrationMetadata(doc);
    this.checkAuthMethods(doc);
    const registrar = new Registrar(this.network, registration);
    const flowClient = await this.checkConnectorRegistrations(doc, registrar);
    await this.checkUnsafeRedirects(registrar);
    await this.checkMetadataDocuments(doc, endpointsUsable);

    const flows = endpointsUsable ? await this.runFlows(doc, registrar, flowClient) : undefined;
    if (!flows) {
      this.record(R.flow, 'not checkable', 'no usable authorization and token endpoints');
      this.record(R.loopbackPort, 'not checkable', 'no usable authorization and token endpoints');
    }
    this.checkPkce(doc, flows);
    this.checkIssParameter(doc, flows);
    this.checkForeignResource(flows);
    const tokenPath = await this.checkAccessToken(flows, jwks);
    await this.checkRefresh(doc, flows, jwks);
    this.recordJwks(jwks, tokenPath);

    const order = requirementOrder();
    return [...this.results].sort((a, b) => order.indexOf(a.requirement) - order.indexOf(b.requirement));
  }

  /**
   * RFC 8414 section 3.1 (path insertion) first, then OpenID discovery, in the order MCP clients
   * try them. A redirect is not followed: the metadata lives where the issuer says.
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
      const answer = await this.network.request(`${issuer.origin}${candidate}`, { headers: { accept: 'application/json' } });
      if ('failure' in answer) {
        tried.push(`${candidate} ${answer.failure}`);
        continue;
      }
      if (answer.status === 200 && answer.json !== null && typeof answer.json === 'object' && !Array.isArray(answer.json)) {
        this.record(
          R.metadata,
          'pass',
          rfc8414 ? `RFC 8414 metadata at ${candidate}` : `OpenID discovery at ${candidate} (no RFC 8414 document; MCP clients fall back to this one)`,
        );
        return answer.json as Record<string, unknown>;
      }
      const redirect = answer.status >= 300 && answer.status < 400 ? ' (a redirect, not followed)' : '';
      tried.push(`${candidate} HTTP ${answer.status}${answer.status === 200 ? ' (not a JSON object)' : redirect}`);
    }
    this.record(R.metadata, 'fail', `none found: ${tried.join('; ')}`);
    return undefined;
  }

  private checkIssuer(doc: Record<string, unknown>): void {
    const problems: string[] = [];
    if (doc.issuer !== this.options.issuer) {
      problems.push(doc.issuer === undefined ? 'the metadata has no issuer' : `the metadata says ${shown(JSON.stringify(doc.issuer))}`);
    }
    const issuer = new URL(this.options.issuer);
    if (issuer.protocol !== 'https:' && !isLoopbackHost(issuer.hostname)) problems.push('the issuer must be https (RFC 8414 section 2)');
    if (problems.length) this.record(R.issuer, 'fail', `${listed(problems)}; tokens' iss must equal ${this.options.issuer} exactly`);
    else this.record(R.issuer, 'pass', `${this.options.issuer}`);
  }

  /** Why an endpoint the metadata names cannot be used (not a URL, or refused by check-hub's rules), or null. */
  private async endpointProblem(name: string, value: unknown): Promise<string | null> {
    if (value === undefined) return `no ${name}`;
    if (typeof value !== 'string' || !URL.parse(value)) return `${name} is not a URL`;
    const refused = await this.network.refusal(value);
    return refused ? `${name} refused (${refused})` : null;
  }

  private async checkEndpoints(doc: Record<string, unknown>): Promise<boolean> {
    const problems: string[] = [];
    let usable = true;
    for (const name of ['authorization_endpoint', 'token_endpoint']) {
      const problem = await this.endpointProblem(name, doc[name]);
      if (problem) {
        problems.push(problem);
        usable = false;
      }
    }
    const responseTypes = doc.response_types_supported;
    if (!Array.isArray(responseTypes) || !responseTypes.includes('code')) problems.push('response_types_supported lacks code');
    // RFC 8414 section 2: omitted grant_types_supported means authorization_code and implicit.
    const grantTypes = doc.grant_types_supported;
    if (Array.isArray(grantTypes) && !grantTypes.includes('authorization_code')) problems.push('grant_types_supported lacks authorization_code');
    if (usable) {
      this.authorizationEndpoint = String(doc.authorization_endpoint);
      this.tokenEndpoint = String(doc.token_endpoint);
    }
    if (problems.length) this.record(R.endpoints, 'fail', listed(problems));
    else this.record(R.endpoints, 'pass', `${pathOf(this.authorizationEndpoint)} and ${pathOf(this.tokenEndpoint)}`);
    return usable;
  }

  // ---- the key set, fetched as the Worker fetches it ----

  private async fetchJwks(doc: Record<string, unknown>): Promise<JwksResult> {
    const uri = doc.jwks_uri;
    if (uri === undefined) return { status: 'absent' };
    const problem = await this.endpointProblem('jwks_uri', uri);
    if (problem) return { status: 'unusable', why: problem };
    const where = pathOf(String(uri));
    // The Worker's fetch (src/auth/jwks.ts): no redirects, its size cap, its deadline.
    const answer = await this.network.request(String(uri), { headers: { accept: 'application/json' }, maxBytes: MAX_JWKS_BYTES, timeoutMs: JWKS_DEADLINE_MS });
    const forWorker = { uri: String(uri) };
    if ('failure' in answer) {
      const why = answer.failure.startsWith('a body over') ? `is over ${MAX_JWKS_BYTES} bytes: the Worker refuses a larger set unread` : answer.failure;
      return { status: 'failed', why: `${where} ${why}`, ...forWorker };
    }
    if (answer.status >= 300 && answer.status < 400) {
      const location = URL.parse(answer.headers.get('location') ?? '', String(uri));
      return {
        status: 'failed',
        why: `${where} redirects (HTTP ${answer.status}${location ? ` to ${shown(location.host)}` : ''}): the Worker follows no redirect, so every key-set token would be answered 503`,
        ...forWorker,
      };
    }
    if (answer.status !== 200) return { status: 'failed', why: `${where} HTTP ${answer.status}`, ...forWorker };
    const keys = objectOf(answer.json).keys;
    if (!Array.isArray(keys) || keys.length === 0) return { status: 'failed', why: `${where} has no keys`, ...forWorker };
    const problems: string[] = [];
    const kids = keys.map((key) => objectOf(key).kid);
    const withoutKid = kids.filter((kid) => typeof kid !== 'string' || kid === '').length;
    if (withoutKid) problems.push(`${withoutKid} of ${keys.length} keys without a kid`);
    if (new Set(kids).size !== kids.length) problems.push('two keys share a kid');
    const secret = keys.filter((key) => PRIVATE_KEY_MEMBERS.some((member) => Object.hasOwn(objectOf(key), member))).length;
    if (secret) problems.push(`${secret} key(s) with private or symmetric key material published`);
    if (problems.length) return { status: 'failed', why: `${where}: ${listed(problems)}`, ...forWorker };
    return { status: 'ok', why: `${where}: ${keys.length} public key(s), each with a kid`, ...forWorker };
  }

  private recordJwks(jwks: JwksResult, tokenPath: TokenPathSeen): void {
    switch (jwks.status) {
      case 'ok':
        this.record(R.jwks, 'pass', jwks.why);
        return;
      case 'failed':
      case 'unusable':
        this.record(R.jwks, 'fail', jwks.why);
        return;
      case 'absent':
        if (tokenPath === 'shared secret') this.record(R.jwks, 'pass', 'no jwks_uri, and none needed: the access tokens are verified with the shared secret');
        else if (tokenPath === 'key set') this.record(R.jwks, 'fail', 'no jwks_uri: nothing to verify its key-set access tokens with');
        else this.record(R.jwks, 'warn', 'no jwks_uri: the Worker can take this server\'s tokens only if they are HS256 with a shared secret');
    }
  }

  // ---- registration ----

  /** The registration line; returns the registration endpoint when it may be used. */
  private async checkRegistrationMetadata(doc: Record<string, unknown>): Promise<string | undefined> {
    const cimd = doc.client_id_metadata_document_supported === true;
    const offered = doc.registration_endpoint !== undefined;
    const problem = offered ? await this.endpointProblem('registration_endpoint', doc.registration_endpoint) : null;
    const endpoint = offered && !problem ? String(doc.registration_endpoint) : undefined;
    const dcrOnly = registrationOnlyProducts();
    if (problem) {
      this.record(R.registration, 'fail', problem);
    } else if (endpoint && cimd) {
      this.record(R.registration, 'pass', `client ID metadata documents, and dynamic registration at ${pathOf(endpoint)}`);
    } else if (endpoint) {
      this.record(
        R.registration,
        'pass',
        `dynamic registration at ${pathOf(endpoint)}; client ID metadata documents are not advertised (MCP 2026-07-28 deprecates dynamic registration in their favour; ` +
          `${listed(metadataDocumentProducts())} use them when offered)`,
      );
    } else if (cimd) {
      this.record(R.registration, 'warn', `client ID metadata documents only: ${listed(dcrOnly)} register only dynamically and cannot connect`);
    } else {
      this.record(R.registration, 'fail', 'no registration_endpoint and no client_id_metadata_document_supported: a connector has no way to become a client');
    }
    return endpoint;
  }

  private checkAuthMethods(doc: Record<string, unknown>): void {
    // RFC 8414 section 2: omitted means client_secret_basic only.
    const listedMethods = doc.token_endpoint_auth_methods_supported;
    const methods = Array.isArray(listedMethods) ? listedMethods : ['client_secret_basic'];
    const secretPost = REGISTERING.filter((client) => client.registration?.tokenEndpointAuthMethod === 'client_secret_post').map((client) => client.name);
    if (!methods.includes('none')) {
      this.record(R.authMethods, 'fail', `token_endpoint_auth_methods_supported lacks none (lists ${shown(methods.join(' '))}): the other connectors are public clients`);
    } else if (!methods.includes('client_secret_post')) {
      this.record(R.authMethods, 'warn', `token_endpoint_auth_methods_supported lacks client_secret_post, with which ${listed(secretPost)} register`);
    } else {
      this.record(R.authMethods, 'pass', 'token_endpoint_auth_methods_supported lists none and client_secret_post');
    }
  }

  /** Registers each connector as it registers; returns the client the flows run as when mcp-remote's registration serves them. */
  private async checkConnectorRegistrations(doc: Record<string, unknown>, registrar: Registrar): Promise<FlowClient | undefined> {
    const port = flowsPort(this.options.redirectUri);
    let flowClient: FlowClient | undefined;
    // The flows' client first: it is worth most when the server's registration limit is near.
    const ordered = [...REGISTERING].sort((a, b) => Number(b.name === FLOWS_CONNECTOR) - Number(a.name === FLOWS_CONNECTOR));
    const lines = new Map<string, [Status, string]>();
    for (const client of ordered) {
      if (!registrar.endpoint) {
        lines.set(client.name, ['not checkable', 'no usable registration endpoint']);
        continue;
      }
      const clientPort = client.name === FLOWS_CONNECTOR && port !== null ? port : 53682;
      const metadata = connectorRegistration(client, CLIENT_NAME_PREFIX, { port: clientPort, grantTypesSupported: doc.grant_types_supported });
      const answer = await registrar.register(metadata);
      const [status, why, registered] = judgeRegistration(client, metadata, answer);
      lines.set(client.name, [status, why]);
      if (client.name === FLOWS_CONNECTOR && port !== null && registered) flowClient = { ...registered, registered: true };
    }
    for (const client of REGISTERING) {
      const [status, why] = lines.get(client.name)!;
      this.record(R.connector(client.name), status, why);
    }
    return flowClient;
  }

  private async checkUnsafeRedirects(registrar: Registrar): Promise<void> {
    if (!registrar.endpoint) {
      this.record(R.unsafeRedirects, 'not checkable', 'no usable registration endpoint');
      return;
    }
    const accepted: string[] = [];
    for (const [what, uri] of UNSAFE_REDIRECT_URIS) {
      const answer = await registrar.register({
        client_name: `${CLIENT_NAME_PREFIX} (must be refused)`,
        redirect_uris: [uri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      if ('limited' in answer) {
        this.record(R.unsafeRedirects, 'not checkable', answer.limited);
        return;
      }
      if ('failure' in answer || answer.status < 400 || answer.status >= 500) accepted.push(what);
    }
    const names = listed(UNSAFE_REDIRECT_URIS.map(([what]) => what));
    if (accepted.length) this.record(R.unsafeRedirects, 'fail', `accepted (or did not refuse) ${listed(accepted)}`);
    else this.record(R.unsafeRedirects, 'pass', `refused ${names}`);
  }

  // ---- client ID metadata documents ----

  /**
   * Where the server advertises them, each connector's document client_id with its redirect URI
   * must reach a sign-in or consent page (or an approval), not an error; nothing is completed.
   * A refusal counts against the server only when the document can be fetched from here.
   */
  private async checkMetadataDocuments(doc: Record<string, unknown>, endpointsUsable: boolean): Promise<void> {
    if (doc.client_id_metadata_document_supported !== true) {
      this.record(R.metadataDocuments, 'not checkable', 'client_id_metadata_document_supported is not true: the connectors register dynamically instead');
      return;
    }
    if (!endpointsUsable) {
      this.record(R.metadataDocuments, 'not checkable', 'no usable authorization endpoint');
      return;
    }
    const accepted: string[] = [];
    const refused: string[] = [];
    /** Connectors whose answer says nothing about the server, by why. */
    const unknown = new Map<string, string[]>();
    const notCheckable = (why: string, name: string) => unknown.set(why, [...(unknown.get(why) ?? []), name]);
    for (const client of CONNECTOR_CLIENTS) {
      if (!client.metadataDocument) continue;
      const redirectUri = withPort([client.metadataDocument.redirectUri], 53683)[0];
      const documentProblem = await this.metadataDocumentProblem(client.metadataDocument.clientId, redirectUri);
      const { outcome } = await this.authorize(client.metadataDocument.clientId, redirectUri, { resource: this.options.resource, scope: READ_SCOPE });
      const error = outcome.kind === 'callback' ? outcome.params.get('error') : null;
      if ((outcome.kind === 'callback' && !error) || outcome.kind === 'page' || outcome.kind === 'elsewhere') {
        accepted.push(client.name);
      } else if (outcome.kind === 'unsafe' || outcome.kind === 'unreachable') {
        notCheckable(outcome.why, client.name);
      } else if (documentProblem) {
        notCheckable(`refused (${refusalOf(outcome)}), and the document ${documentProblem} from here either`, client.name);
      } else {
        refused.push(`${client.name} (${refusalOf(outcome)})`);
      }
    }
    const unknownText = listed([...unknown].map(([why, names]) => `${listed(names)}: ${why}`));
    if (refused.length) {
      this.record(R.metadataDocuments, 'fail', `refused ${listed(refused)}${accepted.length ? `; accepted ${listed(accepted)}` : ''}`);
    } else if (accepted.length) {
      this.record(R.metadataDocuments, 'pass', `${listed(accepted)} reach a sign-in or consent page${unknown.size ? `; not checkable for ${unknownText}` : ''}`);
    } else {
      this.record(R.metadataDocuments, 'not checkable', unknownText);
    }
  }

  /** Why this connector's document cannot serve as checked here (unreachable, or not naming the redirect URI), or null. */
  private async metadataDocumentProblem(clientId: string, redirectUri: string): Promise<string | null> {
    const answer = await this.network.request(clientId, { headers: { accept: 'application/json' } });
    if ('failure' in answer) return `cannot be fetched (${answer.failure})`;
    if (answer.status !== 200) return `cannot be fetched (HTTP ${answer.status})`;
    const document = objectOf(answer.json);
    if (document.client_id !== clientId) return 'does not name its own URL as client_id (the connector table is stale)';
    const uris = Array.isArray(document.redirect_uris) ? document.redirect_uris : [];
    if (!uris.some((uri) => typeof uri === 'string' && sameRedirectTarget(new URL(redirectUri), uri, { anyLoopbackPort: true }))) {
      return 'does not list the redirect URI (the connector table is stale)';
    }
    return null;
  }

  // ---- flows ----

  private async runFlows(doc: Record<string, unknown>, registrar: Registrar, registeredClient: FlowClient | undefined): Promise<Flows> {
    const flows = new Flows();
    let client: FlowClient | undefined = this.options.clientId
      ? { clientId: this.options.clientId, method: 'none', registered: false }
      : registeredClient;
    if (!client && !this.options.clientId && registrar.endpoint && flowsPort(this.options.redirectUri) === null) {
      // A redirect URI not of mcp-remote's shape: one more registration, for the flows only.
      const metadata = {
        client_name: `${CLIENT_NAME_PREFIX} (flows)`,
        redirect_uris: [this.options.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      };
      const answer = await registrar.register(metadata);
      const registered = 'limited' in answer ? undefined : registeredFlowClient(answer);
      if (registered) client = { ...registered, registered: true };
    }
    if (!client) {
      flows.notRunnable = registrar.limited
        ? `no client for the flows: ${registrar.limited}`
        : registrar.endpoint
          ? `no client for the flows: the registration as ${FLOWS_CONNECTOR} failed`
          : 'no registration endpoint to register a client for the flows; pass --client-id of a public client allowed the redirect URI';
      this.record(R.flow, registrar.endpoint && !registrar.limited ? 'fail' : 'not checkable', flows.notRunnable);
      this.record(R.loopbackPort, 'not checkable', flows.notRunnable);
      return flows;
    }
    flows.client = client;

    // The flow a connector runs: the resource, vault:read, offline_access when the server lists it
    // (with prompt=consent, as the MCP SDK sends it), PKCE S256, a state.
    const scopesSupported = Array.isArray(doc.scopes_supported) ? doc.scopes_supported : [];
    const askOfflineAccess = scopesSupported.includes(OFFLINE_ACCESS);
    const scope = askOfflineAccess ? `${READ_SCOPE} ${OFFLINE_ACCESS}` : READ_SCOPE;
    const main = await this.authorize(client.clientId, this.options.redirectUri, {
      resource: this.options.resource,
      scope,
      ...(askOfflineAccess ? { prompt: 'consent' } : {}),
      signIn: this.options.signIn,
    });
    flows.mainCallback = main.outcome.kind === 'callback' ? main.outcome.params : undefined;
    const how = `${client.registered ? `registered as ${FLOWS_CONNECTOR} registers` : 'pre-registered'}${this.options.signIn ? ', signed in by a person' : ''}`;
    if (main.outcome.kind !== 'callback') {
      flows.notRunnable = this.describeStop(main.outcome);
      this.record(R.flow, ['refused', 'unreachable', 'unsafe'].includes(main.outcome.kind) ? 'fail' : 'not checkable', flows.notRunnable);
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
        const tokens = await this.exchange(client, code, main.verifier, this.options.redirectUri, this.options.resource);
        const body = tokens.body;
        if (tokens.status !== 200 || typeof body.access_token !== 'string') {
          flows.notRunnable = `the token request was refused: HTTP ${tokens.status} ${errorCode(body.error)}`;
          this.record(R.flow, 'fail', flows.notRunnable);
        } else {
          flows.tokens = tokens;
          if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer') {
            this.record(R.flow, 'fail', `token_type is ${shown(body.token_type)}, not Bearer: the Worker takes Bearer tokens only`);
          } else {
            this.record(R.flow, 'pass', `authorized a public client (${how}) and redeemed the code`);
          }
        }
      }
    }

    if (flows.tokens && !this.options.signIn) {
      // A second code, redeemed with the wrong verifier: PKCE must be enforced (RFC 7636 section 4.6).
      const second = await this.authorize(client.clientId, this.options.redirectUri, { resource: this.options.resource, scope: READ_SCOPE });
      const secondCode = second.outcome.kind === 'callback' ? second.outcome.params.get('code') : null;
      if (secondCode) {
        const wrong = await this.exchange(client, secondCode, pkce().verifier, this.options.redirectUri, this.options.resource);
        flows.wrongVerifier = wrong.status === 200 ? 'accepted' : 'refused';
      }
    }

    await this.checkLoopbackPort(client);

    // A foreign resource: refused at the authorization endpoint, or at the latest at the token endpoint.
    const foreign = await this.authorize(client.clientId, this.options.redirectUri, { resource: this.options.foreignResource, scope: READ_SCOPE });
    flows.foreign = foreign.outcome;
    if (foreign.outcome.kind === 'callback') {
      const code = foreign.outcome.params.get('code');
      if (code) flows.foreignTokens = await this.exchange(client, code, foreign.verifier, this.options.redirectUri, this.options.foreignResource);
    }
    return flows;
  }

  /**
   * RFC 8252 section 7.3: a native client's loopback redirect URI matches on any port. The flows'
   * client (a native one) asks with the port after its registered one; the server must answer with
   * its sign-in, its consent or a code, not an error. A code sent there is never redeemed.
   */
  private async checkLoopbackPort(client: FlowClient): Promise<void> {
    const registered = new URL(this.options.redirectUri);
    if (!isLoopbackHost(registered.hostname)) {
      this.record(R.loopbackPort, 'not checkable', 'the redirect URI is not a loopback one');
      return;
    }
    const other = new URL(registered);
    other.port = String(((Number(registered.port) || 80) % 65535) + 1);
    const { outcome } = await this.authorize(client.clientId, other.href, { resource: this.options.resource, scope: READ_SCOPE });
    const error = outcome.kind === 'callback' ? outcome.params.get('error') : null;
    if ((outcome.kind === 'callback' && !error) || outcome.kind === 'page' || outcome.kind === 'elsewhere') {
      this.record(R.loopbackPort, 'pass', `port ${other.port} instead of ${registered.port || 80} is accepted (${outcome.kind === 'callback' ? 'a code came back' : 'a sign-in or consent follows'})`);
    } else if (outcome.kind === 'unsafe' || outcome.kind === 'unreachable') {
      this.record(R.loopbackPort, 'not checkable', outcome.why);
    } else {
      const answer = refusalOf(outcome);
      this.record(
        R.loopbackPort,
        'fail',
        `port ${other.port} instead of ${registered.port || 80} is refused (${answer}): VS Code, Claude Code and mcp-remote take whatever loopback port is free`,
      );
    }
  }

  private describeStop(outcome: AuthorizationOutcome): string {
    switch (outcome.kind) {
      case 'page':
        return `the server shows a page at ${outcome.where} (sign-in or consent): a person must approve; run with --interactive to sign in in a browser`;
      case 'elsewhere':
        return `the server sends the browser to ${outcome.host} to sign in: a person must act; run with --interactive to sign in in a browser`;
      case 'refused':
        return `the authorization endpoint answered HTTP ${outcome.status}${outcome.error ? ` ${errorCode(outcome.error)}` : ''} without sending the browser back to the client`;
      case 'unsafe':
        return `the server sent the browser where check-hub does not go (${outcome.why})`;
      case 'unreachable':
        return `the authorization endpoint could not be reached (${outcome.why})`;
      default:
        return 'the authorization response is not a redirect to the client';
    }
  }

  /**
   * One authorization request, the browser's part: follows the server's own redirects (each hop
   * under check-hub's rules) until the browser would leave for the client's redirect URI (read, not
   * fetched), another site, or a page. With `signIn`, a person does this part instead.
   */
  private async authorize(
    clientId: string,
    redirectUri: string,
    { resource, scope, prompt, signIn }: { resource: string; scope: string; prompt?: string; signIn?: SignIn },
  ): Promise<{ outcome: AuthorizationOutcome; state: string; verifier: string }> {
    const challenge = pkce();
    const state = randomBytes(16).toString('base64url');
    const url = new URL(this.authorizationEndpoint);
    const params: Record<string, string> = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope,
      resource,
      code_challenge: challenge.challenge,
      code_challenge_method: 'S256',
      state,
      ...(prompt ? { prompt } : {}),
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const done = (outcome: AuthorizationOutcome) => ({ outcome, state, verifier: challenge.verifier });
    if (signIn) {
      const answer = await signIn(url, redirectUri);
      return done('failure' in answer ? { kind: 'unreachable', why: answer.failure } : { kind: 'callback', params: answer });
    }
    const serverOrigins = new Set([url.origin, new URL(this.options.issuer).origin]);
    const jar = new CookieJar();
    let next = url;
    for (let hop = 0; hop < MAX_REDIRECT_HOPS; hop += 1) {
      const answer = await this.network.request(next, { headers: { cookie: jar.header(next.origin), accept: 'text/html' } });
      if ('failure' in answer) {
        const refused = answer.failure.startsWith(REFUSED);
        return done(refused ? { kind: 'unsafe', why: `${shown(next.host)}: ${answer.failure.slice(REFUSED.length)}` } : { kind: 'unreachable', why: answer.failure });
      }
      jar.store(next.origin, answer.headers);
      const location = answer.headers.get('location');
      if (answer.status >= 300 && answer.status < 400 && location !== null) {
        const target = URL.parse(location, next);
        if (!target) return done({ kind: 'refused', status: answer.status });
        if (sameRedirectTarget(target, redirectUri)) return done({ kind: 'callback', params: target.searchParams });
        if (!serverOrigins.has(target.origin)) return done({ kind: 'elsewhere', host: shown(target.host) });
        next = target;
        continue;
      }
      if (answer.status >= 200 && answer.status < 300) return done({ kind: 'page', where: shown(`${next.host}${next.pathname}`) });
      const error = objectOf(answer.json).error;
      return done({ kind: 'refused', status: answer.status, ...(typeof error === 'string' ? { error } : {}) });
    }
    return done({ kind: 'refused', status: 0 });
  }

  private exchange(client: FlowClient, code: string, verifier: string, redirectUri: string, resource: string): Promise<Tokens> {
    return this.tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier, resource });
  }

  /** One token request, authenticated as the registration answered (RFC 6749 section 2.3.1 for a secret). */
  private async tokenRequest(client: FlowClient, params: Record<string, string>): Promise<Tokens> {
    const body = new URLSearchParams({ ...params, client_id: client.clientId });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (client.secret && client.method === 'client_secret_basic') {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.secret)}`).toString('base64')}`;
    } else if (client.secret) {
      body.set('client_secret', client.secret);
    }
    const answer = await this.network.request(this.tokenEndpoint, { method: 'POST', headers, body: body.toString() });
    if ('failure' in answer) return { status: 0, body: { error: answer.failure } };
    return { status: answer.status, body: objectOf(answer.json) };
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
    else {
      const why = this.options.signIn && flows?.tokens ? 'one sign-in in --interactive' : (flows?.notRunnable ?? 'no second code');
      this.record(R.pkce, 'pass', `S256 advertised (enforcement not checkable: ${why})`);
    }
  }

  /**
   * RFC 9207: a warning when absent (MCP 2026-07-28 has clients send it SHOULD), a failure when
   * advertised and missing or wrong (a client that reads the metadata then rejects the response).
   */
  private checkIssParameter(doc: Record<string, unknown>, flows: Flows | undefined): void {
    const advertised = doc.authorization_response_iss_parameter_supported === true;
    const redirects = [flows?.mainCallback, flows?.foreign?.kind === 'callback' ? flows.foreign.params : undefined].filter(
      (params): params is URLSearchParams => params !== undefined,
    );
    const carrying = redirects.filter((params) => params.has('iss'));
    const wrong = carrying.filter((params) => params.get('iss') !== this.options.issuer);
    const dependents = CONNECTOR_CLIENTS.filter((client) => client.needsIss).map((client) => `${client.name} ${client.registration?.redirectUris[0] ?? ''} (${client.needsIss})`);
    if (wrong.length) {
      this.record(R.iss, 'fail', `${wrong.length} of ${redirects.length} redirects to the client carry an iss other than the issuer: clients reject them`);
    } else if (advertised && carrying.length < redirects.length) {
      this.record(R.iss, 'fail', `authorization_response_iss_parameter_supported is true, but ${redirects.length - carrying.length} of ${redirects.length} redirects to the client carry no iss: clients reject them (RFC 9207 section 2.4)`);
    } else if (!advertised && carrying.length === 0) {
      this.record(R.iss, 'warn', `not sent nor advertised (a SHOULD in MCP 2026-07-28); callbacks that depend on it: ${listed(dependents)}`);
    } else if (!advertised) {
      this.record(R.iss, 'warn', 'sent, but authorization_response_iss_parameter_supported is not true, so clients do not rely on it');
    } else if (redirects.length === 0) {
      this.record(R.iss, 'pass', 'advertised (no redirect to the client was seen to confirm it)');
    } else {
      this.record(R.iss, 'pass', `advertised, and ${redirects.length === 1 ? 'the redirect to the client carries' : 'both redirects to the client carry'} iss`);
    }
  }

  private checkForeignResource(flows: Flows | undefined): void {
    const outcome = flows?.foreign;
    if (!outcome) {
      this.record(R.resourceIndicators, 'not checkable', flows?.notRunnable ?? 'the flows could not run');
      return;
    }
    const foreign = this.options.foreignResource;
    if (outcome.kind !== 'callback') {
      this.record(R.resourceIndicators, outcome.kind === 'refused' ? 'fail' : 'not checkable', `for ${foreign}: ${this.describeStop(outcome)}`);
      return;
    }
    const error = outcome.params.get('error');
    if (error === 'invalid_target') this.record(R.resourceIndicators, 'pass', `${foreign} refused at the authorization endpoint`);
    else if (error) this.record(R.resourceIndicators, 'fail', `${foreign} answered ${errorCode(error)}, not invalid_target`);
    else if (flows.foreignTokens?.status === 200) this.record(R.resourceIndicators, 'fail', `a token was issued for ${foreign}`);
    else if (flows.foreignTokens?.body.error === 'invalid_target') this.record(R.resourceIndicators, 'pass', `${foreign} refused at the token endpoint (a code was issued first)`);
    else this.record(R.resourceIndicators, 'fail', `${foreign}: a code was issued and the token endpoint answered ${errorCode(flows.foreignTokens?.body.error)}, not invalid_target`);
  }

  private judge(token: string, jwks: JwksResult): Promise<Judgement> {
    return judgeToken(token, {
      issuer: this.options.issuer,
      resource: this.options.resource,
      jwksUri: 'uri' in jwks ? jwks.uri : undefined,
      settings: this.options.worker,
    });
  }

  /** The token lines; returns how the Worker verifies the token, when one was issued. */
  private async checkAccessToken(flows: Flows | undefined, jwks: JwksResult): Promise<TokenPathSeen> {
    const requirements = [R.workerAccepts, R.tokenClaims, R.audience, R.scope, R.lifetime, R.hostedContext];
    const token = flows?.tokens?.body.access_token;
    if (typeof token !== 'string') {
      for (const requirement of requirements) this.record(requirement, 'not checkable', flows?.notRunnable ?? 'no access token was issued');
      return undefined;
    }
    const decoded = decodeToken(token);
    const judgement = await this.judge(token, jwks);
    this.recordJudgement(R.workerAccepts, judgement, 'it');
    if (!decoded) {
      for (const requirement of requirements.slice(1)) this.record(requirement, 'not checkable', 'the access token is not a JWT');
      return undefined;
    }
    const { header, claims } = decoded;
    const path = verificationPath(header) ?? undefined;
    this.checkClaims(header, claims, path, flows!.client!);
    this.checkAudience(claims.aud, path);
    this.checkScopes(claims);
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') {
      this.record(R.lifetime, 'fail', 'exp or iat missing');
    } else {
      const seconds = claims.exp - claims.iat;
      if (seconds > MAX_ACCESS_TOKEN_SECONDS) this.record(R.lifetime, 'fail', `${seconds} s: the Worker has no revocation list, so lifetime bounds a leaked token`);
      else this.record(R.lifetime, 'pass', `${seconds} s`);
    }
    this.checkHostedContext(claims, path);
    return path;
  }

  /** The Worker's verdict as a line: the path it took and what it needs, or its refusal reason. */
  private recordJudgement(requirement: string, judgement: Judgement, what: string): void {
    switch (judgement.kind) {
      case 'unverifiable':
        this.record(requirement, 'not checkable', judgement.why);
        return;
      case 'misconfigured':
        this.record(requirement, 'fail', judgement.why);
        return;
      case 'refused':
        this.record(requirement, 'fail', `the Worker refuses ${what}: ${judgement.reason} (${judgement.why})`);
        return;
      case 'accepted': {
        const { principal, path } = judgement;
        if (principal.tokenType === 'session' || principal.tokenType === 'agent_access') {
          this.record(requirement, 'fail', `the Worker reads ${what} as a ${principal.tokenType} token, not an OAuth access token: an authorization server's token must be typed mcp_access (or at+jwt)`);
          return;
        }
        if (path === 'key set') {
          this.record(requirement, 'pass', `accepted through the key set as an RFC 9068 access token`);
          return;
        }
        const needs = [`SESSION_SECRET shared with the Hub (given by ${this.options.worker?.origin ?? 'the operator'})`];
        if (judgement.needsLegacyAudience) needs.push('LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE=true while its tokens lack aud');
        this.record(requirement, 'pass', `accepted with the shared secret as an mcp_access token; the Worker needs ${listed(needs)}`);
      }
    }
  }

  private checkClaims(header: ProtectedHeaderParameters, claims: JWTPayload, path: VerificationPath | undefined, client: FlowClient): void {
    const problems: string[] = [];
    const required = path === 'key set' ? RFC9068_CLAIMS : SHARED_SECRET_CLAIMS;
    const missing = required.filter((name) => {
      const value = claims[name];
      if (name === 'aud') return !(typeof value === 'string' || (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')));
      return typeof value !== (name === 'exp' || name === 'iat' ? 'number' : 'string');
    });
    if (missing.length) problems.push(`missing or mistyped: ${missing.join(', ')}`);
    if (typeof claims.sub === 'string' && claims.sub.trim() === '') problems.push('sub is blank');
    if (path === 'key set') {
      const typ = typeof header.typ === 'string' ? header.typ.toLowerCase() : undefined;
      if (typ !== 'at+jwt' && typ !== 'application/at+jwt') problems.push(`typ is ${header.typ === undefined ? 'absent' : shown(header.typ, 20)}, not at+jwt (RFC 9068 section 2.1)`);
      if (typeof header.kid !== 'string') problems.push('no kid');
    }
    if (typeof claims.iss === 'string' && claims.iss !== this.options.issuer) problems.push(`iss is ${shown(JSON.stringify(claims.iss))}, not the issuer`);
    if (typeof claims.client_id === 'string' && claims.client_id !== client.clientId) problems.push('client_id is not the client that asked');
    if (claims.type !== undefined && claims.type !== 'mcp_access') problems.push(`type is ${shown(JSON.stringify(claims.type), 20)}: an authorization server's access token is mcp_access`);
    if (typeof claims.iat === 'number' && claims.iat > Date.now() / 1000 + 30) problems.push(`iat is ${Math.round(claims.iat - Date.now() / 1000)} s ahead of this clock`);
    const kind = path === 'key set' ? 'RFC 9068' : path === 'shared secret' ? 'shared-secret (exp, sub, iat)' : 'token';
    if (problems.length) this.record(R.tokenClaims, 'fail', listed(problems));
    else this.record(R.tokenClaims, 'pass', `the ${kind} claims are present; ${claims.iss === undefined ? '' : 'iss is the issuer, '}client_id ${claims.client_id === undefined ? 'absent' : 'the client'}`);
  }

  /** aud must be the requested resource: that string, or a list holding only it (RFC 9068 section 3). */
  private checkAudience(aud: unknown, path: VerificationPath | undefined): void {
    const resource = this.options.resource;
    if (aud === undefined) {
      if (path === 'shared secret') {
        this.record(
          R.audience,
          'warn',
          `no aud: not bound to ${resource}; the Worker serves it only with LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE=true, and then at every resource that shares the secret`,
        );
      } else {
        this.record(R.audience, 'fail', `no aud: the token is not bound to ${resource}`);
      }
      return;
    }
    const values = Array.isArray(aud) ? aud : [aud];
    if (values.length >= 1 && values.every((value) => value === resource)) {
      this.record(R.audience, 'pass', `aud is ${resource}`);
      return;
    }
    this.record(R.audience, 'fail', values.includes(resource) ? `aud also names ${values.length - 1} other audience(s)` : `aud is ${shown(JSON.stringify(aud))}, not ${resource}`);
  }

  /** Scopes as the Worker reads them: a space-separated `scope` string and a `scopes` list. */
  private checkScopes(claims: JWTPayload): void {
    const { scope, scopes } = claims;
    if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((entry) => typeof entry === 'string'))) {
      this.record(R.scope, 'fail', 'scopes is not a list of strings (the Worker refuses it as bad_claims)');
      return;
    }
    const fromString = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [];
    const list = Array.isArray(scopes) ? (scopes as string[]) : [];
    const all = [...list, ...fromString];
    const said = [...(typeof scope === 'string' ? [`scope ${shown(scope)}`] : []), ...(Array.isArray(scopes) ? [`scopes list ${shown(scopes.join(' '))}`] : [])];
    if (all.includes(READ_SCOPE)) this.record(R.scope, 'pass', listed(said));
    else this.record(R.scope, 'fail', said.length ? `${listed(said)} lacks ${READ_SCOPE}` : 'no scope or scopes claim');
  }

  /**
   * The caller's hosted context (role, effective canister user, vault allowlist, folder scope):
   * in the token, or for a shared-secret token from the Hub's hosted-context endpoint
   * (HOSTED_CONTEXT_URL). Without either the Worker reads the caller's own partition as a viewer.
   */
  private checkHostedContext(claims: JWTPayload, path: VerificationPath | undefined): void {
    // The Worker's own rule (src/auth/jwt.ts): which claims make a token carry its hosted context.
    const carried = hostedContextClaims(claims);
    if (carried.length) {
      this.record(R.hostedContext, 'pass', `in the token: ${carried.join(', ')}`);
      return;
    }
    if (path !== 'shared secret') {
      this.record(R.hostedContext, 'warn', `the token carries none of ${[...HOSTED_CONTEXT_CLAIMS, 'scope (an object)'].join(', ')}: the Worker reads it as its own user's partition with the viewer role`);
      return;
    }
    const configured = this.options.worker?.hostedContextUrl;
    if (configured) {
      this.record(R.hostedContext, 'pass', `not in the token; HOSTED_CONTEXT_URL is set (${shown(configured)}), from which the Worker takes it`);
      return;
    }
    const suggested = `${new URL(this.options.issuer).origin}${HOSTED_CONTEXT_PATH}`;
    this.record(
      R.hostedContext,
      'warn',
      `not in the token: set the Worker's HOSTED_CONTEXT_URL to the Hub's GET ${HOSTED_CONTEXT_PATH} (here ${suggested}), else each user reads their own partition as a viewer`,
    );
  }

  private async checkRefresh(doc: Record<string, unknown>, flows: Flows | undefined, jwks: JwksResult): Promise<void> {
    const listedOffline = Array.isArray(doc.scopes_supported) && doc.scopes_supported.includes(OFFLINE_ACCESS);
    const grantTypes = Array.isArray(doc.grant_types_supported) ? doc.grant_types_supported : ['authorization_code', 'implicit'];
    const refreshGrant = grantTypes.includes('refresh_token');
    const refreshToken = flows?.tokens?.body.refresh_token;
    if (!flows?.tokens) {
      const why = flows?.notRunnable ?? 'no tokens were issued';
      this.record(R.offlineAccess, 'not checkable', listedOffline ? why : `offline_access is not in scopes_supported; whether a refresh token is issued is not checkable (${why})`);
      this.record(R.refresh, 'not checkable', why);
      this.record(R.rotation, 'not checkable', 'no refresh token to use');
      return;
    }
    const issued = typeof refreshToken === 'string';
    const askedWhy = 'clients that ask for offline_access only when scopes_supported lists it (the MCP SDK, mcp-remote) do not ask';
    if (issued && listedOffline) this.record(R.offlineAccess, 'pass', 'listed, asked for, and a refresh token was issued');
    else if (issued) this.record(R.offlineAccess, 'warn', `offline_access is not in scopes_supported, so ${askedWhy}; this server issued a refresh token without it`);
    else {
      const problems = [...(refreshGrant ? [] : ['grant_types_supported lacks refresh_token']), listedOffline ? 'no refresh token although offline_access was asked' : `offline_access is not in scopes_supported and no refresh token was issued`];
      this.record(R.offlineAccess, 'fail', `${listed(problems)}: users would sign in again when the access token expires`);
    }
    if (!issued) {
      this.record(R.refresh, 'not checkable', 'no refresh token was issued');
      this.record(R.rotation, 'not checkable', 'no refresh token to use');
      return;
    }
    const client = flows.client!;
    const refresh = (token: string) => this.tokenRequest(client, { grant_type: 'refresh_token', refresh_token: token, resource: this.options.resource });
    const refreshed = await refresh(refreshToken);
    if (refreshed.status !== 200 || typeof refreshed.body.access_token !== 'string') {
      this.record(R.refresh, 'fail', `the refresh was refused: HTTP ${refreshed.status} ${errorCode(refreshed.body.error)}`);
      this.record(R.rotation, 'not checkable', 'the refresh did not succeed');
      return;
    }
    const judgement = await this.judge(refreshed.body.access_token, jwks);
    if (judgement.kind === 'accepted' && judgement.principal.tokenType !== 'session' && judgement.principal.tokenType !== 'agent_access') {
      this.record(R.refresh, 'pass', `the refreshed access token is accepted (${judgement.path === 'key set' ? 'through the key set' : 'with the shared secret'})`);
    } else {
      this.recordJudgement(R.refresh, judgement, 'the refreshed access token');
    }
    await this.checkRotation(refresh, refreshToken, refreshed.body.refresh_token);
  }

  /**
   * OAuth 2.1 section 4.3.1: a public client's refresh token is rotated, and the one used is
   * invalidated, so a replay is refused with invalid_grant (RFC 6749 section 5.2). A server may
   * keep the used one valid until the new one is first used (a retry for an answer lost on the
   * way); that still rotates. A 5xx for the replay is a failure: the client cannot tell it from an
   * outage, and the server did not decide.
   */
  private async checkRotation(refresh: (token: string) => Promise<Tokens>, used: string, next: unknown): Promise<void> {
    if (typeof next !== 'string' || next === used) {
      this.record(R.rotation, 'fail', 'the refresh returned no new refresh token: a leaked one stays usable for its whole life');
      return;
    }
    const replay = await refresh(used);
    const verdict = (answer: Tokens, when: string): [Status, string] | null => {
      if (answer.status === 400 && answer.body.error === 'invalid_grant') return null;
      if (answer.status === 0) return ['not checkable', `the replay ${when} could not be sent (${shown(answer.body.error)})`];
      if (answer.status >= 500) return ['fail', `the used refresh token ${when} answered HTTP ${answer.status} ${errorCode(answer.body.error)}: it must be refused with invalid_grant`];
      if (answer.status !== 200) return ['fail', `the used refresh token ${when} answered HTTP ${answer.status} ${errorCode(answer.body.error)}, not invalid_grant`];
      return ['fail', `the used refresh token still works ${when}`];
    };
    const first = verdict(replay, 'right after the refresh');
    if (!first) {
      this.record(R.rotation, 'pass', 'a new refresh token at each use; the used one is refused with invalid_grant');
      return;
    }
    if (replay.status !== 200) {
      this.record(R.rotation, ...first);
      return;
    }
    // The used token was honoured once more: allowed only until its successor is first used.
    const successor = await refresh(next);
    if (successor.status !== 200) {
      this.record(R.rotation, 'fail', `the used refresh token still worked, and its successor was then refused (HTTP ${successor.status} ${errorCode(successor.body.error)})`);
      return;
    }
    const afterSuccessor = verdict(await refresh(used), 'after its successor was used');
    if (afterSuccessor) this.record(R.rotation, ...afterSuccessor);
    else this.record(R.rotation, 'pass', 'a new refresh token at each use; the used one stays valid until the new one is first used, then is refused with invalid_grant');
  }
}

type TokenPathSeen = VerificationPath | undefined;

/** The key set as the Worker would fetch it; `uri` is what the Worker is given as JWT_JWKS_URL. */
type JwksResult =
  | { status: 'absent' }
  | { status: 'unusable'; why: string }
  | { status: 'failed' | 'ok'; why: string; uri: string };

/** What the flows produced, for the checks that read them. */
class Flows {
  client: FlowClient | undefined;
  /** Why the main flow did not reach tokens, when it did not. */
  notRunnable: string | undefined;
  mainCallback: URLSearchParams | undefined;
  tokens: Tokens | undefined;
  wrongVerifier: 'accepted' | 'refused' | undefined;
  foreign: AuthorizationOutcome | undefined;
  foreignTokens: Tokens | undefined;
}

/** How an authorization request was refused: the error its redirect carries, or the status (and error) of the answer. */
function refusalOf(outcome: AuthorizationOutcome): string {
  if (outcome.kind === 'callback') return `the redirect carries ${errorCode(outcome.params.get('error'))}`;
  if (outcome.kind === 'refused') return `HTTP ${outcome.status}${outcome.error ? ` ${errorCode(outcome.error)}` : ''}`;
  return 'not a redirect to the client';
}

/** The client a registration answer describes, when it is one the flows can use. */
function registeredFlowClient(answer: Answer): Omit<FlowClient, 'registered'> | undefined {
  if ('failure' in answer || (answer.status !== 201 && answer.status !== 200)) return undefined;
  const body = objectOf(answer.json);
  if (typeof body.client_id !== 'string') return undefined;
  const method = typeof body.token_endpoint_auth_method === 'string' ? body.token_endpoint_auth_method : 'none';
  return { clientId: body.client_id, method, ...(typeof body.client_secret === 'string' ? { secret: body.client_secret } : {}) };
}

/** One connector registration's line, and its client when it was registered. */
function judgeRegistration(
  client: ConnectorClient,
  metadata: Record<string, unknown>,
  answer: Answer | { limited: string },
): [Status, string, Omit<FlowClient, 'registered'> | undefined] {
  if ('limited' in answer) return ['not checkable', answer.limited, undefined];
  if ('failure' in answer) return ['fail', `registration request ${answer.failure}`, undefined];
  const body = objectOf((answer as Exchange).json);
  const uris = metadata.redirect_uris as string[];
  if (answer.status !== 201 && answer.status !== 200) {
    return ['fail', `refused: HTTP ${answer.status} ${errorCode(body.error)} for ${listed(uris.map((uri) => shown(uri)))}`, undefined];
  }
  if (typeof body.client_id !== 'string') return ['fail', 'the answer has no client_id', undefined];
  const registered = Array.isArray(body.redirect_uris) ? body.redirect_uris : [];
  const dropped = uris.filter((uri) => !registered.includes(uri));
  if (dropped.length) return ['fail', `registered without ${listed(dropped.map((uri) => shown(uri)))}`, undefined];
  const asked = metadata.token_endpoint_auth_method;
  const answered = body.token_endpoint_auth_method;
  const flowClient = registeredFlowClient(answer);
  const what = `${listed(uris.map((uri) => shown(uri)))}, ${asked}${metadata.application_type ? `, ${metadata.application_type}` : ''}`;
  if (typeof answered === 'string' && answered !== asked) {
    return ['warn', `registered ${what}, but answered token_endpoint_auth_method ${shown(answered, 30)}: the client must use what the server answers (RFC 7591 section 3.2.1)`, flowClient];
  }
  if (asked === 'client_secret_post' && typeof body.client_secret !== 'string') {
    return ['fail', `registered for client_secret_post without a client_secret: ${client.name} cannot authenticate at the token endpoint`, flowClient];
  }
  return ['pass', what, flowClient];
}

/**
 * The redirect goes to the client: the same scheme, host, port and path as the redirect URI
 * (any port for a loopback one where the client says so, RFC 8252 section 7.3).
 */
function sameRedirectTarget(target: URL, redirectUri: string, { anyLoopbackPort = false } = {}): boolean {
  const expected = URL.parse(redirectUri);
  if (!expected) return false;
  const port = anyLoopbackPort && isLoopbackHost(expected.hostname) ? true : target.port === expected.port;
  return target.protocol === expected.protocol && target.hostname === expected.hostname && port && target.pathname === expected.pathname;
}

/** RFC 7636 section 4.1-4.2: a random verifier and its S256 challenge. */
function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The report: a heading, one line per requirement (its status, then why), a summary. */
export function formatReport(options: Pick<HubCheckOptions, 'issuer' | 'resource'>, results: RequirementResult[]): string {
  const width = 'not checkable'.length;
  const lines = [`check-hub: ${options.issuer} as the authorization server for ${options.resource}`];
  for (const { requirement, status, why } of results) lines.push(`${status.padEnd(width)}  ${requirement}: ${why}`);
  const count = (status: Status) => results.filter((result) => result.status === status).length;
  lines.push(`${count('pass')} pass, ${count('warn')} warn, ${count('fail')} fail, ${count('not checkable')} not checkable`);
  return `${lines.join('\n')}\n`;
}
