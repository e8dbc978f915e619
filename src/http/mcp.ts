/**
 * Hosted MCP adapter: POST /mcp and POST /mcp/vaults/<id>, every protocol era,
 * through the official SDK v2. JSON answers, no session, a fresh server per
 * request.
 *
 * The Origin check (DNS-rebinding protection) comes first; then the one gate
 * (src/gate.ts): configuration, token for this resource, vault, then the
 * message (body size, JSON, batch refusal) as the gate's `ask` step, then the
 * per-user budget the message spends (read for tools/call, protocol
 * otherwise). Then decideEra (mcp-era.ts) picks the era by exact comparison
 * and enforces the 2026-07-28 standard headers, and serveExchange
 * (mcp-server.ts) hands the message to the SDK. Every JSON-RPC error leaving
 * the Worker carries a fixed text (mcp-messages.ts).
 */
import { restError, type ReadError } from '../errors';
import { gate, gateRefusalFacts, type Asking } from '../gate';
import type { ProtectedResource } from '../auth/resource';
import { clientToken, type Handled, type LogFacts } from '../log';
import type { RouteContext } from './context';
import { TooLarge, readBodyWithin } from '../bounded-read';
import { errorHeaders, isOriginAllowed, jsonResponse } from './responses';
import { answerIdOf, decideEra, describeClient, isPlainObject } from './mcp-era';
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
  'resources/list',
  'resources/templates/list',
  'resources/read',
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

/** A typed failure as a JSON-RPC error answer, with the challenge or Retry-After it calls for. */
function readErrorAnswer(error: ReadError, resource: ProtectedResource | null): Response {
  const mapped = restError(error);
  return rpcError(mapped.status, -32600, mapped.message, errorHeaders(error, resource));
}

/** A spent budget: 429 with Retry-After, and the same wait in the error's data for clients that read only the body. */
function rateLimitedAnswer(error: ReadError, resource: ProtectedResource, id: number | string | null): Response {
  const retryAfterSeconds = error.kind === 'RateLimited' ? error.retryAfterSeconds : 60;
  return rpcError(429, -32600, restError(error).message, errorHeaders(error, resource), { retryAfterSeconds }, id);
}

const refusal = (response: Response, outcome: string, facts: LogFacts = {}): Handled => ({ response, facts: { ...facts, outcome } });

type BodyRead = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'aborted' };

/** Reads at most MAX_MCP_BODY_BYTES. A stream that fails mid-way is the client going away. */
async function readBoundedBody(request: Request): Promise<BodyRead> {
  try {
    return { ok: true, text: new TextDecoder().decode(await readBodyWithin(request, MAX_MCP_BODY_BYTES)) };
  } catch (error) {
    return { ok: false, reason: error instanceof TooLarge ? 'too_large' : 'aborted' };
  }
}

function methodForLog(message: unknown): string {
  const method = (message as { method?: unknown } | null)?.method;
  return typeof method === 'string' && KNOWN_METHODS.has(method) ? method : 'other';
}

/** One JSON-RPC message, read and parsed: what an MCP request asks. */
interface McpMessage {
  message: unknown;
  /** The id an answer carries (answerIdOf). */
  id: number | string | null;
  /** The method, the revision and the client, for the log line. */
  facts: LogFacts;
}

/** The gate's `ask` step for MCP: one bounded JSON-RPC message (never a batch), and the budget it spends. */
async function readMessage(request: Request): Promise<Asking<McpMessage, Handled>> {
  const body = await readBoundedBody(request);
  if (!body.ok && body.reason === 'aborted') {
    return { ok: false, refusal: refusal(rpcError(400, -32600, 'Request body could not be read'), 'CLIENT_ABORTED') };
  }
  if (!body.ok) return { ok: false, refusal: refusal(rpcError(413, -32600, 'Request body too large'), 'PAYLOAD_TOO_LARGE') };
  let message: unknown;
  try {
    message = JSON.parse(body.text);
  } catch {
    return { ok: false, refusal: refusal(rpcError(400, -32700, 'Parse error'), 'PARSE_ERROR') };
  }
  // One POST is one JSON-RPC message, so one request can never mean more than one canister read.
  if (Array.isArray(message)) {
    return { ok: false, refusal: refusal(rpcError(400, -32600, 'Batch requests are not supported'), 'BATCH_REFUSED', { op: 'batch' }) };
  }
  // Which client broke, for operators: the revision and the client's name and version, as short safe tokens.
  const client = describeClient(request.headers, message);
  const asked: McpMessage = {
    message,
    id: answerIdOf(message),
    facts: { op: methodForLog(message), mcp: client.revision, client: clientToken(client.name), client_version: clientToken(client.version) },
  };
  // A tools/call can read a note and spends the read budget; anything else the protocol budget.
  const budget = isPlainObject(message) && message.method === 'tools/call' ? 'read' : 'protocol';
  return { ok: true, asked, budget };
}

