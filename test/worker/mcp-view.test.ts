// The MCP Apps view (SEP-1865, io.modelcontextprotocol/ui) over both eras: the ui:// resource in
// resources/list and resources/read, the tools naming it, the extension negotiated (SEP-2133,
// Negotiation), the gate in front of it, and the guarantee for a client without MCP Apps: tool
// results byte-identical to the Worker without the view, tool definitions differing only in `_meta`.
//
// The harness's default env has no ASSETS binding, which is the Worker with its view off; these
// tests add the pool's ASSETS (wrangler.toml [assets]) to turn it on, as a deployment has it.
import { env as poolBindings } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { MODERN_REVISION } from '../../src/http/mcp-era';
import { VIEW_EXTENSION_ID, VIEW_MIME_TYPE, VIEW_URI } from '../../src/http/mcp-view';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { TOOLS, mcpPost, mintToken, rateLimitBinding, testEnv, type CallOptions } from '../support/worker/harness';

const NOTE = {
  path: 'inbox/view note.md',
  frontmatter: { title: 'View note', tags: ['a', 'b'] },
  body: '# Top\n\ntext\n\n## <img src=x onerror=alert(1)>\n\nmore\n',
};
const ASSETS = (poolBindings as unknown as Record<string, unknown>).ASSETS;
const VIEW_ON: CallOptions['bindings'] = { ASSETS };
const UI_SETTINGS = { mimeTypes: [VIEW_MIME_TYPE] };
const EMPTY_CSP = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

async function setup() {
  const user = uniqueUser('view');
  await seedNotes(user, 'default', [NOTE]);
  return { user, token: await mintToken({ sub: user, role: 'viewer' }) };
}

/** A 2026-07-28 request with its standard headers and per-request `_meta`; `capabilities` are the client's. */
function modern(method: string, params: Record<string, unknown>, token: string, capabilities: Record<string, unknown>, options: CallOptions = {}) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
    'io.modelcontextprotocol/clientInfo': { name: 'test', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
  const headers: Record<string, string> = { 'MCP-Protocol-Version': MODERN_REVISION, 'Mcp-Method': method };
  // The 2026-07-28 Mcp-Name header: the tool's name, or the resource's URI.
  if (method === 'tools/call') headers['Mcp-Name'] = String(params.name);
  if (method === 'resources/read') headers['Mcp-Name'] = String(params.uri);
  return mcpPost({ jsonrpc: '2.0', id: 3, method, params: { ...params, _meta: meta } }, { token, headers, ...options });
}

const legacy = (method: string, params: Record<string, unknown>, token: string, options: CallOptions = {}) =>
  mcpPost({ jsonrpc: '2.0', id: 3, method, params }, { token, headers: { 'MCP-Protocol-Version': '2025-11-25' }, ...options });

/** Each tool definition without its `_meta`. */
const withoutMeta = (tools: Array<Record<string, unknown>>) => tools.map(({ _meta, ...rest }) => rest);

