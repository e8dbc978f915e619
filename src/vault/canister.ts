/**
 * One GET of one note from the canister, through boundedGet (the one
 * outbound read: one deadline for headers and body, no redirects, a non-2xx
 * answer mapped from its status alone with its body never read, a 2xx body
 * abandoned past MAX_NOTE_RESPONSE_BYTES). Of the JSON only `frontmatter` and `body`
 * are used, and only when the answer's `path` is the path that was asked for
 * (the canister also looks a path up by its raw, still-encoded remainder, so
 * it can answer for another note). Header values are checked before the
 * request is built, so building it cannot throw.
 */
import type { Config } from '../config';
import { fail, ok, type Result } from '../errors';
import type { Principal } from '../auth/jwt';
import { boundedGet } from '../bounded-fetch';
import { hasUnsafeCharacter } from '../unsafe-text';

export const MAX_NOTE_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface CanisterNote {
  /** Wire frontmatter as the canister sent it (JSON text, usually). */
  frontmatter: unknown;
  body: string;
}

export interface CanisterRead {
  result: Result<CanisterNote>;
  /** HTTP status of the canister answer, or null when none arrived. */
  upstreamStatus: number | null;
}

export function canisterNoteUrl(config: Config, path: string): string {
  return `${config.canisterUrl}/api/v1/notes/${encodeURIComponent(path)}`;
}


/**
 * The canister headers, or the typed refusal when a value could not be sent
 * as it is: the principal's values make it a refused credential (401, as
 * authenticate already refuses such claims), the gateway secret a
 * misconfiguration. Never an exception, so never a 502. The Worker
 * authenticates itself (X-Gateway-Auth) and names the identity; nothing of
 * the caller's credential is passed through (MCP authorization, token
 * passthrough is forbidden).
 */
function canisterHeaders(config: Config, principal: Principal, vaultId: string): Result<Headers> {
  const fromPrincipal = [principal.canisterUserId, principal.sub, vaultId];
  if (fromPrincipal.some(hasUnsafeCharacter)) return fail({ kind: 'Unauthorized', invalidToken: true });
  if (config.canisterAuthSecret && hasUnsafeCharacter(config.canisterAuthSecret)) return fail({ kind: 'Misconfigured' });
  try {
    const headers = new Headers({
      Accept: 'application/json',
      'X-Vault-Id': vaultId,
      'X-User-Id': principal.canisterUserId,
      'X-Actor-Id': principal.sub,
    });
    if (config.canisterAuthSecret) headers.set('X-Gateway-Auth', config.canisterAuthSecret);
    return ok(headers);
  } catch {
    return fail({ kind: 'Unauthorized', invalidToken: true });
  }
}

/**
 * The note in a 2xx answer's bytes (UTF-8 JSON). The answer must name the note it is for: a
 * string `path` other than the requested one is answered exactly like a
 * missing note (and never echoed); an answer without a string `path` breaks
 * the store contract (docs/STORE.md) and cannot be attributed,
 * so it is an invalid note response.
 */
export function noteFromAnswer(bytes: Uint8Array, requestedPath: string): Result<CanisterNote> {
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return fail({ kind: 'InvalidNoteResponse' });
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return fail({ kind: 'InvalidNoteResponse' });
  const { path, frontmatter, body } = data as { path?: unknown; frontmatter?: unknown; body?: unknown };
  if (typeof path !== 'string') return fail({ kind: 'InvalidNoteResponse' });
  if (path !== requestedPath) return fail({ kind: 'NotFound' });
  if (body != null && typeof body !== 'string') return fail({ kind: 'InvalidNoteResponse' });
  return ok({ frontmatter, body: body ?? '' });
}

function statusError(status: number): Result<CanisterNote> {
  if (status === 404) return fail({ kind: 'NotFound' });
  if (status === 401 || status === 403) return fail({ kind: 'UpstreamDenied', status });
  return fail({ kind: 'UpstreamStatus', status });
}

/** Reads exactly one note; never retries, never lists, never writes. */
export async function readNoteFromCanister(
  config: Config,
  principal: Principal,
  vaultId: string,
  path: string,
): Promise<CanisterRead> {
  const headers = canisterHeaders(config, principal, vaultId);
  if (!headers.ok) return { result: headers, upstreamStatus: null };
  const answer = await boundedGet(canisterNoteUrl(config, path), headers.value, {
    deadlineMs: config.canisterTimeoutMs,
    maxBytes: MAX_NOTE_RESPONSE_BYTES,
  });
  const upstreamStatus = answer.status;
  if (answer.ok) return { result: noteFromAnswer(answer.bytes, path), upstreamStatus };
  switch (answer.failure) {
    case 'status':
      return { result: statusError(answer.status as number), upstreamStatus };
    case 'too_large':
      return { result: fail({ kind: 'NoteTooLarge' }), upstreamStatus };
    case 'timeout':
      return { result: fail({ kind: 'UpstreamTimeout' }), upstreamStatus };
    case 'unreachable':
      return { result: fail({ kind: 'UpstreamUnreachable' }), upstreamStatus };
  }
}
