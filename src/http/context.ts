import type { Config } from '../config';
import type { RequestLog } from '../log';

/** What every route handler receives. `config` is null when the environment is invalid. */
export interface RouteContext {
  request: Request;
  config: Config | null;
  log: RequestLog;
  /** The raw Worker env: read only by local /health to report configuration problems. */
  env?: object;
  /** The vault an endpoint URL names (`/mcp/vaults/<id>`), a valid vault id; absent elsewhere. */
  endpointVault?: string | null;
}

export type RouteHandler = (context: RouteContext) => Promise<Response> | Response;
