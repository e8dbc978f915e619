/** RFC 9728 protected-resource metadata, and the unauthenticated health check. */
import { isLocalEnvironment, loadConfig } from '../config';
import type { RouteContext } from './context';
import { errorResponse, jsonResponse } from './responses';

export function protectedResourceMetadata(resourceSuffix: '' | '/mcp') {
  return ({ request, config, log }: RouteContext): Response => {
    if (!config) {
      log.outcome = 'SERVICE_UNAVAILABLE';
      return errorResponse(503, 'SERVICE_UNAVAILABLE', 'Service unavailable');
    }
    const origin = new URL(request.url).origin;
    return jsonResponse({
      resource: `${origin}${resourceSuffix}`,
      ...(config.authorizationServer ? { authorization_servers: [config.authorizationServer] } : {}),
      scopes_supported: ['vault:read'],
      bearer_methods_supported: ['header'],
      resource_name: 'Knowtation Edge',
    });
  };
}

/**
 * Liveness: no auth, no upstream call. In production and staging it says
 * nothing about configuration. With ENVIRONMENT=local it also reports
 * whether the configuration is valid and, if not, which variables fail and
 * why, by name and fixed reason only (never a value).
 */
export function health({ env }: RouteContext): Response {
  if (!env || !isLocalEnvironment(env)) return jsonResponse({ ok: true });
  const loaded = loadConfig(env);
  return jsonResponse({
    ok: true,
    environment: 'local',
    config: loaded.ok ? { valid: true, problems: [] } : { valid: false, problems: loaded.problems },
  });
}
