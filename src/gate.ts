/**
 * The one request gate. Every surface that can read a note (REST, POST /mcp,
 * POST /mcp/vaults/<id>, the Scooling bridge) passes it, in this order:
 *
 *   1. configuration   the Worker is configured (else 503);
 *   2. authenticate    the credential is a valid token for the resource the request addresses;
 *   3. vault           the request's vault is resolved and admitted for the principal;
 *   4. ask             the surface reads what is asked (REST: the route; MCP: the message) and
 *                      names the budget it spends, or refuses it;
 *   5. budget          the principal's budget for that kind of request is spent (reads, protocol,
 *                      or the bridge's own).
 *
 * A refusal at any step ends the request there: it spends no budget and reads nothing. What
 * passes is an AdmittedRequest, the only way to reach the shared read (readContract).
 */
import { authenticate, type Principal, type TokenRefusal } from './auth/jwt';
import { protectedResource, type ProtectedResource, type ResourcePath } from './auth/resource';
import type { Config } from './config';
import { outcomeCode, type ReadError } from './errors';
import type { LogFacts } from './log';
import { takeRateLimit, type RateBudget } from './rate-limit';
import { resolveVault } from './vault/path';

/** What the surface asked for, once read, and the budget it spends; or the surface's own refusal. */
export type Asking<Asked, Refusal> = { ok: true; asked: Asked; budget: RateBudget } | { ok: false; refusal: Refusal };

export interface GateSpec<Asked, Refusal> {
  request: Request;
  /** The request's URL, parsed once (RouteContext.url). */
  url: URL;
  config: Config | null;
  /** The protected resource the request addresses. */
  resourcePath: ResourcePath;
  /** The vault the endpoint URL names (`/mcp/vaults/<id>`), or null. */
  endpointVault: string | null;
  /** The credential to verify: the caller's Authorization header, or the bridge's own. */
  authorization: string | null;
  /** Step 4, run only for an authenticated principal on an admitted vault. */
  ask(): Promise<Asking<Asked, Refusal>> | Asking<Asked, Refusal>;
}

/** A request that passed every step: the only input the shared read takes. */
export interface AdmittedRequest<Asked = unknown> {
  config: Config;
  principal: Principal;
  /** The vault, resolved and on the principal's allowlist. */
  vaultId: string;
  resource: ProtectedResource;
  asked: Asked;
}

export type GateRefusal<Asked, Refusal> =
  | { step: 'configuration'; error: ReadError; resource: null }
  | { step: 'authenticate'; error: ReadError; resource: ProtectedResource; reason: TokenRefusal }
  | { step: 'vault'; error: ReadError; resource: ProtectedResource }
  | { step: 'ask'; refusal: Refusal; resource: ProtectedResource }
  | { step: 'budget'; error: ReadError; resource: ProtectedResource; asked: Asked };

export type GateOutcome<Asked, Refusal> =
  | { admitted: true; request: AdmittedRequest<Asked> }
  | { admitted: false; refusal: GateRefusal<Asked, Refusal> };

export async function gate<Asked, Refusal>(spec: GateSpec<Asked, Refusal>): Promise<GateOutcome<Asked, Refusal>> {
  const refused = (refusal: GateRefusal<Asked, Refusal>): GateOutcome<Asked, Refusal> => ({ admitted: false, refusal });
  const { config } = spec;
  if (!config) return refused({ step: 'configuration', error: { kind: 'Misconfigured' }, resource: null });
  const resource = protectedResource(spec.url, config, spec.resourcePath);

  const authentication = await authenticate(spec.authorization, config, resource, Math.floor(Date.now() / 1000));
  if (!authentication.ok) return refused({ step: 'authenticate', error: authentication.error, resource, reason: authentication.reason });
  const { principal } = authentication;

  const vault = resolveVault(principal, { header: spec.request.headers.get('X-Vault-Id'), endpoint: spec.endpointVault });
  if (!vault.ok) return refused({ step: 'vault', error: vault.error, resource });

  const asking = await spec.ask();
  if (!asking.ok) return refused({ step: 'ask', refusal: asking.refusal, resource });

  const spent = await takeRateLimit(config, principal, asking.budget);
  if (!spent.ok) return refused({ step: 'budget', error: spent.error, resource, asked: asking.asked });

  return { admitted: true, request: { config, principal, vaultId: vault.value, resource, asked: asking.asked } };
}

/**
 * The gate of a read on the REST resource (the public origin itself, no endpoint vault): the
 * route itself is what is asked, and the read spends `budget`.
 */
export function gateRestRead(
  { request, url, config }: Pick<GateSpec<null, never>, 'request' | 'url' | 'config'>,
  authorization: string | null,
  budget: RateBudget,
): Promise<GateOutcome<null, never>> {
  return gate<null, never>({ request, url, config, resourcePath: '', endpointVault: null, authorization, ask: () => ({ ok: true, asked: null, budget }) });
}

/** The log facts of a refusal the gate made itself (every step but the surface's own `ask`). */
export function gateRefusalFacts(refusal: Exclude<GateRefusal<unknown, unknown>, { step: 'ask' }>): LogFacts {
  return { outcome: outcomeCode(refusal.error), reason: refusal.step === 'authenticate' ? refusal.reason : null };
}
