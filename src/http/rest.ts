/**
 * Hub REST adapter: GET /api/v1/<contract>?path= -> the payload, or a
 * sanitized {"error","code"}. The gate, then the shared read; nothing else.
 */
import type { ContractSpec } from '../contracts/registry';
import { outcomeCode, type ReadError } from '../errors';
import { gate, gateRefusalFacts, type GateOutcome, type GateSpec } from '../gate';
import type { RateBudget } from '../rate-limit';
import { askNote, readContract, type NoteAsk } from '../read-note';
import { singlePathParam } from './query';
import type { RouteContext, RouteHandler } from './context';
import { payloadResponse, restErrorResponse } from './responses';

/**
 * The gate of a read on the REST resource (the public origin itself, no endpoint vault): what is
 * asked is the contract and the query's one `path`, and the read spends `budget`. With
 * `vaultHeader` false (the Scooling bridge) a caller's X-Vault-Id is not read: the credential
 * alone names the vault; `screen` is the route's own refusal that needs no credential.
 */
export function gateNoteRead(
  { request, url, config }: Pick<GateSpec<NoteAsk, ReadError>, 'request' | 'url' | 'config'>,
  authorization: string | null,
  contract: ContractSpec,
  budget: RateBudget,
  { vaultHeader = true, screen }: { vaultHeader?: boolean; screen?: GateSpec<NoteAsk, ReadError>['screen'] } = {},
): Promise<GateOutcome<NoteAsk, ReadError>> {
  return gate<NoteAsk, ReadError>({
    request,
    url,
    config,
    resourcePath: '',
    endpointVault: null,
    vaultHeader,
    authorization,
    screen,
    // Exactly one `path` value, UTF-8 once decoded: a repeated, missing or undecodable one is an invalid path.
    ask: () => {
      const note = askNote(contract, singlePathParam(url));
      return note.ok ? { ok: true, asked: note.value, budget } : { ok: false, refusal: note.error };
    },
  });
}

export function restRoute(contract: ContractSpec): RouteHandler {
  return async ({ request, url, config }: RouteContext) => {
    // The REST routes are one protected resource, the public origin itself; a read spends the read budget.
    const outcome = await gateNoteRead({ request, url, config }, request.headers.get('Authorization'), contract, 'read');
    if (!outcome.admitted) {
      const { refusal } = outcome;
      const error = refusal.step === 'ask' || refusal.step === 'screen' ? refusal.refusal : refusal.error;
      const facts = refusal.step === 'ask' || refusal.step === 'screen' ? { outcome: outcomeCode(error) } : gateRefusalFacts(refusal);
      return { response: restErrorResponse(error, refusal.resource, contract.unavailableMessage), facts };
    }
    const read = await readContract(outcome.request, outcome.request.asked);
    const response = read.result.ok
      ? payloadResponse(read.result.value)
      : restErrorResponse(read.result.error, outcome.request.resource, contract.unavailableMessage);
    return { response, facts: { context: outcome.context, ...read.facts } };
  };
}
