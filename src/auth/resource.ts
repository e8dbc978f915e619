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
  /** The resource identifier: what `aud` must name, and what the metadata's `resource` says. */
  id: string;
  /** Its RFC 9728 metadata document, as a 401 challenge names it (RFC 9728 section 5.1). */
  metadataUrl: string;
}

/** The public origin: configured, or with ENVIRONMENT=local and none configured, the request's. */
export function publicOrigin(request: Request, config: Config): string {
  return config.publicOrigin ?? new URL(request.url).origin;
}

/** RFC 9728 section 3.1: the metadata URL inserts the well-known prefix between origin and path. */
export function protectedResource(request: Request, config: Config, path: ResourcePath): ProtectedResource {
  const origin = publicOrigin(request, config);
  return { id: `${origin}${path}`, metadataUrl: `${origin}${METADATA_PREFIX}${path}` };
}

/**
 * RFC 8707 audience binding: some audience names the resource exactly, or a parent of it on a
 * `/` boundary (a token for `<origin>/mcp` serves `<origin>/mcp/vaults/a`, never `<origin>/mcpx`).
 * Comparison is exact, without case folding or normalization.
 */
export function audienceAdmits(audiences: readonly string[], resource: string): boolean {
  return audiences.some((audience) => {
    if (audience === resource) return true;
    const parent = audience.endsWith('/') ? audience : `${audience}/`;
    return audience !== '' && resource.startsWith(parent);
  });
}
