/**
 * Fixed texts for every JSON-RPC error leaving /mcp. SDK-generated texts can
 * quote request input (a header, a method, a tool name, schema paths), so
 * none of them is passed on: an error gets the text of its code.
 *
 * Invariant: answers are rewritten without parsing a success. Errors a
 * handler raises are fixed on the message object before the transport
 * serializes it (ExchangeServer.outgoing); only an SDK refusal with an HTTP
 * error status, a small body the SDK built itself, is parsed and rebuilt.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, PER_REQUEST_REVISIONS, UNSUPPORTED_PROTOCOL_VERSION, unsupportedVersionData } from './mcp-era';
import { jsonResponse } from './responses';

export const UNKNOWN_TOOL_MESSAGE = 'Unknown tool';

/** JSON-RPC's own texts for its codes, and the 2026-07-28 revision's codes. */
const FIXED_RPC_MESSAGES: Record<number, string> = {
  [-32700]: 'Parse error',
  [-32600]: 'Invalid request',
  [-32601]: 'Method not found',
  [-32602]: 'Invalid params',
  [-32603]: 'Internal error',
  [HEADER_MISMATCH]: 'Request headers do not match the body',
  [MISSING_CLIENT_CAPABILITY]: 'Missing required client capability',
  [UNSUPPORTED_PROTOCOL_VERSION]: 'Unsupported protocol version',
};

/** Transport refusals use the implementation-defined code -32000; their text follows the HTTP status. */
const FIXED_TRANSPORT_MESSAGES: Record<number, string> = {
  400: 'Bad request',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable: accept both application/json and text/event-stream',
  413: 'Request body too large',
  415: 'Unsupported media type: send application/json',
};

export function fixedRpcMessage(code: unknown, httpStatus: number): string {
  if (typeof code === 'number' && Object.hasOwn(FIXED_RPC_MESSAGES, code)) return FIXED_RPC_MESSAGES[code];
  return FIXED_TRANSPORT_MESSAGES[httpStatus] ?? 'Server error';
}

function fixedError(code: unknown, httpStatus: number, override?: string, data?: unknown): { code: number; message: string; data?: unknown } {
  const fixedCode = typeof code === 'number' && Number.isSafeInteger(code) ? code : -32603;
  const message = override ?? fixedRpcMessage(fixedCode, httpStatus);
  // The unsupported-version error tells a client what it may use instead (the SDK raises it only for
  // per-request revisions); nothing else carries data.
  const requested = (data as { requested?: unknown } | null | undefined)?.requested;
  return fixedCode === UNSUPPORTED_PROTOCOL_VERSION
    ? { code: fixedCode, message, data: unsupportedVersionData(PER_REQUEST_REVISIONS, requested) }
    : { code: fixedCode, message };
}

/** An error answer with its text fixed and its SDK `data` dropped; the id of the dispatched request is kept. */
export function withFixedErrorMessage(message: JSONRPCMessage, override?: string): JSONRPCMessage {
  if (!('error' in message)) return message;
  return { ...message, error: fixedError(message.error.code, 200, override, message.error.data) } as JSONRPCMessage;
}

/**
 * SDK answers with an HTTP error status (refused before any handler ran)
 * are rebuilt from their code alone, with the request's id as the route
 * read it (answerIdOf: null when it could not be read or repeated). Other
 * answers pass untouched and unparsed.
 */
export async function fixedErrorsOnRefusal(response: Response, id: number | string | null): Promise<Response> {
  if (response.status < 400) return response;
  let code: unknown;
  let data: unknown;
  try {
    const error = ((await response.json()) as { error?: { code?: unknown; data?: unknown } } | null)?.error;
    code = error?.code;
    data = error?.data;
  } catch {
    code = undefined;
  }
  const headers = new Headers(response.headers);
  headers.delete('Content-Length');
  headers.delete('Content-Type');
  const error = fixedError(code ?? -32000, response.status, undefined, data);
  return jsonResponse({ jsonrpc: '2.0', error, id }, response.status, headers);
}
