/**
 * Discovery before connecting (MCP Server Card extension, SEP-2127; the draft's docs/discovery.md):
 * a Server Card for `/mcp` and for each `/mcp/vaults/<id>` at `<endpoint>/server-card`, the domain's
 * AI Catalog listing the `/mcp` card, and the icons serverInfo and the card name. All public: no
 * token (one sent is never read), no canister call, CORS-open, cacheable with an ETag, and counted
 * per client address on PROTOCOL_RATE_LIMITER. Every URL is built from PUBLIC_ORIGIN, never the Host.
 */
import type { Config } from '../config';
import { metadataUrlOf, publicOrigin, READ_SCOPE } from '../auth/resource';
import { outcomeCode } from '../errors';
import { takeDiscoveryLimit } from '../rate-limit';
import type { Handled } from '../log';
import type { RouteContext, RouteHandler } from './context';
import { SERVED_REVISIONS } from './mcp-era';
import { errorResponse, restErrorResponse } from './responses';
import {
  ICON_SVG,
  SERVER_DESCRIPTION,
  SERVER_TITLE,
  SERVER_VERSION,
  defaultCardName,
  serverIcons,
  type Icon,
  type IconTheme,
} from './server-identity';

/** discovery.md, MCP Server Cards: the card's media type and the `$schema` the v1 schema pins. */
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
export const SERVER_CARD_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
/** discovery.md, AI Catalog: the catalog's media type and the entry type of a Server Card. */
export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';
export const AI_CATALOG_SPEC_VERSION = '1.0';

/** discovery.md, Hosted Server Card Location: `GET <streamable-http-url>/server-card`. */
export const SERVER_CARD_SUFFIX = '/server-card';
/**
 * The catalog's well-known URI in the current draft, and `/.well-known/mcp/catalog.json`, where the
 * draft kept it until it adopted the AI Catalog (the same document at both).
 */
export const CATALOG_PATHS = ['/.well-known/ai-catalog.json', '/.well-known/mcp/catalog.json'] as const;

/** discovery.md, Caching and CORS Requirements. */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=3600';
const PUBLIC_CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag',
};
const PUBLIC_PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET',
  'Access-Control-Allow-Headers': 'Content-Type, If-None-Match',
  'Access-Control-Max-Age': '600',
};

/** The name of the URL variable in the one-vault endpoint's template. */
export const VAULT_VARIABLE = 'vault_id';

/** Server Card `Input` / server.json `Input`: a user-supplied value. */
export interface DiscoveryInput {
  description: string;
  isRequired: boolean;
  isSecret?: boolean;
  format?: 'string';
  default?: string;
}

/** Server Card `KeyValueInput` / server.json `KeyValueInput`: one HTTP header. */
export interface DiscoveryHeader extends DiscoveryInput {
  name: string;
}

/** Server Card `Remote` (server.json `RemoteTransport` without `supportedProtocolVersions`). */
export interface Remote {
  type: 'streamable-http';
  url: string;
  headers: DiscoveryHeader[];
  variables?: Record<string, DiscoveryInput>;
  supportedProtocolVersions?: string[];
}

export interface ServerCard {
  $schema: typeof SERVER_CARD_SCHEMA_URL;
  name: string;
  version: string;
  title: string;
  description: string;
  websiteUrl?: string;
  icons: Icon[];
  remotes: Remote[];
}

/** What a card or registry entry is built from: the public origin and two configuration values. */
export interface DiscoveryIdentity {
  origin: string;
  /** The reverse-DNS `name` (SERVER_CARD_NAME, else defaultCardName). */
  name: string;
  websiteUrl?: string;
}

export function discoveryIdentity(origin: string, config: Pick<Config, 'serverCardName' | 'websiteUrl'>): DiscoveryIdentity {
  return { origin, name: config.serverCardName ?? defaultCardName(origin), websiteUrl: config.websiteUrl };
}

/**
 * The Authorization header every endpoint needs: a bearer token (RFC 6750 section 2.1, the one
 * method the RFC 9728 metadata lists) with the read scope, from the authorization server the
 * endpoint's metadata names. A hint only: the 401 challenge and the metadata are authoritative.
 */
function authorizationHeader(metadataUrl: string): DiscoveryHeader {
  return {
    name: 'Authorization',
    description: `Bearer token, scope ${READ_SCOPE} (OAuth: ${metadataUrl})`,
    isRequired: true,
    isSecret: true,
  };
}

const vaultVariable = (): DiscoveryInput => ({
  description: 'Vault id ([A-Za-z0-9_-]{1,64})',
  isRequired: true,
  format: 'string',
  default: 'default',
});

/** One endpoint's remote: `/mcp`, `/mcp/vaults/<id>`, or the template `/mcp/vaults/{vault_id}`. */
function endpointRemote(origin: string, path: string): Remote {
  const remote: Remote = { type: 'streamable-http', url: `${origin}${path}`, headers: [authorizationHeader(metadataUrlOf(origin, path))] };
  if (path.includes(`{${VAULT_VARIABLE}}`)) remote.variables = { [VAULT_VARIABLE]: vaultVariable() };
  return remote;
}

/** The MCP endpoints as remotes, for the `/mcp` card and the registry entry: `/mcp`, then the one-vault template. */
export function endpointRemotes(origin: string): Remote[] {
  return [endpointRemote(origin, '/mcp'), endpointRemote(origin, `/mcp/vaults/{${VAULT_VARIABLE}}`)];
}

/**
 * The Server Card of `/mcp` (both endpoint forms) or of one `/mcp/vaults/<id>` (that endpoint only).
 * discovery.md, Consistency with Runtime Behavior: name, version, title, description and icons are
 * serverInfo's, the revisions are those the endpoint serves, the auth hint matches its RFC 9728 metadata.
 */
