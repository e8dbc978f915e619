// @ts-check
/** The four contracts and the MCP request shape, shared by the scripts that call a running Worker. */

/** Accept header of a Streamable HTTP MCP request. */
export const MCP_ACCEPT = 'application/json, text/event-stream';

/** The four contracts: REST route, MCP tool and payload schema id, in one table. */
export const CONTRACTS = [
  { route: 'note-outline', tool: 'get_note_outline', schema: 'knowtation.note_outline/v1' },
  { route: 'document-tree', tool: 'get_document_tree', schema: 'knowtation.document_tree/v0' },
  { route: 'metadata-facets', tool: 'get_metadata_facets', schema: 'knowtation.metadata_facets/v0' },
  { route: 'section-source', tool: 'get_section_source', schema: 'knowtation.section_source/v0' },
];

/**
 * The body of one JSON-RPC request.
 * @param {number} id
 * @param {string} method
 * @param {Record<string, unknown>} params
 */
export function jsonRpcBody(id, method, params) {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}
