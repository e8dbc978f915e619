/**
 * Hub REST adapter: GET /api/v1/<contract>?path= -> the payload, or a
 * sanitized {"error","code"}. The gate, then the shared read; nothing else.
 */
import type { ContractSpec } from '../contracts/registry';
import { gateRefusalFacts, gateRestRead } from '../gate';
import { readContract } from '../read-note';
import { singlePathParam } from './query';
import type { RouteContext, RouteHandler } from './context';
import { payloadResponse, restErrorResponse } from './responses';

export function restRoute(contract: ContractSpec): RouteHandler {
  return async ({ request, url, config }: RouteContext) => {
    // The REST routes are one protected resource, the public origin itself; a read spends the read budget.
    const outcome = await gateRestRead({ request, url, config }, request.headers.get('Authorization'), 'read');
    if (!outcome.admitted) {
      const { refusal } = outcome;
      if (refusal.step === 'ask') return refusal.refusal;
      return {
        response: restErrorResponse(refusal.error, refusal.resource, contract.unavailableMessage),
        facts: gateRefusalFacts(refusal),
      };
    }
    // Exactly one `path` value, UTF-8 once decoded: a repeated, missing or undecodable one is an invalid path.
    const read = await readContract(outcome.request, contract, singlePathParam(url));
    const response = read.result.ok
      ? payloadResponse(read.result.value)
      : restErrorResponse(read.result.error, outcome.request.resource, contract.unavailableMessage);
    return { response, facts: read.facts };
  };
}
