// @ts-check
/** The contracts and the MCP request shape, shared by the scripts that call a running Worker. */
import { CONTRACTS as REGISTRY } from '../../src/contracts/registry.ts';

/** Accept header of a Streamable HTTP MCP request. */
export const MCP_ACCEPT = 'application/json, text/event-stream';

/**
 * The contracts, read from the Worker's own registry (src/contracts/registry.ts; the scripts run
 * under tsx): the REST route below /api/v1/, the MCP tool and the payload schema id.
 */
export const CONTRACTS = REGISTRY.map(({ route, tool, schema }) => ({ route: route.replace(/^\/api\/v1\//, ''), tool, schema }));

/**
 * The body of one JSON-RPC request.
 * @param {number} id
 * @param {string} method
 * @param {Record<string, unknown>} params
 */
export function jsonRpcBody(id, method, params) {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}
