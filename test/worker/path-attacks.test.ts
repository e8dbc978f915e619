/**
 * Path and vault attacks. Payloads are generated from
 * templates; each must be refused on every contract's REST route (400, fixed
 * body) and MCP tool ('Invalid path'), before the canister is
 * contacted, with the raw input in no response and no log line. The served
 * side proves the guard is not a blanket refusal: what the hosted
 * normalizer turns into a plain file name is read and answered with the
 * normalized path.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildContract, decodeWireFrontmatter, type ContractName } from '../../src/contracts';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { MCP_HEADERS, REST_ROUTES, TOOLS, callTool, callWorker, mintToken, restGet, toolText } from '../support/worker/harness';

const INVALID_PATH_REST = JSON.stringify({ error: 'Invalid path', code: 'INVALID_PATH' });
const INVALID_VAULT_REST = JSON.stringify({ error: 'Invalid vault', code: 'INVALID_VAULT' });
const INVALID_PATH_TOOL = JSON.stringify({ error: 'Invalid path', code: 'UPSTREAM_ERROR' });
const CONTRACT_NAMES = Object.keys(REST_ROUTES) as ContractName[];

// ---------------------------------------------------------------- payload generation

const SEGMENTS = ['notes', 'sub', 'x.md'];
const SEPARATORS = ['/', '\\'];

/** '..' inserted before every segment, at the end, and replacing every segment, with '/' and '\' separators. */
function dotDotEverywhere(): string[] {
  const out: string[] = [];
  for (const sep of SEPARATORS) {
    for (let at = 0; at <= SEGMENTS.length; at += 1) {
      out.push([...SEGMENTS.slice(0, at), '..', ...SEGMENTS.slice(at)].join(sep));
    }
    for (let at = 0; at < SEGMENTS.length; at += 1) {
      out.push(SEGMENTS.map((segment, i) => (i === at ? '..' : segment)).join(sep));
    }
  }
  out.push('..', '../', '..\\', '../../../../etc/passwd', '..\\..\\..\\windows\\win.ini', 'notes/../../x.md', 'a/./../b.md');
  out.push('notes/..\\x.md', 'notes\\../x.md', ' ../x.md', '../x.md ', '\t..\\x.md', 'notes/..', 'notes/sub/..\\..\\..\\x.md');
  return out;
}

/** Encodings of '.', '/', '\' that survive the single URL decode of the query string. */
const ENCODED_DOTS = ['%2e%2e', '%2E%2E', '%2E%2e', '%2e%2E', '.%2e', '%2e.', '%252e%252e', '%252E%252e', '%25252e%25252e', '%2e%252e'];
const ENCODED_SEPARATORS = ['/', '%2f', '%2F', '%5c', '%5C', '%252f', '%255C', '\\'];

function encodedTraversal(): string[] {
  const out: string[] = [];
  for (const dots of ENCODED_DOTS) {
    for (const sep of ENCODED_SEPARATORS) {
      out.push(`${dots}${sep}secret.md`);
    }
    out.push(`notes/${dots}/x.md`, `notes/${dots}`);
  }
  for (const sep of ENCODED_SEPARATORS.filter((s) => s.startsWith('%'))) {
    out.push(`..${sep}secret.md`, `notes${sep}..${sep}..${sep}secret.md`);
  }
  // Nibble double-encoding: one lenient decode yields '%2e' / '%2f', a second one '.' / '/', as with '%252e'.
  out.push('%%32%65%%32%65/x.md', '%2%65%2%65/x.md', '%%32e%%32e/x.md', '..%%32%66secret.md');
  return out;
}

function driveAndUncForms(): string[] {
  return [
    'C:/x.md',
    'c:/x.md',
    'C:\\x.md',
    'C:\\Windows\\win.ini',
    'z:/notes/x.md',
    '  C:/x.md',
    'C:%2fx.md',
    'C:%5cx.md',
    'C:%252fx.md',
    '\\\\server\\share\\x.md',
    '\\\\server\\share',
    '//server/share/x.md',
    '\\\\?\\C:\\x.md',
    '\\\\.\\pipe\\x',
    '\\/server/x.md',
    '/\\server\\x.md',
  ];
}