describe('the view resource (SEP-1865, UI Resource Format), both eras', () => {
  it('resources/list names one ui:// resource of the MCP App MIME type with empty CSP domain lists', async () => {
    const { token } = await setup();
    for (const res of [await legacy('resources/list', {}, token, { bindings: VIEW_ON }), await modern('resources/list', {}, token, {}, { bindings: VIEW_ON })]) {
      expect(res.status).toBe(200);
      const { result } = await res.json<any>();
      expect(result.resources).toEqual([
        expect.objectContaining({ uri: VIEW_URI, mimeType: VIEW_MIME_TYPE, _meta: { ui: { csp: EMPTY_CSP, prefersBorder: true } } }),
      ]);
      expect(result.resources[0].uri.startsWith('ui://')).toBe(true);
    }
  });

  it('resources/templates/list answers an empty list on both eras, logged under its own op: a server declaring resources serves it', async () => {
    const { token } = await setup();
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      for (const res of [await legacy('resources/templates/list', {}, token, { bindings: VIEW_ON }), await modern('resources/templates/list', {}, token, {}, { bindings: VIEW_ON })]) {
        expect(res.status).toBe(200);
        expect((await res.json<any>()).result).toMatchObject({ resourceTemplates: [] });
      }
    } finally {
      vi.restoreAllMocks();
    }
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([
      { op: 'resources/templates/list', outcome: 'ok', mcp: '2025-11-25' },
      { op: 'resources/templates/list', outcome: 'ok', mcp: MODERN_REVISION },
    ]);
  });

  it('2026-07-28 (server/utilities/caching): resources/list, resources/templates/list and resources/read carry private cache hints, like tools/list', async () => {
    const { token } = await setup();
    for (const [method, params] of [['resources/list', {}], ['resources/templates/list', {}], ['resources/read', { uri: VIEW_URI }]] as const) {
      const { result } = await (await modern(method, params, token, {}, { bindings: VIEW_ON })).json<any>();
      expect(result).toMatchObject({ ttlMs: 300000, cacheScope: 'private' });
    }
  });

  it('resources/read answers the built page, one HTML5 document whose own CSP allows no network', async () => {
    const { user, token } = await setup();
    for (const res of [
      await legacy('resources/read', { uri: VIEW_URI }, token, { bindings: VIEW_ON }),
      await modern('resources/read', { uri: VIEW_URI }, token, {}, { bindings: VIEW_ON }),
    ]) {
      expect(res.status).toBe(200);
      const { result } = await res.json<any>();
      expect(result.contents).toHaveLength(1);
      const [content] = result.contents;
      expect(content).toMatchObject({ uri: VIEW_URI, mimeType: VIEW_MIME_TYPE, _meta: { ui: { csp: EMPTY_CSP } } });
      expect(content.text.startsWith('<!doctype html>')).toBe(true);
      expect(content.text).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/);
      expect(content.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\//);
    }
    // A static page: no canister call.
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('a read of any other URI is the fixed -32602, the URI never quoted back', async () => {
    const { token } = await setup();
    for (const uri of ['ui://SENTINEL/view.html', `${VIEW_URI}x`, 'file:///etc/passwd', 'UI://knowtation/structure-view.html']) {
      for (const res of [await legacy('resources/read', { uri }, token, { bindings: VIEW_ON }), await modern('resources/read', { uri }, token, {}, { bindings: VIEW_ON })]) {
        const text = await res.text();
        expect(text).not.toContain('SENTINEL');
        expect(text).not.toContain('passwd');
        expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid params' } });
      }
    }
  });

  it('passes the gate: no token is 401, and a read spends the protocol budget, never the read budget', async () => {
    const { user, token } = await setup();
    const unauthenticated = await legacy('resources/read', { uri: VIEW_URI }, '', { token: null, bindings: VIEW_ON });
    expect(unauthenticated.status).toBe(401);
    const spent: string[] = [];
    const counting = (name: string) => ({ limit: async () => (spent.push(name), { success: true }) });
    const bindings = { ...VIEW_ON, RATE_LIMITER: counting('read'), PROTOCOL_RATE_LIMITER: counting('protocol') };
    expect((await legacy('resources/read', { uri: VIEW_URI }, token, { bindings })).status).toBe(200);
    expect((await modern('resources/list', {}, token, {}, { bindings })).status).toBe(200);
    expect(spent).toEqual(['protocol', 'protocol']);
    // A spent protocol budget refuses the read before it is served.
    const refused = await legacy('resources/read', { uri: VIEW_URI }, token, {
      bindings: { ...VIEW_ON, PROTOCOL_RATE_LIMITER: { limit: async () => ({ success: false }) }, RATE_LIMITER: rateLimitBinding('TEST_RATE_LIMITER') },
    });
    expect(refused.status).toBe(429);
    expect(await canisterRequests(user)).toHaveLength(0);
  });
});

describe('the extension negotiated (SEP-2133, Negotiation; SEP-1865, Client<>Server Capability Negotiation)', () => {
  it('initialize (2025) and server/discover (2026-07-28) advertise the extension and resources', async () => {
    const { token } = await setup();
    const init = await mcpPost(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { extensions: { [VIEW_EXTENSION_ID]: UI_SETTINGS } }, clientInfo: { name: 't', version: '0' } } },
      { token, bindings: VIEW_ON },
    );
    const discover = await modern('server/discover', {}, token, {}, { bindings: VIEW_ON });
    for (const { result } of [await init.json<any>(), await discover.json<any>()]) {
      expect(result.capabilities).toEqual({ tools: {}, resources: {}, extensions: { [VIEW_EXTENSION_ID]: {} } });
    }
  });

  it('tools name the view in _meta.ui.resourceUri and the legacy ui/resourceUri key', async () => {
    const { token } = await setup();
    const declared = await modern('tools/list', {}, token, { extensions: { [VIEW_EXTENSION_ID]: UI_SETTINGS } }, { bindings: VIEW_ON });
    const legacyList = await legacy('tools/list', {}, token, { bindings: VIEW_ON });
    for (const { result } of [await declared.json<any>(), await legacyList.json<any>()]) {
      expect(result.tools.map((tool: any) => tool.name)).toEqual(Object.values(TOOLS));
      for (const tool of result.tools) expect(tool._meta).toEqual({ ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI });
    }
  });

  it.each([
    ['no extensions', {}],
    ['another extension only', { extensions: { 'com.example/other': {} } }],
    ['the extension without mimeTypes', { extensions: { [VIEW_EXTENSION_ID]: {} } }],
    ['the extension with another MIME type', { extensions: { [VIEW_EXTENSION_ID]: { mimeTypes: ['text/html'] } } }],
    ['mimeTypes that is not a list', { extensions: { [VIEW_EXTENSION_ID]: { mimeTypes: VIEW_MIME_TYPE } } }],
  ])('2026-07-28 tools/list for a client declaring %s: no _meta', async (_label, capabilities) => {
    const { token } = await setup();
    const { result } = await (await modern('tools/list', {}, token, capabilities, { bindings: VIEW_ON })).json<any>();
    for (const tool of result.tools) expect(tool).not.toHaveProperty('_meta');
  });

  it('MCP_APPS_VIEW=off: no resources, no extension, no _meta; resources/* are Method not found', async () => {
    const { token } = await setup();
    const off = { bindings: VIEW_ON, env: testEnv({ MCP_APPS_VIEW: 'off' }) };
    const discover = await (await modern('server/discover', {}, token, {}, off)).json<any>();
    expect(discover.result.capabilities).toEqual({ tools: {} });
    const tools = await (await legacy('tools/list', {}, token, off)).json<any>();
    for (const tool of tools.result.tools) expect(tool).not.toHaveProperty('_meta');
    expect(await (await legacy('resources/read', { uri: VIEW_URI }, token, off)).json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32601, message: 'Method not found' },
    });
    expect((await modern('resources/list', {}, token, {}, off)).status).toBe(404);
    expect((await modern('resources/templates/list', {}, token, {}, off)).status).toBe(404);
  });

  it.each(['yes', 'true', 'ON', '1'])('MCP_APPS_VIEW=%s is a configuration error (503), never guessed', async (value) => {
    const { token } = await setup();
    const res = await legacy('tools/list', {}, token, { bindings: VIEW_ON, env: testEnv({ MCP_APPS_VIEW: value }) });
    expect(res.status).toBe(503);
  });
});

