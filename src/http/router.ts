/**
 * The route table and its dispatch. Every HTTP route the Worker serves is
 * listed here once (the REST routes from the contract registry);
 * openapi.yaml must list the same paths (a test keeps them in lock-step).
 * A path matches as written or with trailing slashes; `:vault` is one
 * non-empty segment. Known paths answer 405 with Allow for other methods;
 * anything else is a JSON 404.
 */
import type { RouteContext, RouteHandler } from './context';
import { restRoute } from './rest';
import { BRIDGED_CONTRACT, CONTRACTS } from '../contracts/registry';
import { mcpMethodNotAllowed, mcpNotFound, mcpRoute } from './mcp';
import { health, metadataDocument } from './well-known';
import { CATALOG_PATHS, SERVER_CARD_SUFFIX, catalogRoute, iconRoute, serverCardRoute } from './discovery';
import { ICON_PATHS } from './server-identity';
import { isVaultId } from '../vault/path';
import { scoolingSmokeRoute } from './scooling';
import { errorResponse } from './responses';
import type { Handled, Surface } from '../log';

export interface RouteSpec {
  path: string;
  method: 'GET' | 'POST';
  /** Name used in log lines. */
  op: string;
  surface: Surface;
  handler: RouteHandler;
}

const VAULT_ENDPOINT_PREFIX = '/mcp/vaults/';

/**
 * The vault a `/mcp/vaults/<id>` URL names (also under a `/server-card` suffix), read from the raw
 * path (never percent-decoded, so one endpoint has one spelling), or null when the segment is not a vault id.
 */
function endpointVaultOf({ pathname }: URL): string | null {
  const at = pathname.indexOf(VAULT_ENDPOINT_PREFIX);
  const segment = at === -1 ? '' : pathname.slice(at + VAULT_ENDPOINT_PREFIX.length).split('/')[0];
  return isVaultId(segment) ? segment : null;
}

const jsonNotFound = (): Response => errorResponse(404, 'NOT_FOUND', 'Not found');

/** A route for one vault's endpoint: an id that is not a vault id is a path that does not exist. */
function forEndpointVault(handler: RouteHandler, notFound: () => Response = jsonNotFound): RouteHandler {
  return (context) => {
    const endpointVault = endpointVaultOf(context.url);
    if (endpointVault === null) return { response: notFound(), facts: { outcome: 'NOT_FOUND' } };
    return handler({ ...context, endpointVault });
  };
}

/** A route's answer with its name and surface in the facts; an exception is the fixed 500, its text never sent or logged. */
async function served(route: RouteSpec, context: RouteContext): Promise<Handled> {
  const named = { op: route.op, surface: route.surface };
  try {
    const handled = await route.handler(context);
    return { response: handled.response, facts: { ...named, ...handled.facts } };
  } catch {
    return { response: errorResponse(500, 'INTERNAL_ERROR', 'Runtime failure'), facts: { ...named, outcome: 'INTERNAL_ERROR' } };
  }
}