function absoluteForms(): string[] {
  return ['/x.md', '//x.md', '///x.md', '/etc/passwd', ' /x.md', '\\x.md', '\\\\x.md', '/notes/x.md', '/', '//', '\\', '%2fx.md', '%5cx.md', '%252fetc%252fpasswd'];
}

function nulForms(): string[] {
  return ['notes/x.md\0', '\0', 'x\0.md', '\0../x.md', 'notes/\0/x.md', 'x.md\0.png'];
}

/** Characters that render (or NFKC-fold) like '.', '/' or '\'. */
const LOOKALIKE_DOTS = ['\u2024', '\uFE52', '\uFF0E', '\u3002', '\uFF61'];
const LOOKALIKE_SLASHES = ['\u2215', '\u2044', '\uFF0F', '\u29F8', '\u2571', '\uFF3C', '\u29F9', '\u2216', '\uFE68'];
const TWO_DOT_FORMS = ['\u2025', '\uFE30'];

function lookalikeForms(): string[] {
  const out: string[] = [];
  for (const dot of LOOKALIKE_DOTS) {
    out.push(`${dot}${dot}/x.md`, `.${dot}/x.md`, `notes/${dot}${dot}/x.md`, `notes/${dot}.`);
  }
  for (const slash of LOOKALIKE_SLASHES) {
    out.push(`..${slash}x.md`, `notes${slash}..${slash}x.md`);
  }
  for (const twoDots of TWO_DOT_FORMS) {
    out.push(`${twoDots}/x.md`, `notes/${twoDots}/x.md`, `${twoDots}\u2215x.md`);
  }
  out.push('\uFF0E\uFF0E\uFF0F\uFF0E\uFF0E\uFF0Fetc\uFF0Fpasswd');
  // Fullwidth percent signs and hex digits: NFKC folds them into '%2e%2e' / '%2f', an encoded traversal.
  out.push('\uFF05\uFF12\uFF45\uFF05\uFF12\uFF45/x.md', '%\uFF12\uFF45%\uFF12\uFF45/x.md', '\uFF052e\uFF052e/x.md', '..\uFF052fx.md');
  return out;
}

/** Every C0 control and DEL, raw and percent-encoded (once and twice), plus C1 controls. */
function controlForms(): string[] {
  const out: string[] = [];
  for (let code = 0; code <= 0x7f; code = code === 0x1f ? 0x7f : code + 1) {
    const ch = String.fromCharCode(code);
    const hex = code.toString(16).padStart(2, '0');
    out.push(`notes/x${ch}.md`, `notes/x.md%${hex}.txt`, `notes/x%25${hex.toUpperCase()}.md`);
  }
  out.push('x.md%00.txt', 'notes/%0a/x.md', 'x%0d%0a.md', 'x%7f.md', 'x%7F.md', 'x%2500.md', 'x%252500.md', '%%30%30x.md');
  out.push('\uFF05\uFF10\uFF10x.md', '\uFF05\uFF10a.md');
  // C1 controls (U+0080-U+009F), raw and as the UTF-8 escapes a lenient store would decode.
  out.push('x\u0080.md', 'x\u0085.md', 'notes/\u009f/x.md', 'x%c2%85.md', 'x%C2%9F.md', 'x%25C2%2580.md');
  return out;
}

