// The MCP SDK's own client (Client over StreamableHTTPClientTransport), exactly as an MCP host
// would wire it, against the real Worker served over HTTP and the demo vault. The client
// validates every structuredContent against the tool's outputSchema from tools/list, so a
// payload that drifts from its published schema fails here.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadVault } from '../../demo/canister.mjs';
import { mintViewerToken } from '../../scripts/token.mjs';
import { CONTRACTS, contractForTool } from '../../src/contracts/registry';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const workerUrl = inject('workerUrl');
const mcpUrl = new URL(`${workerUrl}/mcp`);

/** A demo-vault note with headings at several levels, a project and tags: every tool has something to say. */
const NOTE_PATH = 'projects/Aurora/roadmap.md';

/** Every tool the registry declares. */
const TOOLS = CONTRACTS.map((contract) => contract.tool);

function newClient(): Client {
  return new Client({ name: 'knowtation-edge-e2e', version: '0.0.0' });
}

function transportWith(headers: Record<string, string>): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } });
}

function onlyText(result: CallToolResult): string {
  expect(result.content).toHaveLength(1);
  const [item] = result.content;
  if (item?.type !== 'text') throw new Error(`expected one text content item, got ${JSON.stringify(result.content)}`);
  return item.text;
}

describe('MCP SDK client over Streamable HTTP', () => {
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  let token: string;

  beforeAll(async () => {
    token = await mintViewerToken('demo', 600, inject('sessionSecret'));
    client = newClient();
    transport = transportWith({ Authorization: `Bearer ${token}` });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
  });

  it('the chosen note is a real demo-vault note', async () => {
    const notes = await loadVault(path.join(repoRoot, 'demo', 'vault'));
    const note = notes.find((candidate) => candidate.path === NOTE_PATH);
    expect(note, `${NOTE_PATH} must exist in demo/vault`).toBeDefined();
    expect(note!.body).toMatch(/^#{1,6} /m);
  });

  it('connects to knowtation-hosted and negotiates a protocol version both sides support', () => {
    // The reference's name, with the 2025-11-25 identity a client can display (docs/MCP.md, What clients show).
    expect(client.getServerVersion()).toMatchObject({ name: 'knowtation-hosted', version: expect.any(String), title: 'Knowtation Edge' });
    expect(client.getServerVersion()?.icons?.map((icon) => icon.theme)).toEqual(['light', 'dark']);
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toMatch(/untrusted/);
    // The SDK client offers its latest version; a server that supports it answers with the same one.
    expect(transport.protocolVersion).toBe(SUPPORTED_PROTOCOL_VERSIONS[0]);
    // Stateless server: no session is ever issued.
    expect(transport.sessionId).toBeUndefined();
  });

  it('lists exactly the registry\'s tools, read-only, with the path input and an output schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', required: ['path'], additionalProperties: false });
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
  });

  it.each(TOOLS)('%s returns the REST payload as validated structuredContent', async (name) => {
    const { schema, route } = contractForTool(name)!;
    // listTools caches each tool's outputSchema validator; callTool then validates structuredContent with it.
    await client.listTools();
    const result = (await client.callTool({ name, arguments: { path: NOTE_PATH } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const payload = result.structuredContent as Record<string, unknown>;
    expect(payload).toEqual(JSON.parse(onlyText(result)));
    expect(payload.schema).toBe(schema);
    expect(payload.path).toBe(NOTE_PATH);
    expect(JSON.stringify(payload)).not.toMatch(/"(body|snippet|content)"\s*:/);

    const rest = await fetch(`${workerUrl}${route}?path=${encodeURIComponent(NOTE_PATH)}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(rest.status).toBe(200);
    expect(payload).toEqual(await rest.json());
  });

  it('the outline and the section source agree on the note headings', async () => {
    const outline = (await client.callTool({ name: 'get_note_outline', arguments: { path: NOTE_PATH } })) as CallToolResult;
    const sections = (await client.callTool({ name: 'get_section_source', arguments: { path: NOTE_PATH } })) as CallToolResult;
    const headings = (outline.structuredContent as { headings: Array<{ id: string; text: string }> }).headings;
    const sectionList = (sections.structuredContent as { sections: Array<{ heading_id: string; heading_text: string; body_returned: boolean }> })
      .sections;
    expect(headings.length).toBeGreaterThan(3);
    expect(sectionList.map((section) => [section.heading_id, section.heading_text])).toEqual(
      headings.map((heading) => [heading.id, heading.text]),
    );
    expect(sectionList.every((section) => section.body_returned === false)).toBe(true);
  });

  it.each(TOOLS)('%s refuses a traversal path with a sanitized tool error', async (name) => {
    const result = (await client.callTool({ name, arguments: { path: '../x.md' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(onlyText(result)).toBe('{"error":"Invalid path","code":"UPSTREAM_ERROR"}');
  });

  it('a missing note is a sanitized Upstream 404 tool error', async () => {
    const result = (await client.callTool({
      name: 'get_note_outline',
      arguments: { path: 'projects/Aurora/no-such-note.md' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(onlyText(result)).toBe('{"error":"Upstream 404","code":"UPSTREAM_ERROR"}');
  });

  it('an unknown tool is a protocol error, not a tool result', async () => {
    await expect(client.callTool({ name: 'get_note_body', arguments: { path: NOTE_PATH } })).rejects.toThrow(/Unknown tool/);
  });
});

describe('MCP SDK client without valid credentials', () => {
  it('cannot connect without a token: the server answers 401', async () => {
    const client = newClient();
    const error = await client.connect(transportWith({})).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
    await client.close();
  });

  it('cannot connect with a token signed by another key', async () => {
    const forged = await mintViewerToken('demo', 600, `not-the-worker-secret-${'x'.repeat(32)}`);
    const client = newClient();
    const error = await client.connect(transportWith({ Authorization: `Bearer ${forged}` })).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
    await client.close();
  });
});
