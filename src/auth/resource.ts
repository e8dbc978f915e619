/**
 * The Worker as an OAuth protected resource (RFC 9728, RFC 8707, RFC 6750):
 * which resource a request addresses, where its metadata lives, and whether
 * a token's audience admits it. Identifiers are built from the configured
 * public origin; only ENVIRONMENT=local falls back to the request's own.
 */
import type { Config } from '../config';

/** The one scope a read needs, and the scopes this resource advertises (RFC 9728 section 2). */
export const READ_SCOPE = 'vault:read';
export const SCOPES_SUPPORTED = [READ_SCOPE] as const;

const METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** The REST routes (''), the MCP endpoint ('/mcp') or one vault's MCP endpoint ('/mcp/vaults/<id>'). */
export type ResourcePath = '' | '/mcp' | `/mcp/vaults/${string}`;

export interface ProtectedResource {
  /** The public origin the resource is named under (scheme://host[:port]). */
  origin: string;
  /** The resource's path under that origin ('' for the REST routes). */
  path: ResourcePath;
  /** The resource identifier, origin + path: what the metadata's `resource` says. */
  id: string;
  /** Its RFC 9728 metadata document, as a 401 challenge names it (RFC 9728 section 5.1). */
  metadataUrl: string;
}

/** The public origin: configured, or with ENVIRONMENT=local and none configured, the request URL's. */
export function publicOrigin(url: URL, config: Config): string {
  return config.publicOrigin ?? url.origin;
}

/** RFC 9728 section 3.1: the metadata URL inserts the well-known prefix between origin and path. */
export function metadataUrlOf(origin: string, path: string): string {
  return `${origin}${METADATA_PREFIX}${path}`;
}

export function protectedResource(url: URL, config: Config, path: ResourcePath): ProtectedResource {
  const origin = publicOrigin(url, config);
  return { origin, path, id: `${origin}${path}`, metadataUrl: metadataUrlOf(origin, path) };
}

/**
 * RFC 8707 audience binding, exact: an audience admits the resource only when it is this Worker's
 * public origin followed by nothing, or by a path that is the resource's own path or a parent of it
 * on a `/` boundary (`<origin>/mcp` serves `<origin>/mcp/vaults/a`, never `<origin>/mcpx`; `<origin>`
 * and `<origin>/` serve the origin and every path below it). Strings are compared as they are: no case
 * folding, no percent-decoding, no default-port or dot-segment normalization, so another scheme,
 * host, port or userinfo never matches.
 */
export function audienceAdmits(audiences: readonly string[], resource: ProtectedResource): boolean {
  return audiences.some((audience) => {
    if (!audience.startsWith(resource.origin)) return false;
    const path = audience.slice(resource.origin.length);
    // RFC 9110 section 4.2.3: for http(s), an empty path and `/` name the same resource.
    if (path === resource.path || (path === '/' && resource.path === '')) return true;
    if (path !== '' && !path.startsWith('/')) return false;
    const parent = path.endsWith('/') ? path : `${path}/`;
    return resource.path.startsWith(parent);
  });
}
