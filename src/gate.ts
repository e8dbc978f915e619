/**
 * The one request gate. Every surface that can read a note (REST, POST /mcp,
 * POST /mcp/vaults/<id>, the Scooling bridge) passes it, in this order:
 *
 *   1. configuration   the Worker is configured (else 503);
 *   2. screen          the surface's checks that need no credential (MCP: the Origin);
 *   3. authenticate    the credential is a valid token for the resource the request addresses;
 *   4. vault           the vault the request names is well-formed (vault/path.ts requestedVault);
 *   5. ask             the surface reads what is asked (REST: the route; MCP: the message, its
 *                      envelope, revision and headers) and names the budget it spends, or refuses it;
 *   6. context         the principal's hosted context: the token's own claims, or for a
 *                      shared-secret token that carries none, the Hub's (auth/hosted-context.ts:
 *                      remembered, or asked after the Hub-call budget is spent);
 *   7. admission       the vault is on the context's allowlist, and the role's contracts are set;
 *   8. budget          the person's budget for that kind of request is spent (reads, protocol,
 *                      or the bridge's own).
 *
 * A refusal at any step ends the request there and reads nothing. Only a Hub call (step 6) and
 * step 8 spend a budget, each just before the work it pays for, so a request refused at any other
 * step spends none. What passes is an AdmittedRequest, the only way to reach the shared read
 * (readContract).
 */
import { contractsForRole } from './auth/acl';
import { hostedContextFor, type HostedContextRefusal } from './auth/hosted-context';
import { authenticate, type ContextSource, type Principal, type TokenRefusal } from './auth/jwt';
import { protectedResource, type ProtectedResource, type ResourcePath } from './auth/resource';
import type { Config } from './config';
import type { ContractSpec } from './contracts/registry';
import { outcomeCode, type ReadError } from './errors';
import type { LogFacts } from './log';
import { takeRateLimit, type RateBudget } from './rate-limit';
import { admitVault, requestedVault } from './vault/path';

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
  /** Whether the request's X-Vault-Id names the vault; false where the surface names it itself (the bridge). */
  vaultHeader: boolean;
  /** The credential to verify: the caller's Authorization header, or the bridge's own. */
  authorization: string | null;
  /** Step 2: a refusal that needs no credential, or null. */
  screen?(config: Config): Refusal | null;
  /** Step 5, run only for an authenticated principal on a well-formed vault. */
  ask(): Promise<Asking<Asked, Refusal>> | Asking<Asked, Refusal>;
}

/** A request that passed every step: the only input the shared read takes. */
export interface AdmittedRequest<Asked = unknown> {
  config: Config;
  /** With its hosted context resolved (`context` says from where). */
  principal: Principal;
  /** The vault, resolved and on the principal's allowlist. */
  vaultId: string;
  resource: ProtectedResource;
  /** The contracts the principal's role may read (auth/acl.ts), decided once here. */
  contracts: readonly ContractSpec[];
  asked: Asked;
}

export type GateRefusal<Asked, Refusal> =
  | { step: 'configuration'; error: ReadError; resource: null }
  | { step: 'screen'; refusal: Refusal; resource: null }
  | { step: 'authenticate'; error: ReadError; resource: ProtectedResource; reason: TokenRefusal }
  | { step: 'vault'; error: ReadError; resource: ProtectedResource }
  | { step: 'ask'; refusal: Refusal; resource: ProtectedResource }
  | { step: 'context'; error: ReadError; resource: ProtectedResource; asked: Asked; reason: HostedContextRefusal; context: ContextFact }
  | { step: 'admission'; error: ReadError; resource: ProtectedResource; asked: Asked; context: ContextFact }
  | { step: 'budget'; error: ReadError; resource: ProtectedResource; asked: Asked; context: ContextFact };

export type GateOutcome<Asked, Refusal> =
  | { admitted: true; request: AdmittedRequest<Asked>; context: ContextFact }
  | { admitted: false; refusal: GateRefusal<Asked, Refusal> };

/** The log line's `context`: where the principal's context came from, `hub_remembered` for a kept answer. */
export type ContextFact = ContextSource | 'hub_remembered';

export async function gate<Asked, Refusal>(spec: GateSpec<Asked, Refusal>): Promise<GateOutcome<Asked, Refusal>> {
  const refused = (refusal: GateRefusal<Asked, Refusal>): GateOutcome<Asked, Refusal> => ({ admitted: false, refusal });
  const { config } = spec;
  if (!config) return refused({ step: 'configuration', error: { kind: 'Misconfigured' }, resource: null });
  const screened = spec.screen?.(config) ?? null;
  if (screened !== null) return refused({ step: 'screen', refusal: screened, resource: null });
  const resource = protectedResource(spec.url, config, spec.resourcePath);

  const authentication = await authenticate(spec.authorization, config, resource, Math.floor(Date.now() / 1000));
  if (!authentication.ok) return refused({ step: 'authenticate', error: authentication.error, resource, reason: authentication.reason });

  const header = spec.vaultHeader ? spec.request.headers.get('X-Vault-Id') : null;
  const vault = requestedVault(authentication.principal, { header, endpoint: spec.endpointVault });
  if (!vault.ok) return refused({ step: 'vault', error: vault.error, resource });
  const vaultId = vault.value;

  const asking = await spec.ask();
  if (!asking.ok) return refused({ step: 'ask', refusal: asking.refusal, resource });
  const { asked, budget } = asking;

  let principal = authentication.principal;
  let context: ContextFact = principal.context;
  if (authentication.askHub) {
    const hosted = await hostedContextFor(config, principal, authentication.token, vaultId, async () => {
      const spent = await takeRateLimit(config, principal, 'hub');
      return spent.ok ? null : spent.error;
    });
    context = hosted.remembered ? 'hub_remembered' : 'hub';
    if (!hosted.ok) return refused({ step: 'context', error: hosted.error, resource, asked, reason: hosted.reason, context });
    principal = hosted.principal;
  }

  const admission = admitVault(principal, vaultId);
  if (!admission.ok) return refused({ step: 'admission', error: admission.error, resource, asked, context });

  const spent = await takeRateLimit(config, principal, budget);
  if (!spent.ok) return refused({ step: 'budget', error: spent.error, resource, asked, context });

  const contracts = contractsForRole(principal.role);
  return { admitted: true, request: { config, principal, vaultId, resource, contracts, asked }, context };
}

/** The log facts of a refusal the gate made itself (every step but the surface's own `screen` and `ask`). */
export function gateRefusalFacts(refusal: Exclude<GateRefusal<unknown, unknown>, { step: 'ask' | 'screen' }>): LogFacts {
  const facts: LogFacts = { outcome: outcomeCode(refusal.error) };
  if (refusal.step === 'authenticate' || refusal.step === 'context') facts.reason = refusal.reason;
  if ('context' in refusal) facts.context = refusal.context;
  return facts;
}