/** Segments a lenient store reads as '.' or '..' (whitespace, default-ignorables, ';' suffix). */
const DOT_DECORATIONS = [
  ' ',
  '\u00A0',
  '\u2000',
  '\u2007',
  '\u200A',
  '\u2028',
  '\u3000',
  '\u1680',
  '\u200B',
  '\u200C',
  '\u200D',
  '\u00AD',
  '\u034F',
  '\u061C',
  '\u180E',
  '\u2060',
  '\u2064',
  '\u202E',
  '\uFE0F',
  '\uFEFF',
  '\u3164',
  '\uFFA0',
  '\u{1BCA0}',
  '\u{1D173}',
  '\u{E0001}',
  '\u{E0FFF}',
];

function dotSegmentForms(): string[] {
  const out: string[] = [];
  for (const mark of DOT_DECORATIONS) {
    out.push(`proj/..${mark}/secret/x.md`, `${mark}..${mark}/x.md`, `proj/.${mark}./x.md`, `proj/.${mark}/x.md`, `proj/..${mark}`);
  }
  out.push('proj/..;x/secret/x.md', 'proj/..;/secret/x.md', 'proj/.. ;jsessionid=1/x.md', 'proj/.;x/x.md', 'proj/..;x\\secret\\x.md');
  out.push('proj/./x.md', './x.md', 'proj/.', 'proj/x.md/.');
  // The same spellings once a lenient store percent-decodes.
  out.push('proj/..%20/secret/x.md', 'proj/..%3bx/secret/x.md', 'proj/..%3Bx/secret/x.md', 'proj/..%C2%A0/secret/x.md');
  out.push('proj/..%E2%80%8B/secret/x.md', 'proj/..%C2%AD/secret/x.md', 'proj/..%EF%BB%BF/secret/x.md', 'proj/..%2520/secret/x.md');
  out.push('proj/%2e%2e%e2%80%8b/secret/x.md', 'proj/\uFF0E\uFF0E\u200B/secret/x.md', 'proj/\u2025\u00A0/secret/x.md');
  return out;
}

function overLongForms(): string[] {
  return ['a'.repeat(1025), `notes/${'x'.repeat(1020)}.md`, 'a/'.repeat(600) + 'x.md', 'x'.repeat(4096), `${'ab/'.repeat(4000)}x.md`];
}

const PATH_PAYLOADS = [
  ...new Set([
    ...dotDotEverywhere(),
    ...encodedTraversal(),
    ...driveAndUncForms(),
    ...absoluteForms(),
    ...nulForms(),
    ...lookalikeForms(),
    ...overLongForms(),
    ...controlForms(),
    ...dotSegmentForms(),
  ]),
];

/** Lone UTF-16 surrogates, as JSON (MCP) carries them; NON_UTF8_QUERIES has REST's spelling. */
const LONE_SURROGATES = ['\\ud800', 'x\\udfff.md', 'notes/\\ud83d/x.md', 'notes/\\udc00\\ud800.md', 'x.md\\udbff', '\\udc00'];

/**
 * REST `path` values whose percent-decoded bytes are not UTF-8: an encoded surrogate (the only way
 * a URL can try to carry one), overlong and truncated sequences, bytes UTF-8 never uses. A lenient
 * decode would read U+FFFD and fetch a different note; each is an invalid path.
 */
const NON_UTF8_QUERIES = [
  'path=%ED%A0%80a.md',
  'path=notes%2F%ED%B0%80.md',
  'path=%C0%AE%C0%AE%2Fa.md',
  'path=a%80.md',
  'path=%FF',
  'path=a%E2%82.md',
  'path=%F4%90%80%80.md',
  'path=%F0%9F%98.md',
];

/** Query strings naming `path` twice (or in a shape that is not exactly one `path`). */
const REPEATED_PATH_QUERIES = [
  'path=a.md&path=a.md',
  'path=a.md&path=b.md',
  'path=a.md&path=..%2Fx.md',
  'path=&path=a.md',
  'path=a.md&path=',
  'path[]=a.md',
  'PATH=a.md',
  'path=a.md&PATH=b.md&path=c.md',
];

