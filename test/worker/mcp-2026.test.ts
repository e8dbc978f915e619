// MCP 2026-07-28 on /mcp (sessionless, per-request _meta, strict standard headers), the
// exact-revision gate in front of the SDK, and the refusals that must never echo input.
import { afterEach, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index';
import { PER_REQUEST_REVISIONS, SERVED_REVISIONS } from '../../src/http/mcp-era';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { MCP_HEADERS, REST_ROUTES, TOOLS, callWorker, mcpPost, mintToken, restGet, testEnv, rateLimitBinding, ORIGIN } from '../support/worker/harness';

const NOTE = { path: 'inbox/a.md', frontmatter: { title: 'A', tags: 'x' }, body: '# A\n\ntext\n\n## B\n\nmore\n' };
const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const SERVED = [...SERVED_REVISIONS];

async function setup() {
  const user = uniqueUser('m26');
  await seedNotes(user, 'default', [NOTE]);
  const token = await mintToken({ sub: user, role: 'viewer' });
  return { user, token };
}

/** A well-formed 2026-07-28 request with its standard headers; `headers` overrides or removes (undefined) them. */
function modern(method: string, params: Record<string, unknown>, token: string, headers: Record<string, string | undefined> = {}, id: unknown = 7) {
  const name = method === 'tools/call' ? String(params.name) : undefined;
  const all: Record<string, string | undefined> = { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method, 'Mcp-Name': name, ...headers };
  const defined = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return mcpPost({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }, { token, headers: defined });
}

describe('MCP 2026-07-28, sessionless', () => {
  it('server/discover names the revision, the capabilities, server info and a private cache hint', async () => {
    const { token } = await setup();
    const res = await modern('server/discover', {}, token);
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = await res.json<any>();
    expect(body.id).toBe(7);
    expect(body.result.supportedVersions).toEqual([MODERN]);
    // What an unsupported-version error on a per-request `_meta` offers is this same list.
    expect(body.result.supportedVersions).toEqual(PER_REQUEST_REVISIONS);
    expect(body.result.capabilities).toEqual({ tools: {} });
    // The reference's name and version, with the 2025-11-25 identity fields (test/worker/server-card.test.ts compares them with the card).
    expect(body.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'knowtation-hosted', version: '0.1.0', title: 'Knowtation Edge' });
    expect(body.result).toMatchObject({ ttlMs: 300000, cacheScope: 'private' });
    expect(res.headers.get('Content-Type')).toContain('application/json');
  });

  it('a 2026-07-28 POST that is not application/json is 415 with the fixed text', async () => {
    const { token } = await setup();
    const res = await modern('tools/list', {}, token, { 'Content-Type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Unsupported media type: send application/json' }, id: 7 });
  });

  it('tools/list: every read-only tool with outputSchema, cacheable by this client only', async () => {
    const { token } = await setup();
    const body = await (await modern('tools/list', {}, token)).json<any>();
    expect(body.result.tools.map((t: any) => t.name)).toEqual(Object.values(TOOLS));
    expect(body.result).toMatchObject({ ttlMs: 300000, cacheScope: 'private' });
    for (const tool of body.result.tools) {
      expect(tool.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      expect(tool.outputSchema.type).toBe('object');
      expect(tool.inputSchema.additionalProperties).toBe(false);
    }
  });

  it.each(Object.entries(TOOLS))('tools/call %s: text and structuredContent byte-identical to REST', async (contract, tool) => {
    const { token } = await setup();
    const res = await modern('tools/call', { name: tool, arguments: { path: NOTE.path } }, token, {}, 'req-1');
    expect(res.status).toBe(200);
    const text = await res.text();
    const rest = await (await restGet(REST_ROUTES[contract as keyof typeof REST_ROUTES], NOTE.path, { token })).text();
    const body = JSON.parse(text);
    expect(body.id).toBe('req-1');
    expect(body.result.content).toEqual([{ type: 'text', text: rest }]);
    expect(body.result.structuredContent).toEqual(JSON.parse(rest));
    // structuredContent is the REST body itself, spliced in verbatim.
    expect(text).toContain(`"structuredContent":${rest}`);
    expect(body.result.isError).toBeUndefined();
  });

  it('an Mcp-Name in the Base64 form is accepted', async () => {
    const { token } = await setup();
    const encoded = `=?base64?${btoa(TOOLS.note_outline)}?=`;
    const res = await modern('tools/call', { name: TOOLS.note_outline, arguments: { path: NOTE.path } }, token, { 'Mcp-Name': encoded });
    expect(res.status).toBe(200);
    expect((await res.json<any>()).result.structuredContent.path).toBe(NOTE.path);
  });

  it('an unknown tool is the same -32602 Unknown tool as on the 2025 era', async () => {
    const { user, token } = await setup();
    const res = await modern('tools/call', { name: 'SENTINEL-TOOL', arguments: { path: NOTE.path } }, token);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Unknown tool' } });
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('a method this endpoint does not serve is 404 -32601, and subscriptions/listen opens no stream', async () => {
    const { token } = await setup();
    for (const method of ['prompts/list', 'subscriptions/listen', 'initialize']) {
      const res = await modern(method, {}, token);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 7 });
    }
  });
});

