import { describe, expect, it } from 'vitest';
import { CONTRACTS } from '../../src/contracts/registry';
import { LEGACY_REVISIONS, MODERN_REVISION, SERVED_REVISIONS } from '../../src/http/mcp-era';
import { EMBED_MIN_CHARS } from '../../src/http/mcp-payload';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import {
  ORIGIN,
  REST_ROUTES,
  TOOLS,
  callTool,
  callWorker,
  mcpPost,
  mintToken,
  restGet,
  testEnv,
  toolText,
} from '../support/worker/harness';

const NOTE = {
  path: 'inbox/daily sync.md',
  frontmatter: { title: 'Daily sync', tags: 'a, b', date: '2026-11-20' },
  body: '# Sync\n\nNotes here.\n\n## Decisions\n\n- one\n',
};

async function setup(claims: Record<string, unknown> = {}) {
  const user = uniqueUser('mcp');
  await seedNotes(user, 'default', [NOTE]);
  const token = await mintToken({ sub: user, role: 'viewer', ...claims });
  return { user, token };
}

const initialize = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '0' } },
});

describe('MCP protocol', () => {
  it('serves every revision the product promises, 2025-03-26 through 2026-07-28', () => {
    expect(SERVED_REVISIONS).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']));
    expect(SERVED_REVISIONS[0]).toBe(MODERN_REVISION);
  });

  it.each(LEGACY_REVISIONS)('initializes with protocol %s, stateless', async (version) => {
    const { token } = await setup();
    const res = await mcpPost(initialize(version), { token });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = await res.json<any>();
    expect(body.result.protocolVersion).toBe(version);
    expect(body.result.serverInfo.name).toBe('knowtation-hosted');
    expect(body.result.capabilities.tools).toBeDefined();
    expect(body.result.capabilities.resources).toBeUndefined();
    expect(body.result.capabilities.prompts).toBeUndefined();

    const headers = { 'MCP-Protocol-Version': version };
    const initialized = await mcpPost({ jsonrpc: '2.0', method: 'notifications/initialized' }, { token, headers });
    expect(initialized.status).toBe(202);
    const ping = await mcpPost({ jsonrpc: '2.0', id: 2, method: 'ping' }, { token, headers });
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    const list = await mcpPost({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { token, headers });
    expect((await list.json<any>()).result.tools).toHaveLength(CONTRACTS.length);
  });

  it.each(['viewer', 'editor', 'evaluator', 'admin', 'member', undefined])('tools/list for role %s shows every read tool', async (role) => {
    const { token } = await setup({ role });
    const res = await mcpPost({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token });
    const { tools } = (await res.json<any>()).result;
    expect(tools.map((t: any) => t.name)).toEqual(Object.values(TOOLS));
    for (const tool of tools) {
      expect(tool.inputSchema).toEqual({
        type: 'object',
        properties: { path: { type: 'string', description: 'Vault-relative note path' } },
        required: ['path'],
        additionalProperties: false,
      });
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
      expect(tool.outputSchema.type).toBe('object');
    }
    expect(tools[0].description).toBe('Return a derived Markdown heading outline for one hosted note without body text.');
  });

  it('GET and DELETE /mcp answer 405', async () => {
    const { token } = await setup();
    for (const method of ['GET', 'DELETE']) {
      const res = await callWorker('/mcp', { method, token });
      expect(res.status).toBe(405);
      expect(res.headers.get('Allow')).toBe('POST, OPTIONS');
    }
  });

  it('401 with the challenge and no upstream call without a valid token', async () => {
    const { user } = await setup();
    const res = await callTool(TOOLS.note_outline, { path: NOTE.path }, {});
    expect(res).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Unauthorized' }, id: null });
    const raw = await mcpPost({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token: 'a.b.c' });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('WWW-Authenticate')).toBe(
      'Bearer error="invalid_token", resource_metadata="https://edge.example/.well-known/oauth-protected-resource/mcp", scope="vault:read"',
    );
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('refuses Origins outside CORS_ORIGINS; local mode admits loopback origins', async () => {
    const { token } = await setup();
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const evil = await mcpPost(list, { token, headers: { Origin: 'https://evil.example' } });
    expect(evil.status).toBe(403);
    const hub = await mcpPost(list, { token, headers: { Origin: 'https://hub.example' } });
    expect(hub.status).toBe(200);
    const loopbackProd = await mcpPost(list, { token, headers: { Origin: 'http://localhost:6274' } });
    expect(loopbackProd.status).toBe(403);
    // The endpoint's own PUBLIC_ORIGIN is no rebinding page's origin (streamable-http, Security Warning); look-alikes are.
    const own = await mcpPost(list, { token, headers: { Origin: ORIGIN } });
    expect(own.status).toBe(200);
    for (const lookalike of [`${ORIGIN}.evil.example`, ORIGIN.replace('https:', 'http:'), `${ORIGIN}:8443`, `${ORIGIN}/`, ORIGIN.toUpperCase()]) {
      const res = await mcpPost(list, { token, headers: { Origin: lookalike } });
      expect(res.status, lookalike).toBe(403);
    }
    const local = testEnv({ ENVIRONMENT: 'local' });
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1:5173']) {
      const res = await mcpPost(list, { token, env: local, headers: { Origin: origin } });
      expect(res.status).toBe(200);
    }
    const stillEvil = await mcpPost(list, { token, env: local, headers: { Origin: 'http://localhost.evil.example' } });
    expect(stillEvil.status).toBe(403);
  });

  it('413 for bodies over 1 MiB', async () => {
    const { token } = await setup();
    const res = await callWorker('/mcp', {
      method: 'POST',
      token,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024) } }),
    });
    expect(res.status).toBe(413);
  });

  it('a body of exactly 1 MiB is read, declared or streamed; one byte more is 413 either way', async () => {
    const { token } = await setup();
    const MIB = 1024 * 1024;
    const sized = (bytes: number): string => {
      const [head, tail] = ['{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"', '"}}'];
      return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
    };
    const streamed = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(text);
          for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.slice(at, at + 64 * 1024));
          controller.close();
        },
      });
    const post = (body: BodyInit, declared?: number) =>
      callWorker('/mcp', { method: 'POST', token, headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...(declared === undefined ? {} : { 'Content-Length': String(declared) }) }, body });
    expect((await post(sized(MIB), MIB)).status).toBe(200);
    expect((await post(streamed(sized(MIB)))).status).toBe(200);
    expect((await post(sized(MIB + 1), MIB + 1)).status).toBe(413);
    expect((await post(streamed(sized(MIB + 1)))).status).toBe(413);
  });

  it('an mcp_access token with only vault:read may POST (the reference quirk is not copied)', async () => {
    const { token } = await setup({ type: 'mcp_access', aud: 'https://edge.example/mcp', scopes: ['vault:read'] });
    const rpc = await callTool(TOOLS.note_outline, { path: NOTE.path }, { token });
    expect(rpc.result.isError).toBeUndefined();
  });
});

