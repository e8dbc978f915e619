/**
 * The only network code: one GET of one note from the canister.
 *
 * Guards: the whole exchange (headers and body) runs under one deadline;
 * redirects are not followed; a non-2xx answer is mapped from its status
 * alone and its body is never read; a 2xx body is streamed and abandoned
 * past MAX_NOTE_RESPONSE_BYTES; of the JSON only `frontmatter` and `body`
 * are used, and only when the answer's `path` is the path that was asked for
 * (the canister also looks a path up by its raw, still-encoded remainder, so
 * it can answer for another note). Header values are checked before the
 * request is built, so building it cannot throw.
 */
import type { Config } from '../config';
import { fail, ok, type Result } from '../errors';
import type { Principal } from '../auth/jwt';
import { TooLarge, declaresMoreThan, readBoundedBytes } from '../bounded-read';
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

/** The answer's text, read under the deadline and the size cap. */
async function readCappedText(response: Response, signal: AbortSignal): Promise<string> {
  if (declaresMoreThan(response.headers, MAX_NOTE_RESPONSE_BYTES)) throw new TooLarge();
  // Cancelling the body on abort makes a pending read settle, so a dripping answer cannot outlive the deadline.
  const onAbort = () => void response.body?.cancel().catch(() => {});
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const bytes = await readBoundedBytes(response.body, MAX_NOTE_RESPONSE_BYTES);
    if (signal.aborted) throw signal.reason;
    return new TextDecoder().decode(bytes);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The note in a 2xx answer. The answer must name the note it is for: a
 * string `path` other than the requested one is answered exactly like a
 * missing note (and never echoed); an answer without a string `path` breaks
 * the canister contract (REFERENCE-CONTRACTS 7) and cannot be attributed,
 * so it is an invalid note response.
 */
function parseNote(text: string, requestedPath: string): Result<CanisterNote> {
  let data: unknown;
  try {
    data = JSON.parse(text);
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
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('deadline', 'TimeoutError')), config.canisterTimeoutMs);
  let upstreamStatus: number | null = null;
  try {
    const response = await fetch(canisterNoteUrl(config, path), {
      method: 'GET',
      headers: headers.value,
      redirect: 'manual',
      signal: controller.signal,
    });
    upstreamStatus = response.status;
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel().catch(() => {});
      return { result: statusError(response.status), upstreamStatus };
    }
    const text = await readCappedText(response, controller.signal);
    return { result: parseNote(text, path), upstreamStatus };
  } catch (error) {
    if (error instanceof TooLarge) return { result: fail({ kind: 'NoteTooLarge' }), upstreamStatus };
    if (controller.signal.aborted) return { result: fail({ kind: 'UpstreamTimeout' }), upstreamStatus };
    return { result: fail({ kind: 'UpstreamUnreachable' }), upstreamStatus };
  } finally {
    clearTimeout(timer);
  }
}
