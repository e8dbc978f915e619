/**
 * One structured line per request, built only from allowlisted fields whose
 * values are ids, enums and numbers: never a path, heading text, body,
 * token, secret or upstream text. Bounded to MAX_LOG_LINE_BYTES.
 *
 * Handlers do not write the line: each returns what it found out (LogFacts)
 * with its response (Handled), and the Worker entry writes the line once, from
 * those facts (writeLogLine).
 */
export const MAX_LOG_LINE_BYTES = 512;

export type Surface = 'rest' | 'mcp' | 'meta';
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'none';

export interface RequestLog {
  rid: string;
  surface: Surface;
  /** Route name or MCP tool/method name from a fixed vocabulary. */
  op: string;
  /** 'ok' or a stable error code. */
  outcome: string;
  upstream: StatusClass;
  ms: number;
  sections: number | null;
  truncated: boolean | null;
  /**
   * Why a token or its hosted context was refused (TOKEN_REFUSALS in src/auth/jwt.ts,
   * HOSTED_CONTEXT_REFUSALS in src/auth/hosted-context.ts); null when neither was refused.
   */
  reason: string | null;
  /** Where the principal's hosted context came from (ContextFact in src/gate.ts); null before a token was accepted. */
  context: string | null;
  /** Names of the configuration variables that failed (fixed vocabulary, never values); null when the configuration is valid. */
  config: string[] | null;
  /** The MCP revision served (a value of SERVED_REVISIONS); null off /mcp or when the request names none. */
  mcp: string | null;
  /** The MCP client's name and version from its clientInfo, each reduced to a client token (clientToken); null when absent. */
  client: string | null;
  client_version: string | null;
}

export const LOG_FIELDS = [
  'rid',
  'surface',
  'op',
  'outcome',
  'upstream',
  'ms',
  'sections',
  'truncated',
  'reason',
  'context',
  'config',
  'mcp',
  'client',
  'client_version',
] as const;

/** Longest client name or version logged. */
const MAX_CLIENT_TOKEN_CHARS = 32;

/**
 * A client-supplied name or version as a short token of a fixed character set: other characters
 * become `_`, the rest is cut at MAX_CLIENT_TOKEN_CHARS; null when nothing usable is left.
 */
export function clientToken(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const token = value.slice(0, MAX_CLIENT_TOKEN_CHARS).replace(/[^A-Za-z0-9_.:/-]/g, '_');
  return /[A-Za-z0-9]/.test(token) ? token : null;
}

export function statusClass(status: number | null): StatusClass {
  if (status == null) return 'none';
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 300 && status < 400) return '3xx';
  if (status >= 400 && status < 500) return '4xx';
  return '5xx';
}

/** What a request's handling found out for its log line: any subset of the fields, laid over the defaults. */
export type LogFacts = Partial<Omit<RequestLog, 'rid' | 'ms'>>;

/** What every route handler returns: the answer, and the facts its log line is written from. */
export interface Handled {
  response: Response;
  facts: LogFacts;
}

/** The line's fields before any fact is known. */
export function defaultLog(rid: string): RequestLog {
  return {
    rid,
    surface: 'meta',
    op: 'unknown',
    outcome: 'ok',
    upstream: 'none',
    ms: 0,
    sections: null,
    truncated: null,
    reason: null,
    context: null,
    config: null,
    mcp: null,
    client: null,
    client_version: null,
  };
}

const SAFE_TOKEN = /^[A-Za-z0-9_./:-]{1,64}$/;

/** Serializes the allowlisted fields; any string that is not a short safe token is replaced. */
export function formatLogLine(log: RequestLog): string {
  const line: Record<string, unknown> = {};
  for (const field of LOG_FIELDS) {
    const value = log[field];
    if (Array.isArray(value)) line[field] = value.map((item) => (SAFE_TOKEN.test(item) ? item : 'invalid'));
    else line[field] = typeof value === 'string' && !SAFE_TOKEN.test(value) ? 'invalid' : value;
  }
  const text = JSON.stringify(line);
  return text.length <= MAX_LOG_LINE_BYTES ? text : JSON.stringify({ rid: log.rid, outcome: 'log_overflow' });
}

/** The request's one log line: the facts over the defaults, and the time since startedAt. */
export function writeLogLine(rid: string, facts: LogFacts, startedAt: number): void {
  console.log(formatLogLine({ ...defaultLog(rid), ...facts, ms: Math.max(0, Date.now() - startedAt) }));
}