describe('MCP tools', () => {
  it('returns the payload as text and structuredContent, byte-identical to REST', async () => {
    const { token } = await setup();
    for (const [contract, tool] of Object.entries(TOOLS)) {
      const rpc = await callTool(tool, { path: NOTE.path }, { token });
      expect(rpc.result.isError).toBeUndefined();
      const rest = await restGet(REST_ROUTES[contract as keyof typeof REST_ROUTES], NOTE.path, { token });
      const restText = await rest.text();
      expect(rpc.result.content).toEqual([{ type: 'text', text: restText }]);
      expect(rpc.result.structuredContent).toEqual(JSON.parse(restText));
    }
  });

  it('answers the same bytes on either side of the single-serialization threshold', async () => {
    // Payloads over EMBED_MIN_CHARS are spliced from one serialization (mcp-payload.ts); smaller ones are the SDK's.
    // Either way the result carries structuredContent and, for clients that read text, the same JSON as a
    // TextContent block (MCP 2025-06-18 and later, server/tools, "Structured Content").
    const user = uniqueUser('mcp-embed');
    const note = (headings: number) => ({
      path: `embed/${headings}.md`,
      frontmatter: {},
      body: Array.from({ length: headings }, (_, index) => `## Heading ${index} ${'words '.repeat(20)}\n\ntext\n`).join('\n'),
    });
    const notes = [note(60), note(150)];
    await seedNotes(user, 'default', notes);
    const token = await mintToken({ sub: user, role: 'viewer' });
    const sizes: number[] = [];
    for (const { path } of notes) {
      const restText = await (await restGet(REST_ROUTES.section_source, path, { token })).text();
      sizes.push(restText.length);
      const rpc = await callTool(TOOLS.section_source, { path }, { token });
      expect(rpc.result.content).toEqual([{ type: 'text', text: restText }]);
      expect(rpc.result.structuredContent).toEqual(JSON.parse(restText));
    }
    expect(sizes[0]).toBeLessThan(EMBED_MIN_CHARS);
    expect(sizes[1]).toBeGreaterThan(EMBED_MIN_CHARS);
  });

  it.each([
    [{ path: '../x.md' }, 'Invalid path'],
    [{ path: '/abs.md' }, 'Invalid path'],
    [{}, 'Invalid path'],
    [{ path: 42 }, 'Invalid path'],
    [{ path: null }, 'Invalid path'],
    [{ path: 'a.md', extra: 'SENTINEL-ARG' }, 'Invalid arguments'],
  ])('argument %j -> %s, before any fetch and without echo', async (args, message) => {
    const { user, token } = await setup();
    for (const tool of Object.values(TOOLS)) {
      const rpc = await callTool(tool, args, { token });
      expect(rpc.result.isError).toBe(true);
      expect(rpc.result.content).toEqual([{ type: 'text', text: JSON.stringify({ error: message, code: 'UPSTREAM_ERROR' }) }]);
    }
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('a missing note is Upstream 404', async () => {
    const { token } = await setup();
    const rpc = await callTool(TOOLS.section_source, { path: 'nope.md' }, { token });
    expect(toolText(rpc)).toEqual({ error: 'Upstream 404', code: 'UPSTREAM_ERROR' });
  });

  it('an unknown tool and a tool outside the role give the same JSON-RPC error', async () => {
    const { user, token } = await setup();
    const unknown = await callTool('no_such_tool', { path: NOTE.path }, { token });
    const writeTool = await callTool('write', { path: NOTE.path }, { token });
    expect(unknown.error).toEqual({ code: -32602, message: 'Unknown tool' });
    expect(writeTool.error).toEqual(unknown.error);
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('vault refusals happen at the HTTP layer', async () => {
    const { user, token } = await setup({ allowed_vault_ids: ['work'] });
    const forbidden = await mcpPost({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token, headers: { 'X-Vault-Id': 'default' } });
    expect(forbidden.status).toBe(403);
    const invalid = await mcpPost({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token, headers: { 'X-Vault-Id': 'bad vault' } });
    expect(invalid.status).toBe(400);
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('a scoped token gets Upstream 404 for an out-of-scope note, exactly like a missing one', async () => {
    const { token } = await setup({ scope: { folders: ['projects'] } });
    const outside = await callTool(TOOLS.note_outline, { path: NOTE.path }, { token });
    const missing = await callTool(TOOLS.note_outline, { path: 'projects/none.md' }, { token });
    expect(outside.result).toEqual(missing.result);
    expect(toolText(outside)).toEqual({ error: 'Upstream 404', code: 'UPSTREAM_ERROR' });
  });
});

describe('MCP: nothing the SDK says can echo input', () => {
  it('refuses JSON-RPC batches, so one POST is at most one canister read', async () => {
    const user = uniqueUser('batch');
    await seedNotes(user, 'default', [NOTE]);
    const token = await mintToken({ sub: user });
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: TOOLS.note_outline, arguments: { path: NOTE.path } } });
    const res = await mcpPost([call(1), call(2)], { token });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Batch requests are not supported' }, id: null });
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('gives fixed messages for SDK-level refusals (protocol version header, malformed params)', async () => {
    const { token } = await setup();
    // A header outside the token grammar is refused and not repeated (2026-07-28 schema requires
    // `requested` only of what the server can repeat safely; see unsupportedVersionData).
    const version = await mcpPost({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token, headers: { 'MCP-Protocol-Version': 'SENTINEL VERSION' } });
    expect(version.status).toBe(400);
    const versionText = await version.text();
    expect(versionText).not.toContain('SENTINEL');
    expect(JSON.parse(versionText).error).toEqual({
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: [...SERVED_REVISIONS] },
    });

    const malformed = await mcpPost({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'SENTINEL-NAME', arguments: 'SENTINEL-ARGS' } }, { token });
    const malformedText = await malformed.text();
    expect(malformedText).not.toContain('SENTINEL');
    expect(JSON.parse(malformedText).error.code).toBeTypeOf('number');

    const unknownMethod = await mcpPost({ jsonrpc: '2.0', id: 3, method: 'resources/list' }, { token });
    expect(await unknownMethod.json()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } });
  });
});
