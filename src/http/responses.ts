/**
 * Response construction for every route: JSON bodies, the security headers
 * every response carries, CORS for allowed origins only, and the Bearer
 * challenge. Error bodies are always {"error","code"} with fixed texts.
 */
import type { Config } from '../config';
import { AUTH_UNAVAILABLE_RETRY_AFTER_SECONDS, HOSTED_CONTEXT_RETRY_AFTER_SECONDS, restError, type ReadError } from '../errors';
import { READ_SCOPE, type ProtectedResource } from '../auth/resource';

export const SECURITY_HEADERS: Record<string, string> = {
  'Cache-Control': 'private, no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
};

export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, X-Vault-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name';
export const CORS_EXPOSED_HEADERS = 'WWW-Authenticate, X-Request-Id, Retry-After';
export const CORS_ALLOWED_METHODS = 'GET, POST, OPTIONS';

export function jsonResponse(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  const response = new Response(JSON.stringify(body), { status, headers });
  response.headers.set('Content-Type', 'application/json; charset=utf-8');
  return response;
}

/** Largest slice of a string encoded at once when a body is streamed. */
const STREAM_SLICE_CHARS = 64 * 1024;

/** Slices of text that never split a surrogate pair, so each slice encodes (and JSON-escapes) as it would in place. */
export function* textSlices(text: string): Generator<string> {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + STREAM_SLICE_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    yield text.slice(at, end);
    at = end;
  }
}

/**
 * A body streamed from text pieces, encoded one slice at a time: a large
 * payload's text is never joined into one more string or encoded into one
 * full byte copy: at most one copy of a large payload is held in memory.
 */
export function streamedTextBody(pieces: Iterable<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = pieces[Symbol.iterator]();
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      for (;;) {
        const next = iterator.next();
        if (next.done) return controller.close();
        if (next.value === '') continue;
        return controller.enqueue(encoder.encode(next.value));
      }
    },
  });
}

/**
 * A contract payload as JSON from its one serialization: sent as that string when it fits one
 * slice (a JS stream costs the runtime more per request than the copy it saves), else streamed.
 */
export function payloadResponse(payload: unknown): Response {
  const text = JSON.stringify(payload);
  const response = new Response(text.length <= STREAM_SLICE_CHARS ? text : streamedTextBody(textSlices(text)), { status: 200 });
  response.headers.set('Content-Type', 'application/json; charset=utf-8');
  return response;
}

export function errorResponse(status: number, code: string, message: string, headers: HeadersInit = {}): Response {
  return jsonResponse({ error: message, code }, status, headers);
}

/**
 * RFC 6750 section 3 challenge for 401 and insufficient-scope 403 answers: the resource's
 * metadata (RFC 9728 section 5.1) and the scope a read needs (MCP authorization, scope selection).
 */
export function bearerChallenge(error: ReadError, resource: ProtectedResource): string | null {
  const params = `resource_metadata="${resource.metadataUrl}", scope="${READ_SCOPE}"`;
  if (error.kind === 'Unauthorized') return error.invalidToken ? `Bearer error="invalid_token", ${params}` : `Bearer ${params}`;
  if (error.kind === 'InsufficientScope') return `Bearer error="insufficient_scope", ${params}`;
  return null;
}

/**
 * Headers a typed failure carries on either surface: the Bearer challenge (when the route is a
 * protected resource), Retry-After for a refusal a retry can cure (a spent budget, an outage).
 */
export function errorHeaders(error: ReadError, resource: ProtectedResource | null): Record<string, string> {
  const headers: Record<string, string> = {};
  const challenge = resource ? bearerChallenge(error, resource) : null;
  if (challenge) headers['WWW-Authenticate'] = challenge;
  if (error.kind === 'RateLimited') headers['Retry-After'] = String(error.retryAfterSeconds);
  if (error.kind === 'AuthUnavailable') headers['Retry-After'] = String(AUTH_UNAVAILABLE_RETRY_AFTER_SECONDS);
  if (error.kind === 'HostedContextUnavailable') headers['Retry-After'] = String(HOSTED_CONTEXT_RETRY_AFTER_SECONDS);
  return headers;
}

/** REST error answer for a typed failure, with the headers errorHeaders gives it. */
export function restErrorResponse(
  error: ReadError,
  resource: ProtectedResource | null,
  misconfiguredMessage?: string,
): Response {
  const mapped = restError(error, misconfiguredMessage);
  return errorResponse(mapped.status, mapped.code, mapped.message, errorHeaders(error, resource));
}

const LOOPBACK_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?$/;

/**
 * Exact match against CORS_ORIGINS; with ENVIRONMENT=local, loopback
 * origins on any port too (MCP Inspector, local tools). Nothing else.
 */
export function isOriginAllowed(config: Config | null, origin: string): boolean {
  if (!config) return false;
  if (config.corsOrigins.includes(origin)) return true;
  return config.environment === 'local' && LOOPBACK_ORIGIN.test(origin);
}

/**
 * Adds the headers every response carries, and CORS headers when the request's origin is allowed.
 * A public document (its route set `Access-Control-Allow-Origin: *`, discovery.ts) keeps its own
 * CORS and Cache-Control headers; a 304 gets no Content-Type (RFC 9110 section 15.4.5).
 */
export function finalizeResponse(response: Response, request: Request, config: Config | null, requestId: string): Response {
  const out = new Response(response.body, response);
  const isPublic = out.headers.get('Access-Control-Allow-Origin') === '*';
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    if (!(isPublic && name === 'Cache-Control')) out.headers.set(name, value);
  }
  if (!out.headers.has('Content-Type') && out.status !== 304) out.headers.set('Content-Type', 'application/json; charset=utf-8');
  out.headers.set('X-Request-Id', requestId);
  out.headers.append('Vary', 'Origin');
  const origin = request.headers.get('Origin');
  if (!isPublic && origin && isOriginAllowed(config, origin)) {
    out.headers.set('Access-Control-Allow-Origin', origin);
    out.headers.set('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
  }
  return out;
}

/** Preflight: never needs a token; grants only allowed origins. */
export function preflightResponse(request: Request, config: Config | null): Response {
  const origin = request.headers.get('Origin');
  const headers: Record<string, string> = {};
  if (origin && isOriginAllowed(config, origin)) {
    headers['Access-Control-Allow-Methods'] = CORS_ALLOWED_METHODS;
    headers['Access-Control-Allow-Headers'] = CORS_ALLOWED_HEADERS;
    headers['Access-Control-Max-Age'] = '600';
  }
  return new Response(null, { status: 204, headers });
}
