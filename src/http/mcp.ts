/**
 * Hosted MCP adapter: POST /mcp and POST /mcp/vaults/<id>, every protocol era,
 * through the official SDK v2. JSON answers, no session, a fresh server per
 * request.
 *
 * HTTP-level policy runs first, as one linear sequence of checks in mcpRoute:
 * configuration, Origin (DNS-rebinding protection), token for this resource,
 * vault, body size, JSON, batch refusal, then the per-user budget the message
 * spends (read for tools/call, protocol otherwise). Then decideEra
 * (mcp-era.ts) picks the era by exact comparison and enforces the 2026-07-28
 * standard headers, and serveExchange (mcp-server.ts) hands the message to the
 * SDK. Every JSON-RPC error leaving the Worker carries a fixed text
 * (mcp-messages.ts).
 */
import { authenticate } from '../auth/jwt';
import { protectedResource, type ProtectedResource } from '../auth/resource';
import { outcomeCode, restError, type ReadError } from '../errors';
import { clientToken, type RequestLog } from '../log';
import { resolveVault } from '../vault/path';
import type { RouteContext } from './context';
import { TooLarge, declaresMoreThan, readBoundedBytes } from '../bounded-read';
import { errorHeaders, isOriginAllowed, jsonResponse } from './responses';
import { takeRateLimit } from '../rate-limit';
import { answerIdOf, decideEra, describeClient, isPlainObject, type EraRefusal } from './mcp-era';
import { fixedErrorsOnRefusal } from './mcp-messages';
import type { Exchange } from './mcp-server';

export const MAX_MCP_BODY_BYTES = 1024 * 1024;

const KNOWN_METHODS = new Set([
  'initialize',
  'notifications/initialized',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
]);

/** A JSON-RPC error answer; `id` is the request's (answerIdOf) once the body was read, else null. */
function rpcError(
  status: number,
  code: number,
  message: string,
  headers: HeadersInit = {},
  data?: unknown,
  id: number | string | null = null,
): Response {
  const error = data === undefined ? { code, message } : { code, message, data };
  return jsonResponse({ jsonrpc: '2.0', error, id }, status, headers);
}

function refuse(error: ReadError, resource: ProtectedResource | null, log: RequestLog): Response {
  log.outcome = outcomeCode(error);
  const mapped = restError(error);
  return rpcError(mapped.status, -32600, mapped.message, errorHeaders(error, resource));
}

/** A spent budget: 429 with Retry-After, and the same wait in the error's data for clients that read only the body. */
function refuseRateLimited(error: ReadError, resource: ProtectedResource, id: number | string | null, log: RequestLog): Response {
  log.outcome = outcomeCode(error);
  const retryAfterSeconds = error.kind === 'RateLimited' ? error.retryAfterSeconds : 60;
  return rpcError(429, -32600, restError(error).message, errorHeaders(error, resource), { retryAfterSeconds }, id);
}

function refuseEra(refusal: EraRefusal, id: number | string | null, log: RequestLog): Response {
  log.outcome = refusal.outcome;
  return rpcError(refusal.status, refusal.code, refusal.message, {}, refusal.data, id);
}

type BodyRead = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'aborted' };

/** Reads at most MAX_MCP_BODY_BYTES. A stream that fails mid-way is the client going away. */
async function readBoundedBody(request: Request): Promise<BodyRead> {
  if (declaresMoreThan(request.headers, MAX_MCP_BODY_BYTES)) return { ok: false, reason: 'too_large' };
  try {
    return { ok: true, text: new TextDecoder().decode(await readBoundedBytes(request.body, MAX_MCP_BODY_BYTES)) };
  } catch (error) {
    return { ok: false, reason: error instanceof TooLarge ? 'too_large' : 'aborted' };
  }
}

function methodForLog(message: unknown): string {
  const method = (message as { method?: unknown } | null)?.method;
  return typeof method === 'string' && KNOWN_METHODS.has(method) ? method : 'other';
}

/**
 * POST /mcp, and POST /mcp/vaults/<id> (context.endpointVault): each its own protected resource,
 * with the same policy.
 */
export async function mcpRoute({ request, config, log, endpointVault = null }: RouteContext): Promise<Response> {
  // HTTP-level checks, in order; each either refuses or lets the request on.
  if (!config) return refuse({ kind: 'Misconfigured' }, null, log);
  const resource = protectedResource(request, config, endpointVault === null ? '/mcp' : `/mcp/vaults/${endpointVault}`);
  const origin = request.headers.get('Origin');
  if (origin !== null && !isOriginAllowed(config, origin)) {
    log.outcome = 'FORBIDDEN_ORIGIN';
    return rpcError(403, -32600, 'Forbidden origin');
  }
  const principal = await authenticate(request, config, resource, Math.floor(Date.now() / 1000), log);
  if (!principal.ok) return refuse(principal.error, resource, log);
  const vault = resolveVault(principal.value, { header: request.headers.get('X-Vault-Id'), endpoint: endpointVault });
  if (!vault.ok) return refuse(vault.error, resource, log);

  const body = await readBoundedBody(request);
  if (!body.ok && body.reason === 'aborted') {
    log.outcome = 'CLIENT_ABORTED';
    return rpcError(400, -32600, 'Request body could not be read');
  }
  if (!body.ok) {
    log.outcome = 'PAYLOAD_TOO_LARGE';
    return rpcError(413, -32600, 'Request body too large');
  }
  let message: unknown;
  try {
    message = JSON.parse(body.text);
  } catch {
    log.outcome = 'PARSE_ERROR';
    return rpcError(400, -32700, 'Parse error');
  }
  // One POST is one JSON-RPC message, so one request can never mean more than one canister read.
  if (Array.isArray(message)) {
    log.op = 'batch';
    log.outcome = 'BATCH_REFUSED';
    return rpcError(400, -32600, 'Batch requests are not supported');
  }
  log.op = methodForLog(message);
  const id = answerIdOf(message);
  // Per user, before any canister read: a tools/call spends the read budget, anything else the protocol budget.
  const budget = isPlainObject(message) && message.method === 'tools/call' ? 'read' : 'protocol';
  // Which client broke, for operators: the revision and the client's name and version, as short safe tokens.
  const client = describeClient(request.headers, message);
  log.mcp = client.revision;
  log.client = clientToken(client.name);
  log.client_version = clientToken(client.version);
  const limited = await takeRateLimit(config, principal.value, budget);
  if (!limited.ok) return refuseRateLimited(limited.error, resource, id, log);

  // The protocol: era by exact comparison, then the SDK for that era.
  const era = decideEra(request.headers, message);
  if (era.era === 'refused') return refuseEra(era.refusal, id, log);
  const exchange: Exchange = {
    config,
    principal: principal.value,
    vaultId: vault.value,
    request,
    log,
    rawMessage: message,
    unknownTool: false,
  };
  // The SDK is loaded on the first message that reaches it, so an isolate that serves only REST never pays for it.
  const { serveExchange } = await import('./mcp-server');
  return fixedErrorsOnRefusal(await serveExchange(exchange, era.era), id, log);
}

/** An MCP URL that names no endpoint (a vault segment that is not a vault id), in the SDK transport's shape. */
export function mcpNotFound(): Response {
  return rpcError(404, -32000, 'Not found');
}

export function mcpMethodNotAllowed(): Response {
  return rpcError(405, -32000, 'Method not allowed', { Allow: 'POST, OPTIONS' });
}
