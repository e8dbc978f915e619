/**
 * Scooling smoke bridge: GET <BRIDGED_CONTRACT.bridgeRoute>?path=, the
 * registry's one bridged contract, answered raw.
 *
 * Off (a plain 404) unless SCOOLING_SMOKE_ENABLED=true and ENVIRONMENT is
 * local or staging. The bridge owns its upstream credential
 * (SCOOLING_SMOKE_TOKEN, verified like any bearer token), which alone names
 * the vault it reads (a caller's X-Vault-Id is ignored), so a request that
 * carries its own Authorization or Cookie is refused. The
 * payload is validated against its schema before it is returned, with no envelope.
 */
import { outcomeCode, type ReadError } from '../errors';
import { gateRefusalFacts } from '../gate';
import type { Handled, LogFacts } from '../log';
import { readContract } from '../read-note';
import { BRIDGED_CONTRACT, conformsToOutputSchema } from '../contracts/registry';
import { gateNoteRead } from './rest';
import type { RouteContext } from './context';
import { errorResponse, jsonResponse, restErrorResponse } from './responses';

/** The bridge owns its credential: no answer carries a challenge inviting the caller to send one. */
function bridgeRefusal(error: ReadError, facts: LogFacts = { outcome: outcomeCode(error) }): Handled {
  return { response: restErrorResponse(error, null, 'Scooling smoke bridge is not configured'), facts };
}

export async function scoolingSmokeRoute({ request, url, config }: RouteContext): Promise<Handled> {
  const enabled =
    config?.scoolingSmoke.enabled === true && (config.environment === 'local' || config.environment === 'staging');
  if (!config || !enabled) return { response: errorResponse(404, 'NOT_FOUND', 'Not found'), facts: { outcome: 'NOT_FOUND' } };
  const token = config.scoolingSmoke.token;
  // The bridge's own credential, on the REST resource; its reads spend the bridge's own budget, and
  // its credential alone names the vault: a caller's X-Vault-Id is not read, a caller's own credential refused.
  const outcome = await gateNoteRead({ request, url, config }, token ? `Bearer ${token}` : null, BRIDGED_CONTRACT, 'bridge', {
    vaultHeader: false,
    screen: () => (request.headers.has('Authorization') || request.headers.has('Cookie') ? { kind: 'CredentialsRefused' } : null),
  });
  if (!outcome.admitted) {
    const { refusal } = outcome;
    if (refusal.step === 'ask' || refusal.step === 'screen') return bridgeRefusal(refusal.refusal);
    // A bridge whose own credential is missing or fails is misconfigured, not the caller's fault.
    if (refusal.step === 'authenticate') return bridgeRefusal({ kind: 'Misconfigured' }, { ...gateRefusalFacts(refusal), outcome: 'SERVICE_UNAVAILABLE' });
    return bridgeRefusal(refusal.error, gateRefusalFacts(refusal));
  }
  const read = await readContract(outcome.request, outcome.request.asked);
  // The read's facts already carry its outcome.
  const facts = { context: outcome.context, ...read.facts };
  if (!read.result.ok) return bridgeRefusal(read.result.error, facts);
  if (!conformsToOutputSchema(read.result.value)) return bridgeRefusal({ kind: 'Runtime' }, { ...facts, outcome: 'INTERNAL_ERROR' });
  return { response: jsonResponse(read.result.value), facts };
}
