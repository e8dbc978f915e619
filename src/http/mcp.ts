/**
 * Hosted MCP adapter: POST /mcp and POST /mcp/vaults/<id>, every protocol era,
 * through the official SDK v2. JSON answers, no session, a fresh server per
 * request.
 *
 * Everything that can refuse a message is a step of the one gate (src/gate.ts):
 * the Origin (screen), the token for this resource, the vault, then the message
 * itself (ask: body size, JSON, batch refusal, the JSON-RPC envelope, the era and
 * its 2026-07-28 headers, tools/call params, and the tool call's plan), the
 * hosted context, the vault's admission and the budget the message spends (read
 * for a tools/call that reads, protocol otherwise). serveExchange
 * (mcp-server.ts) then hands the message to the SDK for its era. Every JSON-RPC
 * error leaving the Worker carries a fixed text (mcp-messages.ts).
 */
import type { Config } from '../config';
import { contractForTool } from '../contracts/registry';
import { restError, type ReadError } from '../errors';
import { gate, gateRefusalFacts, type AdmittedRequest, type Asking, type GateRefusal } from '../gate';
import type { ProtectedResource } from '../auth/resource';
import { clientToken, type Handled, type LogFacts } from '../log';
import { askNote } from '../read-note';
import type { RouteContext } from './context';
import { TooLarge, readBodyWithin } from '../bounded-read';
import { errorHeaders, isOriginAllowed, jsonResponse } from './responses';
import { INVALID_PARAMS_MESSAGE, answerIdOf, decideEra, describeClient, isPlainObject } from './mcp-era';
import { fixedErrorsOnRefusal } from './mcp-messages';
import type { Exchange, McpMessage, ToolCallPlan } from './mcp-exchange';

export const MAX_MCP_BODY_BYTES = 1024 * 1024;

