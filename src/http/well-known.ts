/** RFC 9728 protected-resource metadata, and the unauthenticated health check. */
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

/** Liveness only: no auth, no upstream call, nothing about configuration. */
export function health(): Response {
  return jsonResponse({ ok: true });
}