export const ROUTES: RouteSpec[] = [
  { path: '/health', method: 'GET', op: 'health', surface: 'meta', handler: health },
  {
    path: '/.well-known/oauth-protected-resource',
    method: 'GET',
    op: 'protected_resource',
    surface: 'meta',
    handler: metadataDocument(() => ''),
  },
  {
    path: '/.well-known/oauth-protected-resource/mcp',
    method: 'GET',
    op: 'protected_resource',
    surface: 'meta',
    handler: metadataDocument(() => '/mcp'),
  },
  {
    path: '/.well-known/oauth-protected-resource/mcp/vaults/:vault',
    method: 'GET',
    op: 'protected_resource',
    surface: 'meta',
    handler: forEndpointVault(metadataDocument(({ endpointVault }) => `/mcp/vaults/${endpointVault}`)),
  },
  // One REST route per contract, as the registry declares it.
  ...CONTRACTS.map(
    (contract): RouteSpec => ({ path: contract.route, method: 'GET', op: contract.name, surface: 'rest', handler: restRoute(contract) }),
  ),
  // Discovery before connecting (discovery.ts): public, no token, no canister call.
  { path: `/mcp${SERVER_CARD_SUFFIX}`, method: 'GET', op: 'server_card', surface: 'meta', handler: serverCardRoute },
  {
    path: `/mcp/vaults/:vault${SERVER_CARD_SUFFIX}`,
    method: 'GET',
    op: 'server_card',
    surface: 'meta',
    handler: forEndpointVault(serverCardRoute),
  },
  ...CATALOG_PATHS.map((path): RouteSpec => ({ path, method: 'GET', op: 'ai_catalog', surface: 'meta', handler: catalogRoute })),
  { path: ICON_PATHS.light, method: 'GET', op: 'icon', surface: 'meta', handler: iconRoute('light') },
  { path: ICON_PATHS.dark, method: 'GET', op: 'icon', surface: 'meta', handler: iconRoute('dark') },
  { path: '/mcp', method: 'POST', op: 'mcp', surface: 'mcp', handler: mcpRoute },
  { path: '/mcp/vaults/:vault', method: 'POST', op: 'mcp', surface: 'mcp', handler: forEndpointVault(mcpRoute, mcpNotFound) },
  { path: BRIDGED_CONTRACT.bridgeRoute, method: 'GET', op: 'scooling_smoke', surface: 'rest', handler: scoolingSmokeRoute },
];

/** A route path as a test on a request's pathname: literal, or literal around one `:vault` segment. */
function pathMatcher(path: string): (pathname: string) => boolean {
  const at = path.indexOf(':vault');
  if (at === -1) return (pathname) => pathname === path;
  const [prefix, suffix] = [path.slice(0, at), path.slice(at + ':vault'.length)];
  return (pathname) => {
    if (pathname.length <= prefix.length + suffix.length || !pathname.startsWith(prefix) || !pathname.endsWith(suffix)) return false;
    return !pathname.slice(prefix.length, pathname.length - suffix.length).includes('/');
  };
}

/** The routes of one path, each method's, and what any other method is answered. */
interface PathRoutes {
  matches: (pathname: string) => boolean;
  routes: RouteSpec[];
  methodNotAllowed: () => Handled;
}

function withoutTrailingSlashes(pathname: string): string {
  let end = pathname.length;
  while (end > 0 && pathname.charCodeAt(end - 1) === 0x2f) end -= 1;
  return pathname.slice(0, end);
}

const notFound = (): Handled => ({ response: jsonNotFound(), facts: { outcome: 'NOT_FOUND' } });

/**
 * The dispatch: the route of the request's path and method, a 405 for a known path's other
 * methods, else a 404. A table scan of plain string tests, not a router library: the measured
 * reason is in docs/PERFORMANCE.md (the request path).
 */
export function buildRouter(): (context: RouteContext) => Promise<Handled> {
  const paths: PathRoutes[] = [...new Set(ROUTES.map((route) => route.path))].map((path) => {
    const routes = ROUTES.filter((route) => route.path === path);
    const allow = [...routes.map((route) => route.method), 'OPTIONS'].join(', ');
    const { op, surface } = routes[0] as RouteSpec;
    return {
      matches: pathMatcher(path),
      routes,
      methodNotAllowed: (): Handled => ({
        response: surface === 'mcp' ? mcpMethodNotAllowed() : errorResponse(405, 'METHOD_NOT_ALLOWED', 'Method not allowed', { Allow: allow }),
        facts: { op, surface, outcome: 'METHOD_NOT_ALLOWED' },
      }),
    };
  });
  return async (context) => {
    const pathname = withoutTrailingSlashes(context.url.pathname);
    const known = paths.find((entry) => entry.matches(pathname));
    if (known === undefined) return notFound();
    const route = known.routes.find((candidate) => candidate.method === context.request.method);
    return route === undefined ? known.methodNotAllowed() : served(route, context);
  };
}