/**
 * POST /mcp, and POST /mcp/vaults/<id> (context.endpointVault): each its own protected resource,
 * with the same policy.
 */
export async function mcpRoute({ request, url, config, endpointVault = null }: RouteContext): Promise<Handled> {
  const origin = request.headers.get('Origin');
  // DNS-rebinding protection (streamable-http, Security Warning): an Origin outside CORS_ORIGINS is
  // refused, except the endpoint's own PUBLIC_ORIGIN, which a rebinding page can never carry.
  if (config && origin !== null && origin !== config.publicOrigin && !isOriginAllowed(config, origin)) {
    return refusal(rpcError(403, -32600, 'Forbidden origin'), 'FORBIDDEN_ORIGIN');
  }
  const outcome = await gate<McpMessage, Handled>({
    request,
    url,
    config,
    resourcePath: endpointVault === null ? '/mcp' : `/mcp/vaults/${endpointVault}`,
    endpointVault,
    authorization: request.headers.get('Authorization'),
    ask: () => readMessage(request),
  });
  if (!outcome.admitted) {
    const { refusal: refused } = outcome;
    if (refused.step === 'ask') return refused.refusal;
    if (refused.step === 'budget') {
      const answer = rateLimitedAnswer(refused.error, refused.resource, refused.asked.id);
      return { response: answer, facts: { ...refused.asked.facts, ...gateRefusalFacts(refused) } };
    }
    return { response: readErrorAnswer(refused.error, refused.resource), facts: gateRefusalFacts(refused) };
  }
  const admitted = outcome.request;
  const { message, id, facts } = admitted.asked;

  // The protocol: era by exact comparison, then the SDK for that era.
  const era = decideEra(request.headers, message);
  if (era.era === 'refused') {
    const { status, code, message: text, data, outcome: eraOutcome } = era.refusal;
    return refusal(rpcError(status, code, text, {}, data, id), eraOutcome, facts);
  }
  const exchange: Exchange = { admitted, request, rawMessage: message, unknownTool: false, rpcError: false };
  // The SDK is loaded on the first message that reaches it, so an isolate that serves only REST never pays for it.
  const { serveExchange } = await import('./mcp-server');
  const response = await fixedErrorsOnRefusal(await serveExchange(exchange, era.era), id);
  return { response, facts: { ...facts, ...exchange.toolFacts, outcome: exchangeOutcome(exchange, response.status) } };
}

/**
 * The log outcome of a served exchange: the tool's own (or UNKNOWN_TOOL); a JSON-RPC error over
 * an otherwise good exchange is RPC_ERROR; an HTTP error status the SDK chose is HTTP_<status>.
 */
function exchangeOutcome(exchange: Exchange, status: number): string {
  const own = exchange.toolFacts?.outcome ?? 'ok';
  const rpc = exchange.rpcError && own === 'ok' ? 'RPC_ERROR' : own;
  return status >= 400 && (rpc === 'ok' || rpc === 'RPC_ERROR') ? `HTTP_${status}` : rpc;
}

/** An MCP URL that names no endpoint (a vault segment that is not a vault id), in the SDK transport's shape. */
export function mcpNotFound(): Response {
  return rpcError(404, -32000, 'Not found');
}

export function mcpMethodNotAllowed(): Response {
  return rpcError(405, -32000, 'Method not allowed', { Allow: 'POST, OPTIONS' });
}
