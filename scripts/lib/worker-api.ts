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

/** The two MCP eras a tool call is sent in: 2025-11-25 (stateless after initialize) and 2026-07-28 (sessionless, _meta and headers). */
export type McpEra = '2025-11-25' | '2026-07-28';
export const MCP_ERAS: readonly McpEra[] = ['2025-11-25', '2026-07-28'];

/** A note_outline tools/call to `${base}/mcp` in one era, with the token, as a client of that era sends it. */
export function toolCallRequest(base: URL, token: string, era: McpEra, notePath: string): Request {
  const call = toolCallParams('note_outline', notePath);
  const params: Record<string, unknown> = { ...call };
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: MCP_ACCEPT,
    'mcp-protocol-version': era,
  };
  if (era === '2026-07-28') {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': era,
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    Object.assign(headers, { 'mcp-method': 'tools/call', 'mcp-name': call.name });
  }
  return new Request(new URL('/mcp', base), { method: 'POST', headers, body: jsonRpcBody(1, 'tools/call', params) });
}

/** The body of one JSON-RPC request. */
export function jsonRpcBody(id: number, method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}
