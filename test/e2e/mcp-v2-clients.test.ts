// The MCP SDK v2 Client (@modelcontextprotocol/client) in each of its version-negotiation
// modes, against the real Worker served over HTTP and the demo vault: `auto` probes with
// server/discover and must settle on 2026-07-28, a client pinned to 2026-07-28 must be
// served sessionlessly, and `legacy` must go through initialize. Each calls every tool;
// the client validates structuredContent against the outputSchema it listed.
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintViewerToken } from '../../scripts/token.mjs';
import { CONTRACTS, contractForTool } from '../../src/contracts/registry';

const workerUrl = inject('workerUrl');
const NOTE_PATH = 'projects/Aurora/roadmap.md';
/** Every tool the registry declares. */
const TOOLS = CONTRACTS.map((contract) => contract.tool);

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

  it('lists exactly the registry\'s tools, read-only, with output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    }
  });

  it.each(TOOLS)('%s returns the REST payload', async (name) => {
    const { route } = contractForTool(name)!;
    await client.listTools();
    const result = (await client.callTool({ name, arguments: { path: NOTE_PATH } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content).toHaveLength(1);
    const [item] = result.content;
    if (item?.type !== 'text') throw new Error('expected one text item');
    const rest = await fetch(`${workerUrl}${route}?path=${encodeURIComponent(NOTE_PATH)}`, {
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
