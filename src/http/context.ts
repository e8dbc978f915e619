import type { Config } from '../config';
import type { Handled } from '../log';

/** What every route handler receives. `config` is null when the environment is invalid. */
export interface RouteContext {
  request: Request;
  /** The request's URL, parsed once by the Worker entry. */
  url: URL;
  config: Config | null;
  /** The raw Worker env: read only by local /health to report configuration problems. */
  env?: object;
  /** The vault an endpoint URL names (`/mcp/vaults/<id>`), a valid vault id; absent elsewhere. */
  endpointVault?: string | null;
}

/** A route's answer and the facts its log line is written from; handlers never write the line themselves. */
export type RouteHandler = (context: RouteContext) => Promise<Handled> | Handled;
