/**
 * The closed set of failures a request can end in. Adapters map a kind to a
 * status and a fixed message; no exception text, upstream text or request
 * input ever reaches a response or a log line.
 */
export type ReadError =
  | { kind: 'Unauthorized'; invalidToken: boolean }
  | { kind: 'InsufficientScope' }
  | { kind: 'VaultForbidden' }
  | { kind: 'InvalidVault' }
  /** The request carries a credential of its own where the route uses only its own (the Scooling bridge). */
  | { kind: 'CredentialsRefused' }
  | { kind: 'InvalidPath' }
  | { kind: 'InvalidArguments' }
  | { kind: 'NotFound' }
  | { kind: 'UpstreamDenied'; status: number }
  | { kind: 'UpstreamStatus'; status: number }
  | { kind: 'UpstreamTimeout' }
  | { kind: 'UpstreamUnreachable' }
  | { kind: 'InvalidNoteResponse' }
  | { kind: 'NoteTooLarge' }
  /** The answer would serialize to more than MAX_PAYLOAD_BYTES (4 MiB). */
  | { kind: 'NoteTooComplex' }
  /** The user's request budget for the current period is spent; retry after this many seconds. */
  | { kind: 'RateLimited'; retryAfterSeconds: number }
  /** The keys that verify tokens (the JWK set) cannot be had: the server's fault, retried shortly. */
  | { kind: 'AuthUnavailable' }
  /** The Hub refuses this user hosted access (to this vault). */
  | { kind: 'HostedAccessRefused' }
  /** The Hub's hosted context could not be had (no answer, a 5xx, a 429): retried shortly. */
  | { kind: 'HostedContextUnavailable' }
  /** The Hub answered something that is not this token's hosted context for this vault. */
  | { kind: 'HostedContextInvalid' }
  | { kind: 'Misconfigured' }
  | { kind: 'Runtime' };

export type Result<T> = { ok: true; value: T } | { ok: false; error: ReadError };

/** Retry-After for AuthUnavailable: a failed JWK set fetch is tried again on the next request, so a short wait. */
export const AUTH_UNAVAILABLE_RETRY_AFTER_SECONDS = 10;
/** Retry-After for HostedContextUnavailable: an outage is never remembered, so the next request asks the Hub again. */
export const HOSTED_CONTEXT_RETRY_AFTER_SECONDS = 5;

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(error: ReadError): Result<T> => ({ ok: false, error });

export interface RestError {
  status: number;
  code: string;
  message: string;
}

/** REST status, stable code and message for every failure. */
export function restError(error: ReadError, misconfiguredMessage = 'Service unavailable'): RestError {
  switch (error.kind) {
    case 'Unauthorized':
      return { status: 401, code: 'UNAUTHORIZED', message: 'Unauthorized' };
    case 'InsufficientScope':
      return { status: 403, code: 'FORBIDDEN', message: 'Forbidden' };
    case 'VaultForbidden':
      return { status: 403, code: 'FORBIDDEN', message: 'Access to this vault is not allowed.' };
    case 'InvalidVault':
      return { status: 400, code: 'INVALID_VAULT', message: 'Invalid vault' };
    case 'CredentialsRefused':
      return { status: 400, code: 'CREDENTIALS_REFUSED', message: 'Credentials are not accepted on this route' };
    case 'InvalidPath':
    case 'InvalidArguments':
      return { status: 400, code: 'INVALID_PATH', message: 'Invalid path' };
    case 'NotFound':
      return { status: 404, code: 'NOT_FOUND', message: 'Not found' };
    case 'UpstreamDenied':
      return { status: 403, code: 'FORBIDDEN', message: 'Forbidden' };
    case 'UpstreamStatus':
      return { status: 502, code: 'BAD_GATEWAY', message: `Upstream ${error.status}` };
    case 'UpstreamUnreachable':
      return { status: 502, code: 'BAD_GATEWAY', message: 'Bad Gateway' };
    case 'InvalidNoteResponse':
      return { status: 502, code: 'BAD_GATEWAY', message: 'Invalid note response' };
    case 'UpstreamTimeout':
      return { status: 504, code: 'UPSTREAM_TIMEOUT', message: 'Upstream timeout' };
    case 'NoteTooLarge':
      return { status: 422, code: 'NOTE_TOO_LARGE', message: 'Note too large' };
    case 'NoteTooComplex':
      return { status: 422, code: 'NOTE_TOO_COMPLEX', message: 'Note structure too large' };
    case 'RateLimited':
      return { status: 429, code: 'RATE_LIMITED', message: 'Rate limit exceeded' };
    case 'AuthUnavailable':
      return { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Token verification unavailable' };
    case 'HostedAccessRefused':
      return { status: 403, code: 'FORBIDDEN', message: 'Hosted access refused' };
    case 'HostedContextUnavailable':
      return { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Hosted context unavailable' };
    case 'HostedContextInvalid':
      return { status: 502, code: 'BAD_GATEWAY', message: 'Invalid hosted context' };
    case 'Misconfigured':
      return { status: 503, code: 'SERVICE_UNAVAILABLE', message: misconfiguredMessage };
    case 'Runtime':
      return { status: 500, code: 'INTERNAL_ERROR', message: 'Runtime failure' };
  }
}

/** The message inside an MCP tool error (code is always UPSTREAM_ERROR, as in the reference). */
export function mcpToolErrorMessage(error: ReadError): string {
  switch (error.kind) {
    case 'InvalidPath':
      return 'Invalid path';
    case 'InvalidArguments':
      return 'Invalid arguments';
    case 'NotFound':
      return 'Upstream 404';
    case 'UpstreamDenied':
    case 'UpstreamStatus':
      return `Upstream ${error.status}`;
    case 'UpstreamTimeout':
      return 'Upstream timeout';
    case 'NoteTooLarge':
      return 'Note too large';
    case 'NoteTooComplex':
      return 'Note structure too large';
    case 'HostedAccessRefused':
      return 'Hosted access refused';
    default:
      return 'Runtime failure';
  }
}

/**
 * Outcome class for the log line: 'ok' or the stable error code. Invalid tool arguments (MCP
 * only: REST has no arguments, so no REST code) are named apart, as the client was told.
 */
export function outcomeCode(error: ReadError): string {
  return error.kind === 'InvalidArguments' ? 'INVALID_ARGUMENTS' : restError(error).code;
}
