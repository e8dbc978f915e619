/**
 * Which MCP protocol era one JSON-RPC message belongs to, decided by exact
 * string comparison before any SDK code sees the message.
 *
 * Invariant: a message reaches the SDK only when it is a JSON-RPC 2.0
 * request, notification or response, every revision it names
 * (the MCP-Protocol-Version header, the `_meta` claim) is one this endpoint
 * serves, spelled exactly; and a 2026-07-28 request only when its standard
 * headers agree with its body. The SDK orders revision strings
 * alphabetically, so without this gate a garbage or future header can be
 * taken for a 2026 request. Every refusal here has a fixed text and quotes
 * nothing of the request but a token-shaped requested revision, which the
 * unsupported-version error must repeat (unsupportedVersionData).
 */
import { withoutOptionalWhitespace } from '../unsafe-text';

/** The one sessionless revision this endpoint serves (server/discover, per-request `_meta`). */
export const MODERN_REVISION = '2026-07-28';
/**
 * Revisions served through `initialize`: the SDK's own list (SUPPORTED_PROTOCOL_VERSIONS), and the
 * SDK's `_meta` key names below, spelled here so that deciding the era never loads the SDK (it is
 * loaded on first use, mcp.ts); test/src/mcp-sdk-names.test.ts keeps them equal to the SDK's.
 */
export const LEGACY_REVISIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';
export const SERVED_REVISIONS: readonly string[] = [MODERN_REVISION, ...LEGACY_REVISIONS];
/**
 * The revisions a request carrying the per-request `_meta` claim may name: what `server/discover`
 * lists as `supportedVersions` (the SDK's modern revisions), and so what an unsupported-version
 * error on such a request offers (2026-07-28 basic/versioning: the client retries from that list).
 */
export const PER_REQUEST_REVISIONS: readonly string[] = [MODERN_REVISION];

/** JSON-RPC codes of the 2026-07-28 revision. */
export const HEADER_MISMATCH = -32020;
export const MISSING_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** Longest string id a request may carry; ids are returned on answers, so they stay short. */
export const MAX_STRING_ID_LENGTH = 128;

/**
 * A requested revision an unsupported-version error may repeat as `data.requested` (the schema
 * requires it): a short token of letters, digits, `.`, `_` and `-`, which can carry no markup, space
 * or text. Anything else is not repeated, and `requested` is left out.
 */
const ECHOABLE_REVISION = /^[A-Za-z0-9._-]{1,32}$/;

/** The `data` of an UnsupportedProtocolVersionError: the revisions on offer, and the requested one when it may be repeated. */
export function unsupportedVersionData(supported: readonly string[], requested: unknown): { supported: string[]; requested?: string } {
  return typeof requested === 'string' && ECHOABLE_REVISION.test(requested) ? { supported: [...supported], requested } : { supported: [...supported] };
}

export interface EraRefusal {
  status: number;
  code: number;
  message: string;
  /** Stable log outcome. */
  outcome: string;
  data?: unknown;
}

export type EraDecision = { era: 'legacy' } | { era: 'modern' } | { era: 'refused'; refusal: EraRefusal };

const refuse = (status: number, code: number, message: string, outcome: string, data?: unknown): EraDecision => ({
  era: 'refused',
  refusal: { status, code, message, outcome, ...(data === undefined ? {} : { data }) },
});

const headerFault = (message: string): EraDecision => refuse(400, HEADER_MISMATCH, message, 'HEADER_MISMATCH');

export const UNSUPPORTED_VERSION_MESSAGE = 'Unsupported protocol version';
export const HEADER_MESSAGES = {
  versionMissing: 'Missing MCP-Protocol-Version header',
  versionMismatch: 'MCP-Protocol-Version header does not match the request',
  methodMissing: 'Missing Mcp-Method header',
  methodMismatch: 'Mcp-Method header does not match the request',
  nameMissing: 'Missing Mcp-Name header',
  nameMismatch: 'Mcp-Name header does not match the request',
  methodInvalid: 'Invalid Mcp-Method header',
  nameInvalid: 'Invalid Mcp-Name header',
} as const;
export const ENVELOPE_MISSING_MESSAGE = 'Missing protocol version in _meta';
export const INVALID_ID_MESSAGE = 'Invalid request';
export const INVALID_PARAMS_MESSAGE = 'Invalid params';