describe('a client without MCP Apps sees what it saw before the view', () => {
  /** The same request against the Worker with its view off (no ASSETS) and on. */
  async function offAndOn(send: (options: CallOptions) => Promise<Response>): Promise<[string, string]> {
    const off = await send({});
    const on = await send({ bindings: VIEW_ON });
    expect(off.status).toBe(200);
    expect(on.status).toBe(200);
    return [await off.text(), await on.text()];
  }

  it.each(Object.values(TOOLS))('tools/call %s: the same bytes in both eras, the payload embedded as it is', async (tool) => {
    const { token } = await setup();
    const call = { name: tool, arguments: { path: NOTE.path } };
    const [legacyOff, legacyOn] = await offAndOn((options) => legacy('tools/call', call, token, options));
    expect(legacyOn).toBe(legacyOff);
    const [modernOff, modernOn] = await offAndOn((options) => modern('tools/call', call, token, {}, options));
    expect(modernOn).toBe(modernOff);
    // The bytes are the SDK's envelope around the one payload serialization, with nothing of the view in them.
    const payload = JSON.stringify(JSON.parse(legacyOn).result.structuredContent);
    expect(legacyOn).toBe(`{"result":{"content":[{"type":"text","text":${JSON.stringify(payload)}}],"structuredContent":${payload}},"jsonrpc":"2.0","id":3}`);
    expect(legacyOn).not.toContain('ui://');
  });

  it('tools/list differs only in each tool\'s _meta (2025 era), and not at all on 2026-07-28', async () => {
    const { token } = await setup();
    const [legacyOff, legacyOn] = await offAndOn((options) => legacy('tools/list', {}, token, options));
    const off = JSON.parse(legacyOff).result;
    const on = JSON.parse(legacyOn).result;
    expect(withoutMeta(on.tools)).toEqual(off.tools);
    expect(Object.keys(on)).toEqual(Object.keys(off));
    const [modernOff, modernOn] = await offAndOn((options) => modern('tools/list', {}, token, {}, options));
    expect(modernOn).toBe(modernOff);
  });
});
