/** RFC 9728 protected-resource metadata, and the unauthenticated health check. */
import { isLocalEnvironment, loadConfig } from '../config';
import { protectedResource, SCOPES_SUPPORTED, type ResourcePath } from '../auth/resource';
import type { Handled } from '../log';
import type { RouteContext } from './context';
import { errorResponse, jsonResponse } from './responses';

/**
 * RFC 9728 section 3.2: `resource` is exactly the identifier the metadata URL was built from
 * (section 3.3), so a client given `<origin>/mcp` accepts it. `authorization_servers` is always
 * present outside local mode (config.ts requires it).
 */
export function metadataDocument(resourcePath: (context: RouteContext) => ResourcePath) {
  return (context: RouteContext): Handled => {
    const { url, config } = context;
    if (!config) {
      return { response: errorResponse(503, 'SERVICE_UNAVAILABLE', 'Service unavailable'), facts: { outcome: 'SERVICE_UNAVAILABLE' } };
    }
    const path = resourcePath(context);
    const response = jsonResponse({
      resource: protectedResource(url, config, path).id,
      ...(config.authorizationServer ? { authorization_servers: [config.authorizationServer] } : {}),
      scopes_supported: [...SCOPES_SUPPORTED],
      bearer_methods_supported: ['header'],
      resource_name: 'Knowtation Edge',
    });
    return { response, facts: {} };
  };
}

/**
 * Liveness: no auth, no upstream call. In production and staging it says
 * nothing about configuration. With ENVIRONMENT=local it also reports
 * whether the configuration is valid and, if not, which variables fail and
 * why, by name and fixed reason only (never a value).
 */
export function health({ env }: RouteContext): Handled {
  if (!env || !isLocalEnvironment(env)) return { response: jsonResponse({ ok: true }), facts: {} };
  const loaded = loadConfig(env);
  const response = jsonResponse({
    ok: true,
    environment: 'local',
    config: loaded.ok ? { valid: true, problems: [] } : { valid: false, problems: loaded.problems },
  });
  return { response, facts: {} };
}