describe('MCP 2026-07-28: strict standard headers', () => {
  const call = { name: TOOLS.note_outline, arguments: { path: NOTE.path } };
  it.each([
    ['MCP-Protocol-Version missing', { 'MCP-Protocol-Version': undefined }, 'Missing MCP-Protocol-Version header'],
    ['MCP-Protocol-Version of another era', { 'MCP-Protocol-Version': '2025-11-25' }, 'MCP-Protocol-Version header does not match the request'],
    ['MCP-Protocol-Version naming no served revision', { 'MCP-Protocol-Version': 'SENTINEL' }, 'MCP-Protocol-Version header does not match the request'],
    ['Mcp-Method missing', { 'Mcp-Method': undefined }, 'Missing Mcp-Method header'],
    ['Mcp-Method disagreeing', { 'Mcp-Method': 'tools/list' }, 'Mcp-Method header does not match the request'],
    ['Mcp-Name missing', { 'Mcp-Name': undefined }, 'Missing Mcp-Name header'],
    ['Mcp-Name disagreeing', { 'Mcp-Name': 'SENTINEL-NAME' }, 'Mcp-Name header does not match the request'],
    ['Mcp-Name Base64 of another name', { 'Mcp-Name': `=?base64?${btoa('SENTINEL')}?=` }, 'Mcp-Name header does not match the request'],
    // The 2026-07-28 header value encoding: a plain value is printable ASCII; anything else is Base64 in the sentinel form.
    ['Mcp-Name with broken Base64', { 'Mcp-Name': '=?base64?SENTINEL*?=' }, 'Invalid Mcp-Name header'],
    ['Mcp-Name Base64 that is not UTF-8', { 'Mcp-Name': '=?base64?/w==?=' }, 'Invalid Mcp-Name header'],
    ['Mcp-Name sentinel without its end', { 'Mcp-Name': '=?base64?Z2V0' }, 'Invalid Mcp-Name header'],
    // Raw non-ASCII bytes in these headers: test/e2e/raw-header-bytes.test.ts sends them over HTTP.
  ])("%s: 400 -32020, fixed text, the request's id, no canister read", async (_label, headers, message) => {
    const { user, token } = await setup();
    const res = await modern('tools/call', call, token, headers, 'req-7');
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain('SENTINEL');
    // JSON-RPC 2.0 section 5: the id could be read, so the error answer carries it.
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', error: { code: -32020, message }, id: 'req-7' });
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('an id that cannot be repeated is answered with id null', async () => {
    const { token } = await setup();
    const res = await modern('tools/call', call, token, { 'Mcp-Name': 'other' }, 'x'.repeat(129));
    expect(res.status).toBe(400);
    expect((await res.json<any>()).id).toBeNull();
  });

  it('a 2026-07-28 header on a request without the _meta revision is -32602', async () => {
    const { token } = await setup();
    const res = await mcpPost({ jsonrpc: '2.0', id: 'req-8', method: 'tools/list' }, { token, headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/list' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32602, message: 'Missing protocol version in _meta' }, id: 'req-8' });
  });

  it('a malformed _meta envelope is -32602 Invalid params without the SDK text', async () => {
    const { token } = await setup();
    const res = await mcpPost(
      { jsonrpc: '2.0', id: 'req-9', method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': 'SENTINEL-INFO' } } },
      { token, headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/list' } },
    );
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain('SENTINEL');
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', error: { code: -32602, message: 'Invalid params' }, id: 'req-9' });
  });
});

describe('MCP: revisions compared exactly, only a token-shaped revision repeated', () => {
  // Each of these sorts after "2026-07-28", which the SDK alone would take for a 2026 request.
  const garbage = ['SENTINEL', '2026-07-28x', '2026-07-29', '2099-01-01', 'v999.0.0', '9', 'z'];
  // 2026-07-28 schema, UnsupportedProtocolVersionError: `data.supported` lists what the client may
  // retry with, `data.requested` is the revision it asked for.
  const unsupported = (body: unknown, id: string | number, supported: readonly string[], requested: string) =>
    expect(body).toEqual({ jsonrpc: '2.0', error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [...supported], requested } }, id });

  it.each(garbage)('MCP-Protocol-Version %j with the same _meta revision: 400 -32022 offering what server/discover lists', async (version) => {
    const { user, token } = await setup();
    const res = await mcpPost(
      { jsonrpc: '2.0', id: 'req-1', method: 'tools/call', params: { name: TOOLS.note_outline, arguments: { path: NOTE.path }, _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': version } } },
      { token, headers: { 'MCP-Protocol-Version': version, 'Mcp-Method': 'tools/call', 'Mcp-Name': TOOLS.note_outline } },
    );
    expect(res.status).toBe(400);
    unsupported(await res.json(), 'req-1', PER_REQUEST_REVISIONS, version);
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it.each(['2025-11-25', '2024-11-05'])('a served 2025-era revision %j in _meta (with the same header): 400 -32022, it is reached only through initialize', async (version) => {
    const { token } = await setup();
    const res = await mcpPost(
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': version } } },
      { token, headers: { 'MCP-Protocol-Version': version, 'Mcp-Method': 'tools/list' } },
    );
    expect(res.status).toBe(400);
    unsupported(await res.json(), 3, PER_REQUEST_REVISIONS, version);
  });

  // 2026-07-28 basic/transports/streamable-http, Protocol Version Header: the header MUST match the
  // `_meta` revision, else 400 HeaderMismatch; a disagreement names no single requested revision.
  it.each(garbage)('a _meta revision %j under a 2026-07-28 header: 400 -32020 HeaderMismatch', async (version) => {
    const { user, token } = await setup();
    const res = await mcpPost(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': version } } },
      { token, headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/list' } },
    );
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain('SENTINEL');
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', error: { code: -32020, message: 'MCP-Protocol-Version header does not match the request' }, id: 1 });
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it.each(garbage)('a 2025-era request with MCP-Protocol-Version %j: 400 -32022 offering every served revision', async (version) => {
    const { token } = await setup();
    const res = await mcpPost({ jsonrpc: '2.0', id: 'req-2', method: 'tools/list' }, { token, headers: { 'MCP-Protocol-Version': version } });
    expect(res.status).toBe(400);
    unsupported(await res.json(), 'req-2', SERVED, version);
  });

  // What looks like a revision but is not a short token is never repeated: `requested` is left out.
  const notTokens = ['<b>SENTINEL</b>', 'SENTINEL SENTINEL', `SENTINEL${'9'.repeat(40)}`, 'SENTINEL"', '2026-07-28;SENTINEL'];
  it.each(notTokens)('an unsupported _meta revision %j is refused without being repeated', async (version) => {
    const { token } = await setup();
    const res = await mcpPost(
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': version } } },
      { token, headers: { 'Mcp-Method': 'tools/list' } },
    );
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain('SENTINEL');
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [...PER_REQUEST_REVISIONS] } }, id: 4 });
  });

  it.each([42, null, { v: 'SENTINEL' }])('a _meta revision that is not a string (%j) is refused and never repeated', async (claim) => {
    const { token } = await setup();
    const res = await mcpPost(
      { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': claim } } },
      { token, headers: { 'Mcp-Method': 'tools/list' } },
    );
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain('SENTINEL');
    expect(JSON.parse(text).error).toEqual({ code: -32022, message: 'Unsupported protocol version', data: { supported: [...PER_REQUEST_REVISIONS] } });
  });

  it('ids: an over-long string or a fraction is refused with id null; short ids are returned on 200s', async () => {
    const { token } = await setup();
    for (const id of ['x'.repeat(129), 1.5, 'SENTINEL'.repeat(20)]) {
      const res = await mcpPost({ jsonrpc: '2.0', id, method: 'tools/list' }, { token });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null });
    }
    const ok = await mcpPost({ jsonrpc: '2.0', id: 'x'.repeat(128), method: 'tools/list' }, { token });
    expect((await ok.json<any>()).id).toBe('x'.repeat(128));
  });

  it('SDK schema failures inside a 200 carry fixed texts in both eras', async () => {
    const { token } = await setup();
    const bad = { name: 'SENTINEL-NAME', arguments: 'SENTINEL-ARGS' };
    const legacy = await mcpPost({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: bad }, { token });
    const now = await modern('tools/call', bad, token, { 'Mcp-Name': 'SENTINEL-NAME' });
    for (const res of [legacy, now]) {
      const text = await res.text();
      expect(text).not.toContain('SENTINEL');
      const body = JSON.parse(text);
      expect(body.error.message).toMatch(/^(Invalid params|Internal error|Invalid request)$/);
      expect(body.error.data).toBeUndefined();
    }
  });
});

describe('MCP tool arguments are checked on the raw JSON', () => {
  const raw = (key: string, era: 'legacy' | 'modern') => {
    const meta = era === 'modern' ? `,"_meta":${JSON.stringify(META)}` : '';
    return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${TOOLS.note_outline}","arguments":{"path":"${NOTE.path}","${key}":{"polluted":true}}${meta}}}`;
  };
  it.each([
    ['__proto__', 'legacy'],
    ['constructor', 'legacy'],
    ['__proto__', 'modern'],
    ['constructor', 'modern'],
  ] as const)('a %s key (%s era) is an extra argument: Invalid arguments, no canister read', async (key, era) => {
    const { user, token } = await setup();
    const headers: Record<string, string> = { ...MCP_HEADERS };
    if (era === 'modern') Object.assign(headers, { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': TOOLS.note_outline });
    const res = await callWorker('/mcp', { method: 'POST', token, headers, body: raw(key, era) });
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body.result.isError).toBe(true);
    expect(JSON.parse(body.result.content[0].text)).toEqual({ error: 'Invalid arguments', code: 'UPSTREAM_ERROR' });
    expect(await canisterRequests(user)).toHaveLength(0);
  });
});

describe('an upload the client abandons', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is logged CLIENT_ABORTED, never INTERNAL_ERROR, and costs no canister read', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const { user, token } = await setup();
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"na'));
          return;
        }
        controller.error(new Error('SENTINEL-DISCONNECT'));
      },
    });
    const request = new Request(`${ORIGIN}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}` },
      body,
      duplex: 'half',
    } as RequestInit);
    const res = await worker.fetch(request, { RATE_LIMITER: rateLimitBinding('TEST_RATE_LIMITER'), PROTOCOL_RATE_LIMITER: rateLimitBinding('TEST_RATE_LIMITER'), ...testEnv() });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain('SENTINEL');
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Request body could not be read' }, id: null });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ surface: 'mcp', op: 'mcp', outcome: 'CLIENT_ABORTED', upstream: 'none' });
    expect(await canisterRequests(user)).toHaveLength(0);
  });
});