const VAULT_PAYLOADS = [
  '..',
  '.',
  '../other',
  'a/b',
  'a\\b',
  'a.b',
  'a b',
  'a;b',
  "a'b",
  'a"b',
  '<script>',
  'a%2fb',
  'a:b',
  'a@b',
  '*',
  'a,b',
  'x'.repeat(65),
  'default/../other',
  'a+b',
  'a=b',
  '$(id)',
  'a\tb',
  'vault!',
  '%00',
];

// ---------------------------------------------------------------- observation

let logLines: string[] = [];
beforeEach(() => {
  logLines = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logLines.push(String(line)));
});
afterEach(() => vi.restoreAllMocks());

/** Strings whose presence in an output would echo the refused input. */
function echoForms(raw: string): string[] {
  return [raw, encodeURIComponent(raw), JSON.stringify(raw).slice(1, -1)].filter((form) => form.trim().length >= 2);
}

function expectNoEcho(raw: string, outputs: string[]) {
  for (const output of [...outputs, ...logLines]) {
    for (const form of echoForms(raw)) expect(output.includes(form), `echo of ${JSON.stringify(raw)}`).toBe(false);
  }
}

async function mcpToolResultText(tool: string, args: unknown, token: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await callWorker('/mcp', {
    method: 'POST',
    token,
    headers: { ...MCP_HEADERS, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
  });
  expect(res.status).toBe(200);
  return res.text();
}

/** The raw `query` is refused as an invalid path on every REST route, and `user`'s canister is never called. */
async function expectInvalidPathOnEveryRoute(query: string, user: string): Promise<void> {
  const token = await mintToken({ sub: user });
  for (const route of Object.values(REST_ROUTES)) {
    const res = await callWorker(`${route}?${query}`, { token });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe(INVALID_PATH_REST);
  }
  expect(await canisterRequests(user)).toEqual([]);
}

// ---------------------------------------------------------------- refusals

/** A test title in printable ASCII: the runner's transport refuses titles cut inside a surrogate pair. */
function asciiTitle(payload: string): string {
  const escaped = JSON.stringify(payload).replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > 60 ? `${escaped.slice(0, 60)}...` : escaped;
}

describe('path attacks', () => {
  it('generates at least 200 distinct payloads', () => {
    expect(PATH_PAYLOADS.length + REPEATED_PATH_QUERIES.length + VAULT_PAYLOADS.length).toBeGreaterThanOrEqual(200);
    expect(PATH_PAYLOADS.length).toBeGreaterThanOrEqual(200);
  });

  it.each(PATH_PAYLOADS.map((payload, index) => [index, asciiTitle(payload), payload]))(
    'payload #%i %s is refused on every route and tool before any fetch, without echo',
    async (_index, _title, raw) => {
      const user = uniqueUser('path');
      const token = await mintToken({ sub: user });
      const outputs: string[] = [];
      for (const contract of CONTRACT_NAMES) {
        const rest = await restGet(REST_ROUTES[contract], raw, { token });
        const text = await rest.text();
        expect(rest.status).toBe(400);
        expect(text).toBe(INVALID_PATH_REST);
        outputs.push(text);

        const rpcText = await mcpToolResultText(TOOLS[contract], { path: raw }, token);
        const rpc = JSON.parse(rpcText);
        expect(rpc.result.isError).toBe(true);
        expect(rpc.result.content).toEqual([{ type: 'text', text: INVALID_PATH_TOOL }]);
        outputs.push(rpcText);
      }
      expect(await canisterRequests(user)).toEqual([]);
      expect(logLines).toHaveLength(CONTRACT_NAMES.length * 2);
      for (const line of logLines) expect(JSON.parse(line)).toMatchObject({ outcome: 'INVALID_PATH', upstream: 'none' });
      expectNoEcho(raw, outputs);
    },
  );

  it.each(LONE_SURROGATES)('lone surrogate %s is an invalid path on every MCP tool, never a 500, before any fetch', async (escaped) => {
    const raw = JSON.parse(`"${escaped}"`) as string;
    expect(/[\uD800-\uDFFF]/u.test(raw)).toBe(true);
    const user = uniqueUser('surrogate');
    const token = await mintToken({ sub: user });
    for (const contract of CONTRACT_NAMES) {
      // The JSON text carries the escape, exactly as a client would send it.
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${TOOLS[contract]}","arguments":{"path":"${escaped}"}}}`;
      const res = await callWorker('/mcp', { method: 'POST', token, headers: MCP_HEADERS, body });
      expect(res.status).toBe(200);
      const rpc = await res.json<any>();
      expect(rpc.result.isError).toBe(true);
      expect(rpc.result.content).toEqual([{ type: 'text', text: INVALID_PATH_TOOL }]);
    }
    expect(await canisterRequests(user)).toEqual([]);
    for (const line of logLines) expect(JSON.parse(line)).toMatchObject({ outcome: 'INVALID_PATH', upstream: 'none' });
  });

  it.each(REPEATED_PATH_QUERIES)('query %j (path not given exactly once) is refused before any fetch', async (query) => {
    const user = uniqueUser('path-twice');
    await seedNotes(user, 'default', [
      { path: 'a.md', body: '# A' },
      { path: 'b.md', body: '# B' },
      { path: 'c.md', body: '# C' },
    ]);
    await expectInvalidPathOnEveryRoute(query, user);
  });

  it.each(NON_UTF8_QUERIES)('query %s (path bytes not UTF-8) is an invalid path on every route, before any fetch', async (query) => {
    const user = uniqueUser('not-utf8');
    await expectInvalidPathOnEveryRoute(query, user);
    expect(logLines).toHaveLength(Object.keys(REST_ROUTES).length);
    for (const line of logLines) {
      expect(JSON.parse(line)).toMatchObject({ outcome: 'INVALID_PATH', upstream: 'none' });
      expect(line).not.toContain(query.slice('path='.length));
    }
  });

  it('a U+FFFD the client sent as UTF-8 is an ordinary char: the note is read', async () => {
    const user = uniqueUser('fffd');
    await seedNotes(user, 'default', [{ path: 'notes/\uFFFD.md', body: '# Replacement' }]);
    const token = await mintToken({ sub: user });
    const res = await callWorker(`${REST_ROUTES.note_outline}?path=notes%2F%EF%BF%BD.md`, { token });
    expect(res.status).toBe(200);
    expect((await res.json<any>()).path).toBe('notes/\uFFFD.md');
  });

  it.each(VAULT_PAYLOADS)('vault id %j is refused on REST and MCP before any fetch, without echo', async (vault) => {
    const user = uniqueUser('vault');
    await seedNotes(user, 'default', [{ path: 'x.md', body: '# X' }]);
    const token = await mintToken({ sub: user });
    const outputs: string[] = [];
    for (const contract of CONTRACT_NAMES) {
      const rest = await restGet(REST_ROUTES[contract], 'x.md', { token, headers: { 'X-Vault-Id': vault } });
      const text = await rest.text();
      expect(rest.status).toBe(400);
      expect(text).toBe(INVALID_VAULT_REST);
      outputs.push(text);
    }
    const mcp = await callWorker('/mcp', {
      method: 'POST',
      token,
      headers: { ...MCP_HEADERS, 'X-Vault-Id': vault },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOLS.note_outline, arguments: { path: 'x.md' } } }),
    });
    const mcpText = await mcp.text();
    expect(mcp.status).toBe(400);
    expect(mcpText).toBe(JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid vault' }, id: null }));
    outputs.push(mcpText);
    expect(await canisterRequests(user)).toEqual([]);
    if (vault.trim().length >= 2) expectNoEcho(vault, outputs);
  });

  it('a 64-character vault id at the edge of the pattern is accepted', async () => {
    const user = uniqueUser('vault-edge');
    const vault = `v${'_-9Z'.repeat(15)}abc`;
    expect(vault).toHaveLength(64);
    await seedNotes(user, vault, [{ path: 'x.md', body: '# Edge vault' }]);
    const token = await mintToken({ sub: user });
    const res = await restGet(REST_ROUTES.note_outline, 'x.md', { token, headers: { 'X-Vault-Id': vault } });
    expect(res.status).toBe(200);
    expect((await res.json<any>()).headings[0].text).toBe('Edge vault');
    const [request] = await canisterRequests(user);
    expect(request.headers['x-vault-id']).toBe(vault);
  });
});

