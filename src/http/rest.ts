/**
 * Hub REST adapter: GET /api/v1/<contract>?path= -> the payload, or a
 * sanitized {"error","code"}. A screen of code over the shared pipeline.
 */
import type { ContractSpec } from '../contracts/registry';
import { authenticate } from '../auth/jwt';
import { protectedResource, type ProtectedResource } from '../auth/resource';
import { outcomeCode, type ReadError } from '../errors';
import { readContract } from '../read-note';
import { takeRateLimit } from '../rate-limit';
import { resolveVault } from '../vault/path';
import { singlePathParam } from './query';
import type { RouteContext, RouteHandler } from './context';
import { payloadResponse, restErrorResponse } from './responses';

export function restRoute(contract: ContractSpec): RouteHandler {
  return async ({ request, config, log }: RouteContext): Promise<Response> => {
    let resource: ProtectedResource | null = null;
    const refuse = (error: ReadError): Response => {
      log.outcome = outcomeCode(error);
      return restErrorResponse(error, resource, contract.unavailableMessage);
    };
    if (!config) return refuse({ kind: 'Misconfigured' });
    // The REST routes are one protected resource: the public origin itself.
    resource = protectedResource(request, config, '');

    const principal = await authenticate(request, config, resource, Math.floor(Date.now() / 1000), log);
    if (!principal.ok) return refuse(principal.error);
    // Counted per user after authentication and before anything that can reach the canister.
    const limited = await takeRateLimit(config, principal.value);
    if (!limited.ok) return refuse(limited.error);
    const vault = resolveVault(principal.value, { header: request.headers.get('X-Vault-Id'), endpoint: null });
    if (!vault.ok) return refuse(vault.error);

    // Exactly one `path` value, UTF-8 once decoded: a repeated, missing or undecodable one is an invalid path.
    const result = await readContract({
      config,
      principal: principal.value,
      contract,
      rawPath: singlePathParam(new URL(request.url)),
      vaultId: vault.value,
      log,
    });
    return result.ok ? payloadResponse(result.value) : refuse(result.error);
  };
}
