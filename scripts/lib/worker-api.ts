/**
 * The Worker's public surface as the scripts call it (start, smoke, load): each contract's REST
 * route and MCP tool, read from the Worker's own registry (the scripts run under tsx), and the
 * shape of an MCP request.
 */
import { CONTRACTS, contractNamed, type ContractName, type ContractSpec } from '../../src/contracts/registry';

export { CONTRACTS };

/** Accept header of a Streamable HTTP MCP request. */
export const MCP_ACCEPT = 'application/json, text/event-stream';

const specOf = (contract: ContractSpec | ContractName): ContractSpec => (typeof contract === 'string' ? contractNamed(contract) : contract);

/** The REST request target (path and query) of one contract for one note. */
export function restTarget(contract: ContractSpec | ContractName, notePath: string): string {
  return `${specOf(contract).route}?path=${encodeURIComponent(notePath)}`;
}

/** The params of an MCP tools/call of one contract's tool for one note. */
export function toolCallParams(contract: ContractSpec | ContractName, notePath: string): { name: string; arguments: { path: string } } {
  return { name: specOf(contract).tool, arguments: { path: notePath } };
}

/** The body of one JSON-RPC request. */
export function jsonRpcBody(id: number, method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}