/** The JSON-RPC methods a log line names as its op (OPERATIONS.md, Log line); any other is OTHER_METHOD_OP. */
export const KNOWN_METHODS: ReadonlySet<string> = new Set([
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

/**
 * A typed failure as a JSON-RPC error answer, with the challenge or Retry-After it calls for, and
 * the request's id once the message was read; a spent budget also says when to retry in the
 * error's data, for clients that read only the body.
 */
function readErrorAnswer(error: ReadError, resource: ProtectedResource | null, id: number | string | null = null): Response {
  const mapped = restError(error);
  const data = error.kind === 'RateLimited' ? { retryAfterSeconds: error.retryAfterSeconds } : undefined;
  return rpcError(mapped.status, -32600, mapped.message, errorHeaders(error, resource), data, id);
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

export const OTHER_METHOD_OP = 'other';

function methodForLog(message: unknown): string {
  const method = (message as { method?: unknown } | null)?.method;
  return typeof method === 'string' && KNOWN_METHODS.has(method) ? method : OTHER_METHOD_OP;
}

/** The tool arguments exactly as sent: own keys of the parsed JSON, `__proto__` and `constructor` included. */
function rawToolArguments(params: Record<string, unknown>): unknown {
  return Object.hasOwn(params, 'arguments') ? params.arguments : {};
}

/** The plan of a tools/call whose params have a string `name`: the tool, then its one `path` argument. */
function toolCallPlan(params: Record<string, unknown> & { name: string }): ToolCallPlan {
  const contract = contractForTool(params.name);
  if (!contract) return { kind: 'unknown_tool' };
  // Own keys of the raw JSON: the SDK's parsed copy can lose a `__proto__` key.
  const args = rawToolArguments(params);
  if (args === null || typeof args !== 'object' || Array.isArray(args) || Object.keys(args).some((key) => key !== 'path')) {
    return { kind: 'tool_error', error: { kind: 'InvalidArguments' } };
  }
  const note = askNote(contract, (args as { path?: unknown }).path);
  return note.ok ? { kind: 'read', note: note.value } : { kind: 'tool_error', error: note.error };
}

/**
 * The gate's `ask` step for MCP: one bounded JSON-RPC message (never a batch), a JSON-RPC 2.0
 * envelope in a revision this endpoint serves with its headers (decideEra), and for tools/call
 * params with a string `name`; every refusal here is the message's own 4xx, whatever the budget.
 * Only a tools/call that will read spends the read budget; every other message the protocol budget.
 */
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
  const facts: LogFacts = { op: methodForLog(message), mcp: client.revision, client: clientToken(client.name), client_version: clientToken(client.version) };
  const id = answerIdOf(message);
  const era = decideEra(request.headers, message);
  if (era.era === 'refused') {
    const { status, code, message: text, data, outcome } = era.refusal;
    return { ok: false, refusal: refusal(rpcError(status, code, text, {}, data, id), outcome, facts) };
  }
  let call: ToolCallPlan | null = null;
  if (isPlainObject(message) && message.method === 'tools/call' && Object.hasOwn(message, 'id')) {
    const params = message.params;
    // MCP schema, CallToolRequest: params is an object with a string `name`.
    if (!isPlainObject(params) || typeof params.name !== 'string') {
      return { ok: false, refusal: refusal(rpcError(400, -32602, INVALID_PARAMS_MESSAGE, {}, undefined, id), 'INVALID_PARAMS', facts) };
    }
    call = toolCallPlan(params as Record<string, unknown> & { name: string });
  }
  return { ok: true, asked: { message, id, era: era.era, call, facts }, budget: call?.kind === 'read' ? 'read' : 'protocol' };
}

/** DNS-rebinding protection (streamable-http, Security Warning), the gate's screen step. */
function originRefusal(request: Request, config: Config): Handled | null {
  const origin = request.headers.get('Origin');
  // An Origin outside CORS_ORIGINS is refused, except the endpoint's own PUBLIC_ORIGIN, which a rebinding page can never carry.
  if (origin === null || origin === config.publicOrigin || isOriginAllowed(config, origin)) return null;
  return refusal(rpcError(403, -32600, 'Forbidden origin'), 'FORBIDDEN_ORIGIN');
}

/**
 * POST /mcp, and POST /mcp/vaults/<id> (context.endpointVault): each its own protected resource,
 * with the same policy. The gate decides everything (src/gate.ts); the SDK answers what it admits.
 */
export async function mcpRoute({ request, url, config, endpointVault = null }: RouteContext): Promise<Handled> {
  const resourcePath = endpointVault === null ? '/mcp' : (`/mcp/vaults/${endpointVault}` as const);
  const outcome = await gate<McpMessage, Handled>({
    request,
    url,
    config,
    resourcePath,
    endpointVault,
    vaultHeader: true,
    authorization: request.headers.get('Authorization'),
    screen: (configured) => originRefusal(request, configured),
    ask: () => readMessage(request),
  });
  if (!outcome.admitted) return refusedAnswer(outcome.refusal, request, config);
  const admitted = outcome.request;
  const { message, id, era, facts } = admitted.asked;
  // A tool outside the role's contracts is indistinguishable from one that does not exist.
  const call = admitted.asked.call;
  const plan = call?.kind === 'read' && !admitted.contracts.includes(call.note.contract) ? { kind: 'unknown_tool' as const } : call;
  const exchange: Exchange = { setting: settingOf(admitted), admitted, plan, request, rawMessage: message, rpcError: false };
  return served(exchange, era, id, { ...facts, context: outcome.context });
}

/** What the SDK's server needs to know of where it answers. */
function settingOf({ config, resource, contracts }: Pick<AdmittedRequest, 'config' | 'resource' | 'contracts'>): Exchange['setting'] {
  return { config, resource, contracts };
}

/** An exchange through the SDK: its answer, with fixed error texts, and its log facts. */
async function served(exchange: Exchange, era: 'legacy' | 'modern', id: number | string | null, facts: LogFacts): Promise<Handled> {
  // The SDK is loaded on the first message that reaches it, so an isolate that serves only REST never pays for it.
  const { serveExchange } = await import('./mcp-server');
  const response = await fixedErrorsOnRefusal(await serveExchange(exchange, era), id);
  return { response, facts: { ...facts, ...exchange.toolFacts, outcome: exchangeOutcome(exchange, response.status) } };
}

/**
 * A gate refusal as MCP answers it: the surface's own refusals as they are; a Hub refusal of a
 * tools/call as the tool error naming it (through the SDK, reading nothing); anything else as a
 * JSON-RPC error with the status and headers REST gives it, and the request's id once it was read.
 */
async function refusedAnswer(refused: GateRefusal<McpMessage, Handled>, request: Request, config: Config | null): Promise<Handled> {
  if (refused.step === 'ask' || refused.step === 'screen') return refused.refusal;
  if (refused.step === 'context' && refused.error.kind === 'HostedAccessRefused' && refused.asked.call !== null && config) {
    const { asked } = refused;
    const exchange: Exchange = {
      setting: { config, resource: refused.resource, contracts: [] },
      admitted: null,
      plan: { kind: 'tool_error', error: refused.error },
      request,
      rawMessage: asked.message,
      rpcError: false,
    };
    return served(exchange, asked.era, asked.id, { ...asked.facts, ...gateRefusalFacts(refused) });
  }
  if ('asked' in refused) {
    // The message was read: its answer carries its id (JSON-RPC 2.0 section 5).
    const { asked } = refused;
    return { response: readErrorAnswer(refused.error, refused.resource, asked.id), facts: { ...asked.facts, ...gateRefusalFacts(refused) } };
  }
  return { response: readErrorAnswer(refused.error, refused.resource), facts: gateRefusalFacts(refused) };
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
