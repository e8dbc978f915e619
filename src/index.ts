/**
 * Worker entry: configuration from env, routing, the headers every response
 * carries, and the one log line per request, written here and nowhere else
 * from the facts the route returned. An unexpected exception becomes a fixed
 * 500 answer; its text is never sent or logged. Before the answer leaves,
 * whatever the route left of the request body is discarded (bounded), so the
 * connection can carry the next request.
 */
import { loadConfig } from './config';
import { buildRouter } from './http/router';
import { isPublicDocumentPath, publicPreflightResponse } from './http/discovery';
import { errorResponse, finalizeResponse, preflightResponse } from './http/responses';
import { writeLogLine, type Handled, type LogFacts } from './log';
import { discardUnreadBody } from './bounded-read';
import { warmUpRequestPath } from './warm-up';

const dispatch = buildRouter();
void warmUpRequestPath().catch(() => false);
/** Eight of the longest variable names still keep the line under MAX_LOG_LINE_BYTES. */
const MAX_LOGGED_CONFIG_NAMES = 8;

export default {
  async fetch(request: Request, env: Record<string, unknown>): Promise<Response> {
    const startedAt = Date.now();
    const rid = crypto.randomUUID();
    const loaded = loadConfig(env);
    const config = loaded.ok ? loaded.config : null;
    // A misconfigured Worker names what is wrong in its own log line: variable names only, never values.
    const configFacts: LogFacts = loaded.ok ? {} : { config: loaded.problems.slice(0, MAX_LOGGED_CONFIG_NAMES).map((problem) => problem.variable) };
    let handled: Handled;
    try {
      const url = new URL(request.url);
      handled =
        request.method === 'OPTIONS'
          ? {
              response: isPublicDocumentPath(url.pathname) ? publicPreflightResponse() : preflightResponse(request, config),
              facts: { op: 'preflight' },
            }
          : await dispatch({ request, url, config, env });
    } catch {
      handled = { response: errorResponse(500, 'INTERNAL_ERROR', 'Runtime failure'), facts: { outcome: 'INTERNAL_ERROR' } };
    }
    writeLogLine(rid, { ...configFacts, ...handled.facts }, startedAt);
    const response = finalizeResponse(handled.response, request, config, rid);
    await discardUnreadBody(request);
    return response;
  },
} satisfies ExportedHandler<Record<string, unknown>>;