/** Methods a 2026-07-28 request may name that the SDK must not serve here (a long-lived stream). */
const REFUSED_MODERN_METHODS = new Set(['subscriptions/listen']);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A header's value without the optional whitespace around it, or null when it is absent. */
function headerValue(headers: Headers, name: string): string | null {
  const value = headers.get(name);
  return value === null ? null : withoutOptionalWhitespace(value);
}

const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
/** Printable ASCII (0x20-0x7E): what a plain standard-header value may carry; anything else travels Base64-encoded. */
const PLAIN_HEADER_VALUE = /^[\x20-\x7E]*$/;

/**
 * Mcp-Name carries either the name itself, in printable ASCII, or `=?base64?<utf-8 bytes>?=`
 * (the 2026-07-28 header value encoding); null when the value is outside that grammar or the
 * encoding is broken.
 */
export function decodeMcpName(value: string): string | null {
  if (!PLAIN_HEADER_VALUE.test(value)) return null;
  const match = BASE64_SENTINEL.exec(value);
  if (!match) return value.startsWith('=?base64?') ? null : value;
  try {
    const bytes = Uint8Array.from(atob(match[1]), (char) => char.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

function isAcceptableId(id: unknown): id is number | string {
  if (typeof id === 'number') return Number.isSafeInteger(id);
  return typeof id === 'string' && id.length <= MAX_STRING_ID_LENGTH;
}

function hasAcceptableId(message: Record<string, unknown>): boolean {
  return !('id' in message) || isAcceptableId(message.id);
}

/**
 * The id an error answer carries (JSON-RPC 2.0 section 5): the request's own when it could be
 * read and is one answers may repeat (a safe integer or a short string), else null.
 */
export function answerIdOf(message: unknown): number | string | null {
  if (!isPlainObject(message) || !Object.hasOwn(message, 'id')) return null;
  return isAcceptableId(message.id) ? message.id : null;
}

/**
 * JSON-RPC 2.0 sections 4-5: a request or notification (`method` a string, `params` if present a
 * structured value) or a response (exactly one of `result`, `error`; a result needs its `id`, an
 * error may lack one, as in the MCP schema), with `"jsonrpc": "2.0"`. Anything else is an invalid
 * request whatever revision it names.
 */
function envelopeRefusal(message: unknown): EraDecision | null {
  if (!isPlainObject(message) || message.jsonrpc !== '2.0') return refuse(400, -32600, INVALID_ID_MESSAGE, 'INVALID_REQUEST');
  if (!Object.hasOwn(message, 'method')) {
    const isResponse = Object.hasOwn(message, 'error')
      ? !Object.hasOwn(message, 'result')
      : Object.hasOwn(message, 'result') && Object.hasOwn(message, 'id');
    return isResponse ? null : refuse(400, -32600, INVALID_ID_MESSAGE, 'INVALID_REQUEST');
  }
  if (typeof message.method !== 'string') return refuse(400, -32600, INVALID_ID_MESSAGE, 'INVALID_REQUEST');
  if (!Object.hasOwn(message, 'params') || isPlainObject(message.params)) return null;
  // Positional params are a JSON-RPC request that no MCP method accepts; any other value is not a request.
  return Array.isArray(message.params)
    ? refuse(400, -32602, INVALID_PARAMS_MESSAGE, 'INVALID_PARAMS')
    : refuse(400, -32600, INVALID_ID_MESSAGE, 'INVALID_REQUEST');
}

/**
 * Decides the era of one parsed JSON-RPC message (never an array: batches are
 * refused before this). What is not a JSON-RPC 2.0 message is refused here
 * (envelopeRefusal); responses pass as legacy, and the SDK answers them.
 */
export function decideEra(headers: Headers, message: unknown): EraDecision {
  const envelope = envelopeRefusal(message);
  if (envelope) return envelope;
  if (!isPlainObject(message) || typeof message.method !== 'string') return { era: 'legacy' };
  const method = message.method;
  if (!hasAcceptableId(message)) return refuse(400, -32600, INVALID_ID_MESSAGE, 'INVALID_REQUEST');

  const version = headerValue(headers, 'MCP-Protocol-Version');
  const params = isPlainObject(message.params) ? message.params : undefined;
  const meta = params && isPlainObject(params._meta) ? params._meta : undefined;
  const isRequest = 'id' in message;

  if (!meta || !Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY)) {
    // No per-request claim: the header alone names the revision, any served one (2025 era or 2026).
    if (version !== null && !SERVED_REVISIONS.includes(version)) {
      return refuse(400, UNSUPPORTED_PROTOCOL_VERSION, UNSUPPORTED_VERSION_MESSAGE, 'UNSUPPORTED_PROTOCOL_VERSION', unsupportedVersionData(SERVED_REVISIONS, version));
    }
    // A 2026 header on a request without the per-request claim: the body is not a 2026 request.
    if (version === MODERN_REVISION && isRequest) return refuse(400, -32602, ENVELOPE_MISSING_MESSAGE, 'INVALID_PARAMS');
    return { era: version === MODERN_REVISION ? 'modern' : 'legacy' };
  }

  const claim = meta[PROTOCOL_VERSION_META_KEY];
  // 2026-07-28 streamable-http, Protocol Version Header: a header that differs from the body's
  // claim is a HeaderMismatch, whichever of the two names a revision this endpoint serves.
  if (version !== null && version !== claim) return headerFault(HEADER_MESSAGES.versionMismatch);
  if (claim !== MODERN_REVISION) {
    return refuse(400, UNSUPPORTED_PROTOCOL_VERSION, UNSUPPORTED_VERSION_MESSAGE, 'UNSUPPORTED_PROTOCOL_VERSION', unsupportedVersionData(PER_REQUEST_REVISIONS, claim));
  }
  if (version === null) return headerFault(HEADER_MESSAGES.versionMissing);

  const methodHeader = headerValue(headers, 'Mcp-Method');
  if (methodHeader === null) return headerFault(HEADER_MESSAGES.methodMissing);
  if (!PLAIN_HEADER_VALUE.test(methodHeader)) return headerFault(HEADER_MESSAGES.methodInvalid);
  if (methodHeader !== method) return headerFault(HEADER_MESSAGES.methodMismatch);

  if (method === 'tools/call' && typeof params?.name === 'string') {
    const nameHeader = headerValue(headers, 'Mcp-Name');
    if (nameHeader === null) return headerFault(HEADER_MESSAGES.nameMissing);
    const name = decodeMcpName(nameHeader);
    if (name === null) return headerFault(HEADER_MESSAGES.nameInvalid);
    if (name !== params.name) return headerFault(HEADER_MESSAGES.nameMismatch);
  }

  if (isRequest && REFUSED_MODERN_METHODS.has(method)) return refuse(404, -32601, 'Method not found', 'RPC_ERROR');
  return { era: 'modern' };
}

export interface ClientDescription {
  /** The served revision the request names: its `_meta` or header revision, or for `initialize` the one the answer gives. */
  revision: string | null;
  name: unknown;
  version: unknown;
}

/**
 * Which revision and which client a parsed message speaks for, for the log line only: the
 * 2026-07-28 `_meta` clientInfo, or the 2025 `initialize` clientInfo. Values are returned raw;
 * the log reduces them (clientToken).
 */
export function describeClient(headers: Headers, message: unknown): ClientDescription {
  const params = isPlainObject(message) && isPlainObject(message.params) ? message.params : undefined;
  const meta = params && isPlainObject(params._meta) ? params._meta : undefined;
  const header = headerValue(headers, 'MCP-Protocol-Version');
  let revision: string | null = null;
  if (meta && meta[PROTOCOL_VERSION_META_KEY] === MODERN_REVISION) revision = MODERN_REVISION;
  else if (header !== null && SERVED_REVISIONS.includes(header)) revision = header;
  else if (isPlainObject(message) && message.method === 'initialize' && typeof params?.protocolVersion === 'string') {
    // The SDK answers `initialize` with the requested revision when it serves it, else its newest.
    revision = LEGACY_REVISIONS.includes(params.protocolVersion) ? params.protocolVersion : LEGACY_REVISIONS[0];
  }
  const info = meta && isPlainObject(meta[CLIENT_INFO_META_KEY]) ? meta[CLIENT_INFO_META_KEY] : params?.clientInfo;
  return isPlainObject(info) ? { revision, name: info.name, version: info.version } : { revision, name: undefined, version: undefined };
}
