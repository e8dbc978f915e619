import { afterEach, describe, expect, it, vi } from 'vitest';
import { seedNotes, setFault, uniqueUser } from '../support/worker/canister';
import { MCP_HEADERS, REST_ROUTES, TOOLS, callTool, callWorker, mintToken, restGet, testEnv } from '../support/worker/harness';

const ALLOWED_KEYS = ['rid', 'surface', 'op', 'outcome', 'upstream', 'ms', 'sections', 'truncated', 'reason', 'context', 'config', 'mcp', 'client', 'client_version'];

afterEach(() => vi.restoreAllMocks());

describe('structured log line', () => {
  it('one allowlisted line per request, under 512 bytes, with no note text, path, token or upstream text', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const user = uniqueUser('logs');
    const path = 'secret-folder/SENTINEL-PATH.md';
    await seedNotes(user, 'default', [
      { path, frontmatter: { title: 'SENTINEL-TITLE' }, body: '# SENTINEL-HEADING\n\nSENTINEL-BODY\n' },
      { path: 'fail.md', frontmatter: {}, body: '' },
    ]);
    await setFault(user, 'default', 'fail.md', { kind: 'status', status: 500, body: 'SENTINEL-UPSTREAM' });
    const token = await mintToken({ sub: user });

    const requests: Array<() => Promise<unknown>> = [
      () => restGet(REST_ROUTES.section_source, path, { token }),
      () => restGet(REST_ROUTES.note_outline, 'fail.md', { token }),
      () => restGet(REST_ROUTES.note_outline, '../SENTINEL-REJECTED.md', { token }),
      () => restGet(REST_ROUTES.note_outline, path),
      () => callTool(TOOLS.document_tree, { path }, { token }),
      () => callTool(TOOLS.document_tree, { path: '../SENTINEL-REJECTED.md' }, { token }),
      () => callWorker('/nowhere/SENTINEL-ROUTE'),
      () => callTool(TOOLS.note_outline, { path, extra: 'SENTINEL-ARG' }, { token }),
      () => callWorker('/health'),
    ];
    for (const send of requests) await send();

    expect(lines).toHaveLength(requests.length);
    for (const line of lines) {
      expect(new TextEncoder().encode(line).byteLength).toBeLessThanOrEqual(512);
      const entry = JSON.parse(line);
      expect(Object.keys(entry)).toEqual(ALLOWED_KEYS);
      expect(line).not.toMatch(/SENTINEL|secret-folder/);
      expect(line).not.toContain(token);
    }
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries[0]).toMatchObject({ surface: 'rest', op: 'section_source', outcome: 'ok', upstream: '2xx', sections: 1, truncated: false, reason: null });
    expect(entries[1]).toMatchObject({ outcome: 'BAD_GATEWAY', upstream: '5xx' });
    expect(entries[2]).toMatchObject({ outcome: 'INVALID_PATH', upstream: 'none' });
    expect(entries[3]).toMatchObject({ outcome: 'UNAUTHORIZED', reason: 'missing' });
    expect(entries[4]).toMatchObject({ surface: 'mcp', op: 'get_document_tree', outcome: 'ok', upstream: '2xx', sections: 1 });
    expect(entries[5]).toMatchObject({ surface: 'mcp', op: 'get_document_tree', outcome: 'INVALID_PATH' });
    expect(entries[6]).toMatchObject({ outcome: 'NOT_FOUND' });
    // The outcome names what the client was told ('Invalid arguments'), not an invalid path.
    expect(entries[7]).toMatchObject({ surface: 'mcp', op: 'get_note_outline', outcome: 'INVALID_ARGUMENTS', upstream: 'none' });
  });

  it('names why a token was refused, in the log only: the responses stay byte-identical', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const user = uniqueUser('logs-reason');
    const expired = await mintToken({ sub: user, exp: Math.floor(Date.now() / 1000) - 3600 }, { expiresIn: null });
    const wrongKey = await mintToken({ sub: user }, { secret: 'another-secret-that-is-long-enough-0123456789' });
    const bodies: string[] = [];
    const challenges: Array<string | null> = [];
    for (const token of [expired, wrongKey]) {
      const rest = await restGet(REST_ROUTES.note_outline, 'x.md', { token });
      expect(rest.status).toBe(401);
      bodies.push(await rest.text());
      challenges.push(rest.headers.get('WWW-Authenticate'));
    }
    expect(bodies[0]).toBe(bodies[1]);
    expect(challenges[0]).toBe(challenges[1]);
    expect(lines.map((line) => JSON.parse(line).reason)).toEqual(['expired', 'bad_signature']);
    expect(lines.map((line) => JSON.parse(line).outcome)).toEqual(['UNAUTHORIZED', 'UNAUTHORIZED']);
  });
});

