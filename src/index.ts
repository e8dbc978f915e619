/**
 * Worker entry: configuration from env, routing, the headers every response
 * carries, and the one log line per request. An unexpected exception becomes
 * a fixed 500 answer; its text is never sent or logged.
 */
import { loadConfig } from './config';
import { buildRouter } from './http/router';
import { errorResponse, finalizeResponse, preflightResponse } from './http/responses';
import { newRequestLog, writeLogLine } from './log';
import { warmUpRequestPath } from './warm-up';

const router = buildRouter();
warmUpRequestPath();
/** Eight of the longest variable names still keep the line under MAX_LOG_LINE_BYTES. */
const MAX_LOGGED_CONFIG_NAMES = 8;

export default {
  async fetch(request: Request, env: Record<string, unknown>): Promise<Response> {
    const startedAt = Date.now();
    const loaded = loadConfig(env);
    const config = loaded.ok ? loaded.config : null;
    const log = newRequestLog('meta', 'unknown');
    // A misconfigured Worker names what is wrong in its own log line: variable names only, never values.
    if (!loaded.ok) log.config = loaded.problems.slice(0, MAX_LOGGED_CONFIG_NAMES).map((problem) => problem.variable);
    let response: Response;
    try {
      if (request.method === 'OPTIONS') {
        log.op = 'preflight';
        response = preflightResponse(request, config);
      } else {
        response = await router.fetch(request, { request, config, log, env });
      }
    } catch {
      log.outcome = 'INTERNAL_ERROR';
      response = errorResponse(500, 'INTERNAL_ERROR', 'Runtime failure');
    }
    writeLogLine(log, startedAt);
    return finalizeResponse(response, request, config, log.rid);
  },
} satisfies ExportedHandler<Record<string, unknown>>;