export function serverCard(identity: DiscoveryIdentity, endpointPath: '/mcp' | `/mcp/vaults/${string}`): ServerCard {
  const { origin, name, websiteUrl } = identity;
  const remotes = endpointPath === '/mcp' ? endpointRemotes(origin) : [endpointRemote(origin, endpointPath)];
  return {
    $schema: SERVER_CARD_SCHEMA_URL,
    name,
    version: SERVER_VERSION,
    title: SERVER_TITLE,
    description: SERVER_DESCRIPTION,
    ...(websiteUrl === undefined ? {} : { websiteUrl }),
    icons: serverIcons(origin),
    remotes: remotes.map((remote) => ({ ...remote, supportedProtocolVersions: [...SERVED_REVISIONS] })),
  };
}

/**
 * discovery.md, Server Card Entries: the domain-anchored identifier `urn:air:{publisher}:mcp:{name}`,
 * the publisher being the card name's namespace as a forward domain (`com.example/x` gives
 * `urn:air:example.com:mcp:x`).
 */
export function catalogIdentifier(cardName: string): string {
  const [namespace, server] = cardName.split('/');
  return `urn:air:${namespace.split('.').reverse().join('.')}:mcp:${server}`;
}

/** The domain's AI Catalog: one entry, the `/mcp` card by URL (vaults are per user and never listed). */
export function aiCatalog(identity: DiscoveryIdentity) {
  return {
    specVersion: AI_CATALOG_SPEC_VERSION,
    entries: [
      { identifier: catalogIdentifier(identity.name), type: SERVER_CARD_MEDIA_TYPE, url: `${identity.origin}/mcp${SERVER_CARD_SUFFIX}` },
    ],
  };
}

/**
 * The paths whose answers are public documents (the discovery routes of router.ts; a worker test
 * preflights each): CORS `*`, their own Cache-Control, a public preflight.
 */
const PUBLIC_DOCUMENT_PATH =
  /^\/(?:mcp(?:\/vaults\/[A-Za-z0-9_-]{1,64})?\/server-card|\.well-known\/(?:ai-catalog|mcp\/catalog)\.json|icons\/(?:light|dark)\.svg)$/;

export const isPublicDocumentPath = (pathname: string): boolean => PUBLIC_DOCUMENT_PATH.test(pathname);

/** A CORS preflight on a public document: any origin may GET it, revalidating with If-None-Match. */
export function publicPreflightResponse(): Response {
  return new Response(null, { status: 204, headers: PUBLIC_PREFLIGHT_HEADERS });
}

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** A strong entity tag of the body: equal bodies, equal tags, across isolates and deploys. */
async function entityTag(body: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)));
  return `"${base64url(digest.subarray(0, 18))}"`;
}

/** RFC 9110 section 13.1.2: `*`, or a listed tag equal to ours under the weak comparison. */
function noneMatchHits(header: string | null, tag: string): boolean {
  if (header === null) return false;
  return header.split(',').some((item) => {
    const candidate = item.trim();
    return candidate === '*' || candidate.replace(/^W\//, '') === tag;
  });
}

/** A public document, or 304 when the client already holds it (RFC 9110 section 15.4.5: validators and caching headers only). */
async function publicDocument(request: Request, body: string, contentType: string): Promise<Response> {
  const tag = await entityTag(body);
  const headers = { ...PUBLIC_CORS_HEADERS, 'Cache-Control': DISCOVERY_CACHE_CONTROL, ETag: tag };
  if (noneMatchHits(request.headers.get('If-None-Match'), tag)) return new Response(null, { status: 304, headers });
  return new Response(body, { status: 200, headers: { ...headers, 'Content-Type': contentType } });
}

/** The client's discovery budget (rate-limit.ts); a refusal is the REST 429 with Retry-After. */
async function refusedForRate(config: Config, request: Request): Promise<Handled | null> {
  const spent = await takeDiscoveryLimit(config, request);
  if (spent.ok) return null;
  return { response: restErrorResponse(spent.error, null), facts: { outcome: outcomeCode(spent.error) } };
}

/** A public document route: configuration, the client's budget, then the document built from PUBLIC_ORIGIN. */
function publicRoute(build: (context: RouteContext, identity: DiscoveryIdentity) => { body: string; contentType: string }): RouteHandler {
  return async (context) => {
    const { request, config } = context;
    if (!config) {
      return { response: errorResponse(503, 'SERVICE_UNAVAILABLE', 'Service unavailable'), facts: { outcome: 'SERVICE_UNAVAILABLE' } };
    }
    const refused = await refusedForRate(config, request);
    if (refused) return refused;
    const { body, contentType } = build(context, discoveryIdentity(publicOrigin(context.url, config), config));
    return { response: await publicDocument(request, body, contentType), facts: {} };
  };
}

/** GET /mcp/server-card, and GET /mcp/vaults/<id>/server-card (context.endpointVault). */
export const serverCardRoute = publicRoute(({ endpointVault }, identity) => ({
  body: JSON.stringify(serverCard(identity, endpointVault ? `/mcp/vaults/${endpointVault}` : '/mcp')),
  contentType: SERVER_CARD_MEDIA_TYPE,
}));

/** GET /.well-known/ai-catalog.json and /.well-known/mcp/catalog.json. */
export const catalogRoute = publicRoute((_context, identity) => ({ body: JSON.stringify(aiCatalog(identity)), contentType: AI_CATALOG_MEDIA_TYPE }));

/** GET /icons/<theme>.svg. */
export const iconRoute = (theme: IconTheme): RouteHandler => publicRoute(() => ({ body: ICON_SVG[theme], contentType: 'image/svg+xml' }));