describe('a misconfigured Worker says what is wrong, by name only', () => {
  // Three bad values; each is a sentinel that must never appear in a log line or a response.
  const BAD = {
    CANISTER_URL: 'SENTINEL-not-a-url',
    SESSION_SECRET: 'SENTINEL-short',
    CANISTER_TIMEOUT_MS: '999999',
  };
  const NAMES = ['CANISTER_URL', 'SESSION_SECRET', 'CANISTER_TIMEOUT_MS'];

  it('every request\'s log line carries `config`: the failing variable names, nothing else', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const env = testEnv(BAD);
    const token = await mintToken({ sub: uniqueUser('cfg') });
    const answers = [
      await restGet(REST_ROUTES.note_outline, 'a.md', { token, env }),
      await callWorker('/mcp', { method: 'POST', token, env, headers: { 'Content-Type': 'application/json' }, body: '{}' }),
      await callWorker('/.well-known/oauth-protected-resource', { env }),
      await callWorker('/health', { env }),
    ];
    expect(answers.map((res) => res.status)).toEqual([503, 503, 503, 200]);
    const bodies = await Promise.all(answers.map((res) => res.text()));
    expect(lines).toHaveLength(answers.length);
    for (const line of lines) {
      expect(JSON.parse(line).config).toEqual(NAMES);
      expect(new TextEncoder().encode(line).byteLength).toBeLessThanOrEqual(512);
    }
    for (const text of [...lines, ...bodies]) {
      expect(text).not.toContain('SENTINEL');
      expect(text).not.toContain('999999');
    }
    // Responses still never say which variable failed.
    for (const body of bodies.slice(0, 3)) for (const name of NAMES) expect(body).not.toContain(name);
  });

  it('a valid configuration logs `config: null`', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    await callWorker('/health');
    expect(JSON.parse(lines[0]).config).toBeNull();
  });

  it('production /health stays a bare liveness answer, valid or not', async () => {
    for (const env of [testEnv(), testEnv(BAD), testEnv({ ...BAD, ENVIRONMENT: 'staging' })]) {
      const res = await callWorker('/health', { env });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('{"ok":true}');
    }
  });

  it('local /health reports the configuration: valid, or each failing variable and why, never a value', async () => {
    const valid = await callWorker('/health', { env: testEnv({ ENVIRONMENT: 'local' }) });
    expect(valid.status).toBe(200);
    expect(await valid.json()).toEqual({ ok: true, environment: 'local', config: { valid: true, problems: [] } });

    const invalid = await callWorker('/health', { env: testEnv({ ...BAD, ENVIRONMENT: 'local' }) });
    expect(invalid.status).toBe(200);
    const text = await invalid.text();
    expect(text).not.toContain('SENTINEL');
    expect(text).not.toContain('999999');
    expect(JSON.parse(text)).toEqual({
      ok: true,
      environment: 'local',
      config: {
        valid: false,
        problems: [
          { variable: 'CANISTER_URL', reason: 'not_a_url' },
          { variable: 'SESSION_SECRET', reason: 'too_short' },
          { variable: 'CANISTER_TIMEOUT_MS', reason: 'out_of_range' },
        ],
      },
    });

    const noKey = await callWorker('/health', { env: testEnv({ ENVIRONMENT: 'local', SESSION_SECRET: undefined }) });
    expect((await noKey.json<any>()).config.problems).toEqual([{ variable: 'SESSION_SECRET', reason: 'no_verification_key' }]);
  });
});

describe('which client: the MCP revision and the client name and version', () => {
  function mcpLine(body: unknown, headers: Record<string, string>, token: string): Promise<Record<string, unknown>> {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    return callWorker('/mcp', { method: 'POST', token, headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) }).then(() => {
      vi.restoreAllMocks();
      expect(lines).toHaveLength(1);
      return JSON.parse(lines[0]);
    });
  }

  it('a 2025 initialize logs the revision answered and its clientInfo', async () => {
    const token = await mintToken({ sub: uniqueUser('logs-client') });
    const init = (protocolVersion: string, clientInfo: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo } });
    expect(await mcpLine(init('2025-06-18', { name: 'claude-ai', version: '0.9.1' }), {}, token)).toMatchObject({
      op: 'initialize',
      mcp: '2025-06-18',
      client: 'claude-ai',
      client_version: '0.9.1',
    });
    // An unknown requested revision is answered with the newest 2025 one; what the client sent is never logged.
    expect(await mcpLine(init('1999-01-01', { name: 'Cursor Desktop', version: 'v1 (beta)' }), {}, token)).toMatchObject({
      mcp: '2025-11-25',
      client: 'Cursor_Desktop',
      client_version: 'v1__beta_',
    });
  });

  it('a 2026-07-28 request logs the revision and the _meta clientInfo, also when it is refused', async () => {
    const token = await mintToken({ sub: uniqueUser('logs-client-26') });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'mcp-remote', version: '0.15.1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const body = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } };
    const ok = await mcpLine(body, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' }, token);
    expect(ok).toMatchObject({ outcome: 'ok', mcp: '2026-07-28', client: 'mcp-remote', client_version: '0.15.1' });
    const refused = await mcpLine(body, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call' }, token);
    expect(refused).toMatchObject({ outcome: 'HEADER_MISMATCH', client: 'mcp-remote', client_version: '0.15.1' });
  });

  it('hostile or overlong client values become short safe tokens or null, and the line stays bounded', async () => {
    const token = await mintToken({ sub: uniqueUser('logs-client-hostile') });
    const init = (clientInfo: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo } });
    const long = await mcpLine(init({ name: `SENTINEL${'x'.repeat(500)}`, version: '<script>' }), {}, token);
    expect(String(long.client).length).toBeLessThanOrEqual(32);
    expect(long.client_version).toBe('_script_');
    const empty = await mcpLine(init({ name: '\u202e\u0000', version: 7 }), {}, token);
    expect(empty).toMatchObject({ client: null, client_version: null });
    expect(await mcpLine({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, {}, token)).toMatchObject({ mcp: null, client: null });
  });
});
