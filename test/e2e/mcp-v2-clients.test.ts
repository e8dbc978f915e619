// The MCP SDK v2 Client (@modelcontextprotocol/client) in each of its version-negotiation
// modes, against the real Worker served over HTTP and the demo vault: `auto` probes with
// server/discover and must settle on 2026-07-28, a client pinned to 2026-07-28 must be
// served sessionlessly, and `legacy` must go through initialize. Each calls all four tools;
// the client validates structuredContent against the outputSchema it listed.
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintViewerToken } from '../../scripts/token.mjs';

const workerUrl = inject('workerUrl');
const NOTE_PATH = 'projects/Aurora/roadmap.md';
const TOOLS = {
  get_note_outline: 'note-outline',
  get_document_tree: 'document-tree',
  get_metadata_facets: 'metadata-facets',
  get_section_source: 'section-source',
} as const;
type ToolName = keyof typeof TOOLS;

type Mode = 'auto' | 'legacy' | { pin: '2026-07-28' };
const MODES: Array<[string, Mode, string]> = [
  ['auto', 'auto', '2026-07-28'],
  ['pinned to 2026-07-28', { pin: '2026-07-28' }, '2026-07-28'],
  ['legacy', 'legacy', '2025-11-25'],
];

describe.each(MODES)('MCP SDK v2 Client, %s', (_label, mode, expectedVersion) => {
  let client: Client;
  let token: string;

  beforeAll(async () => {
    token = await mintViewerToken('demo', 600, inject('sessionSecret'));
    client = new Client({ name: 'knowtation-edge-e2e-v2', version: '0.0.0' }, { versionNegotiation: { mode } });
    const transport = new StreamableHTTPClientTransport(new URL(`${workerUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
  });

  it(`negotiates ${expectedVersion} with knowtation-hosted`, () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(expectedVersion);
    // The reference's name, with the 2025-11-25 identity a client can display (docs/MCP.md, What clients show).
    expect(client.getServerVersion()).toMatchObject({ name: 'knowtation-hosted', version: expect.any(String), title: 'Knowtation Edge' });
    expect(client.getServerVersion()?.icons?.map((icon) => icon.theme)).toEqual(['light', 'dark']);
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toMatch(/untrusted/);
  });

  it('lists the four read-only tools with output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(TOOLS).sort());
    for (const tool of tools) {
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    }
  });

  it.each(Object.keys(TOOLS) as ToolName[])('%s returns the REST payload', async (name) => {
    await client.listTools();
    const result = (await client.callTool({ name, arguments: { path: NOTE_PATH } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content).toHaveLength(1);
    const [item] = result.content;
    if (item?.type !== 'text') throw new Error('expected one text item');
    const rest = await fetch(`${workerUrl}/api/v1/${TOOLS[name]}?path=${encodeURIComponent(NOTE_PATH)}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const restText = await rest.text();
    expect(item.text).toBe(restText);
    expect(result.structuredContent).toEqual(JSON.parse(restText));
  });

  it('a traversal path is a sanitized tool error, an unknown tool a protocol error', async () => {
    const refused = (await client.callTool({ name: 'get_note_outline', arguments: { path: '../x.md' } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([{ type: 'text', text: '{"error":"Invalid path","code":"UPSTREAM_ERROR"}' }]);
    await expect(client.callTool({ name: 'get_note_body', arguments: { path: NOTE_PATH } })).rejects.toThrow(/Unknown tool/);
  });
});
