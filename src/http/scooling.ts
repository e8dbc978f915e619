/**
 * Scooling smoke bridge: GET /scooling/note-outline/smoke?path=
 *
 * Off (a plain 404) unless SCOOLING_SMOKE_ENABLED=true and ENVIRONMENT is
 * local or staging. The bridge owns its upstream credential
 * (SCOOLING_SMOKE_TOKEN, verified like any bearer token), so a request that
 * carries its own Authorization or Cookie is refused. The NoteOutline is
 * validated against its schema before it is returned, raw, with no envelope.
 */
import { Validator } from '@cfworker/json-schema';
import { NOTE_OUTLINE_JSON_SCHEMA } from '../contracts/schemas';
import { authenticate } from '../auth/jwt';
import { protectedResource } from '../auth/resource';
import { outcomeCode, type ReadError } from '../errors';
import { readContract } from '../read-note';
import { contractNamed } from '../contracts/registry';
import { resolveVault } from '../vault/path';
import { singlePathParam } from './query';
import type { RouteContext } from './context';
import { errorResponse, jsonResponse, restErrorResponse } from './responses';

/** Built on the bridge's first use, not in every isolate's startup. */
let outlineValidator: Validator | null = null;

export async function scoolingSmokeRoute({ request, config, log }: RouteContext): Promise<Response> {
  const enabled =
    config?.scoolingSmoke.enabled === true && (config.environment === 'local' || config.environment === 'staging');
  if (!config || !enabled) {
    log.outcome = 'NOT_FOUND';
    return errorResponse(404, 'NOT_FOUND', 'Not found');
  }
  const refuse = (error: ReadError): Response => {
    log.outcome = outcomeCode(error);
    // The bridge owns its credential: no challenge invites the caller to send one.
    return restErrorResponse(error, null, 'Scooling smoke bridge is not configured');
  };
  if (request.headers.has('Authorization') || request.headers.has('Cookie')) {
    log.outcome = 'CREDENTIALS_REFUSED';
    return errorResponse(400, 'CREDENTIALS_REFUSED', 'Credentials are not accepted on this route');
  }
  const token = config.scoolingSmoke.token;
  if (!token) return refuse({ kind: 'Misconfigured' });

  const bridgeRequest = new Request(request.url, { headers: { Authorization: `Bearer ${token}` } });
  const resource = protectedResource(request, config, '');
  const principal = await authenticate(bridgeRequest, config, resource, Math.floor(Date.now() / 1000), log);
  // A bridge whose own credential fails is misconfigured, not the caller's fault.
  if (!principal.ok) return refuse({ kind: 'Misconfigured' });

  const vault = resolveVault(principal.value, { header: request.headers.get('X-Vault-Id'), endpoint: null });
  if (!vault.ok) return refuse(vault.error);
  const result = await readContract({
    config,
    principal: principal.value,
    contract: contractNamed('note_outline'),
    rawPath: singlePathParam(new URL(request.url)),
    vaultId: vault.value,
    log,
  });
  if (!result.ok) return refuse(result.error);
  outlineValidator ??= new Validator(NOTE_OUTLINE_JSON_SCHEMA as unknown as object, '2020-12', false);
  if (!outlineValidator.validate(result.value).valid) return refuse({ kind: 'Runtime' });
  return jsonResponse(result.value);
}