// ---------------------------------------------------------------- what is served

/** [what the client sends, what the canister is asked for and the payload names]. */
const SERVED: Array<[string, string]> = [
  ['served\\back\\slash.md', 'served/back/slash.md'],
  ['served//double//slash.md', 'served/double/slash.md'],
  ['served///triple\\\\mixed.md', 'served/triple/mixed.md'],
  ['  served/trimmed.md  ', 'served/trimmed.md'],
  ['served/trailing.md/', 'served/trailing.md'],
  ['served/100% sure.md', 'served/100% sure.md'],
  ['served/%41%zz.md', 'served/%41%zz.md'],
  ['served/.. a.md', 'served/.. a.md'],
  ['served/x;..md', 'served/x;..md'],
  ['served/;../x.md', 'served/;../x.md'],
  ['served/\u200B/x.md', 'served/\u200B/x.md'],
  ['served/caf%C3%A9.md', 'served/caf%C3%A9.md'],
  ['served/\u2028line.md', 'served/\u2028line.md'],
  ['C:name.md', 'C:name.md'],
  ['served/x:y.md', 'served/x:y.md'],
  ['served/...md', 'served/...md'],
  ['served/.../deep.md', 'served/.../deep.md'],
  ['served/..hidden.md', 'served/..hidden.md'],
  ['served/name...md', 'served/name...md'],
  ['served/.dotfile.md', 'served/.dotfile.md'],
  ['served/one\u2024dot.md', 'served/one\u2024dot.md'],
  ['served/caf\u00e9/\u65e5\u672c.md', 'served/caf\u00e9/\u65e5\u672c.md'],
  ['served/a%2ename.md', 'served/a%2ename.md'],
  ['served/100%25.md', 'served/100%25.md'],
  [`served/${'x'.repeat(1024 - 'served/'.length - '.md'.length)}.md`, `served/${'x'.repeat(1024 - 'served/'.length - '.md'.length)}.md`],
];

describe('paths the normalizer serves', () => {
  it('the long legal path is exactly 1,024 characters', () => {
    const long = SERVED[SERVED.length - 1][0];
    expect(long).toHaveLength(1024);
  });

  it.each(SERVED)('%j is served as %j on every route and tool', async (sent, normalized) => {
    const user = uniqueUser('served');
    const frontmatter = { title: 'Served note', tags: ['ok'] };
    const body = '# Served\n\nText.\n\n## Part\n';
    await seedNotes(user, 'default', [{ path: normalized, frontmatter, body }]);
    const token = await mintToken({ sub: user });
    for (const contract of CONTRACT_NAMES) {
      const expected = JSON.stringify(buildContract(contract, normalized, decodeWireFrontmatter(JSON.stringify(frontmatter)), body));
      const rest = await restGet(REST_ROUTES[contract], sent, { token });
      expect(rest.status).toBe(200);
      expect(await rest.text()).toBe(expected);
      const rpc = await callTool(TOOLS[contract], { path: sent }, { token });
      expect(rpc.result.isError).toBeUndefined();
      expect(rpc.result.content[0].text).toBe(expected);
      expect(toolText(rpc).path).toBe(JSON.parse(expected).path);
    }
    const requests = await canisterRequests(user);
    expect(requests).toHaveLength(CONTRACT_NAMES.length * 2);
    for (const request of requests) expect(request.url).toBe(`/api/v1/notes/${encodeURIComponent(normalized)}`);
  });
});
