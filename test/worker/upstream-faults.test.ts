/**
 * Upstream faults against the demo canister, a real
 * loopback HTTP server that misbehaves on request. Each fault must map to
 * its documented REST status/body (errors.ts restError) and MCP tool
 * message (mcpToolErrorMessage), with no upstream text, secret or note
 * sentinel in any response or log line, and the next request for a healthy
 * note must succeed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CanisterFault } from '../support/worker/canister';
import { canisterRequests, canisterSecret, seedNotes, setFault, uniqueUser } from '../support/worker/canister';
import { MCP_HEADERS, REST_ROUTES, TOOLS, callWorker, mintToken, restGet, testEnv } from '../support/worker/harness';

const FAULTY_PATH = 'faults/faulty note.md';
const HEALTHY_PATH = 'faults/healthy.md';
const NOTE_SENTINEL = 'NOTESENTINEL7c1e0b';
const UPSTREAM_SENTINEL = 'UPSTREAMSENTINEL93fa';
const FAULTY_NOTE = {
  path: FAULTY_PATH,
  frontmatter: { title: 'Faulty', secret_key: NOTE_SENTINEL },
  body: `# Faulty heading\n\n${NOTE_SENTINEL} body text\n`,
};
const HEALTHY_NOTE = { path: HEALTHY_PATH, frontmatter: { title: 'Healthy' }, body: '# Healthy heading\n\ntext\n' };
const SHORT_TIMEOUT_MS = '400';

interface Expected {
  status: number;
  rest: { error: string; code: string };
  /** The MCP tool error message. */
  tool: string;
  /** Log outcome and upstream status class. */
  upstream: '2xx' | '3xx' | '4xx' | '5xx' | 'none';
}

const badGateway = (error: string, tool: string, upstream: Expected['upstream']): Expected => ({
  status: 502,
  rest: { error, code: 'BAD_GATEWAY' },
  tool,
  upstream,
});
const INVALID_NOTE = badGateway('Invalid note response', 'Runtime failure', '2xx');
const UNREACHABLE = badGateway('Bad Gateway', 'Runtime failure', 'none');
const TIMEOUT: Expected = { status: 504, rest: { error: 'Upstream timeout', code: 'UPSTREAM_TIMEOUT' }, tool: 'Upstream timeout', upstream: 'none' };
const TIMEOUT_AFTER_HEADERS: Expected = { ...TIMEOUT, upstream: '2xx' };
const TOO_LARGE: Expected = { status: 422, rest: { error: 'Note too large', code: 'NOTE_TOO_LARGE' }, tool: 'Note too large', upstream: '2xx' };
const upstreamStatus = (status: number): Expected => ({
  status: 502,
  rest: { error: `Upstream ${status}`, code: 'BAD_GATEWAY' },
  tool: `Upstream ${status}`,
  upstream: status < 400 ? '3xx' : status < 500 ? '4xx' : '5xx',
});
const denied = (status: number): Expected => ({
  status: 403,
  rest: { error: 'Forbidden', code: 'FORBIDDEN' },
  tool: `Upstream ${status}`,
  upstream: '4xx',
});

/** An upstream error body carrying the gateway secret and a note sentinel. */
const leakyBody = () =>
  JSON.stringify({ error: `${UPSTREAM_SENTINEL} gateway=${canisterSecret()}`, note: NOTE_SENTINEL, stack: 'at canister.rs:42' });

interface FaultCase {
  name: string;
  fault: () => CanisterFault;
  expected: Expected;
  env?: Record<string, string>;
}

const FAULTS: FaultCase[] = [
  { name: 'reset before any response', fault: () => ({ kind: 'reset' }), expected: UNREACHABLE },
  { name: 'reset mid-body', fault: () => ({ kind: 'reset-mid-body' }), expected: { ...UNREACHABLE, upstream: '2xx' } },
  { name: 'no response ever (timeout)', fault: () => ({ kind: 'hang' }), expected: TIMEOUT, env: { CANISTER_TIMEOUT_MS: SHORT_TIMEOUT_MS } },
  {
    name: 'headers then a body that never ends (timeout)',
    fault: () => ({ kind: 'hang-body' }),
    expected: TIMEOUT_AFTER_HEADERS,
    env: { CANISTER_TIMEOUT_MS: SHORT_TIMEOUT_MS },
  },
  {
    name: 'slow drip past the deadline',
    fault: () => ({ kind: 'drip', chunks: 40, intervalMs: 150 }),
    expected: TIMEOUT_AFTER_HEADERS,
    env: { CANISTER_TIMEOUT_MS: SHORT_TIMEOUT_MS },
  },
  // Without a declared length the body is read chunk by chunk, not whole: the deadline ends that read too.
  {
    name: 'chunked headers then a body that never ends (timeout)',
    fault: () => ({ kind: 'hang-body', chunked: true }),
    expected: TIMEOUT_AFTER_HEADERS,
    env: { CANISTER_TIMEOUT_MS: SHORT_TIMEOUT_MS },
  },
  {
    name: 'chunked slow drip past the deadline',
    fault: () => ({ kind: 'drip', chunks: 40, intervalMs: 150, chunked: true }),
    expected: TIMEOUT_AFTER_HEADERS,
    env: { CANISTER_TIMEOUT_MS: SHORT_TIMEOUT_MS },
  },
  { name: 'upstream 401', fault: () => ({ kind: 'status', status: 401, body: leakyBody() }), expected: denied(401) },
  { name: 'upstream 403', fault: () => ({ kind: 'status', status: 403, body: leakyBody() }), expected: denied(403) },
  {
    name: 'upstream 404 with a leaky body',
    fault: () => ({ kind: 'status', status: 404, body: leakyBody() }),
    expected: { status: 404, rest: { error: 'Not found', code: 'NOT_FOUND' }, tool: 'Upstream 404', upstream: '4xx' },
  },
  { name: 'upstream 409', fault: () => ({ kind: 'status', status: 409, body: leakyBody() }), expected: upstreamStatus(409) },
  { name: 'upstream 429', fault: () => ({ kind: 'status', status: 429, body: leakyBody() }), expected: upstreamStatus(429) },
  { name: 'upstream 500', fault: () => ({ kind: 'status', status: 500, body: leakyBody() }), expected: upstreamStatus(500) },
  { name: 'upstream 502', fault: () => ({ kind: 'status', status: 502, body: leakyBody() }), expected: upstreamStatus(502) },
  { name: 'upstream 503', fault: () => ({ kind: 'status', status: 503, body: leakyBody() }), expected: upstreamStatus(503) },
  {
    name: 'upstream 500 as HTML carrying the secret',
    fault: () => ({ kind: 'status', status: 500, body: `<html><pre>${leakyBody()}</pre></html>`, contentType: 'text/html' }),
    expected: upstreamStatus(500),
  },
  {
    name: 'upstream redirect (not followed)',
    fault: () => ({ kind: 'status', status: 302, body: leakyBody() }),
    expected: upstreamStatus(302),
  },
  {
    name: 'HTML instead of JSON',
    fault: () => ({ kind: 'text', body: `<!doctype html><title>${UPSTREAM_SENTINEL}</title><p>${NOTE_SENTINEL}</p>`, contentType: 'text/html' }),
    expected: INVALID_NOTE,
  },
  {
    name: 'truncated JSON',
    fault: () => ({ kind: 'text', body: `{"path":"x.md","frontmatter":"{}","body":"# ${NOTE_SENTINEL}` }),
    expected: INVALID_NOTE,
  },
  { name: 'empty 200 body', fault: () => ({ kind: 'text', body: '' }), expected: INVALID_NOTE },
  { name: 'JSON array', fault: () => ({ kind: 'text', body: JSON.stringify([FAULTY_NOTE]) }), expected: INVALID_NOTE },
  { name: 'JSON string', fault: () => ({ kind: 'text', body: JSON.stringify(`# ${NOTE_SENTINEL}`) }), expected: INVALID_NOTE },
  { name: 'JSON number', fault: () => ({ kind: 'text', body: '42' }), expected: INVALID_NOTE },
  { name: 'JSON null', fault: () => ({ kind: 'text', body: 'null' }), expected: INVALID_NOTE },
  {
    name: 'body as a number',
    fault: () => ({ kind: 'text', body: JSON.stringify({ path: FAULTY_PATH, frontmatter: '{}', body: 42 }) }),
    expected: INVALID_NOTE,
  },
  {
    name: 'body as an object',
    fault: () => ({ kind: 'text', body: JSON.stringify({ path: FAULTY_PATH, frontmatter: '{}', body: { text: `# ${NOTE_SENTINEL}` } }) }),
    expected: INVALID_NOTE,
  },
  {
    name: 'body as an array',
    fault: () => ({ kind: 'text', body: JSON.stringify({ path: FAULTY_PATH, frontmatter: '{}', body: [`# ${NOTE_SENTINEL}`] }) }),
    expected: INVALID_NOTE,
  },
  // The answer must name the note asked for; another path is a missing note.
  ...[
    ['another note', 'faults/other note.md'],
    ['the raw remainder the canister also looks up', 'faults%2Ffaulty%20note.md'],
    ['another case', 'faults/Faulty note.md'],
    ['a leading slash', `/${FAULTY_PATH}`],
    ['a trailing slash', `${FAULTY_PATH}/`],
    ['a trailing space', `${FAULTY_PATH} `],
    ['another vault', '../other-vault/faults/faulty note.md'],
    ['an empty path', ''],
  ].map(
    ([what, path]): FaultCase => ({
      name: `JSON path naming ${what}`,
      fault: () => ({ kind: 'text', body: JSON.stringify({ ...FAULTY_NOTE, path, frontmatter: JSON.stringify(FAULTY_NOTE.frontmatter) }) }),
      expected: { status: 404, rest: { error: 'Not found', code: 'NOT_FOUND' }, tool: 'Upstream 404', upstream: '2xx' },
    }),
  ),
  {
    name: 'JSON without a path (cannot be attributed)',
    fault: () => ({ kind: 'text', body: JSON.stringify({ frontmatter: '{}', body: `# ${NOTE_SENTINEL}` }) }),
    expected: INVALID_NOTE,
  },
  {
    name: 'JSON path null',
    fault: () => ({ kind: 'text', body: JSON.stringify({ path: null, frontmatter: '{}', body: `# ${NOTE_SENTINEL}` }) }),
    expected: INVALID_NOTE,
  },
  {
    name: 'JSON path as an array holding the right path',
    fault: () => ({ kind: 'text', body: JSON.stringify({ path: [FAULTY_PATH], frontmatter: '{}', body: `# ${NOTE_SENTINEL}` }) }),
    expected: INVALID_NOTE,
  },
  { name: 'a 20 MB streamed body', fault: () => ({ kind: 'huge', bytes: 20_000_000 }), expected: TOO_LARGE },
  { name: 'a 20 MB body with Content-Length', fault: () => ({ kind: 'huge', bytes: 20_000_000, declareLength: true }), expected: TOO_LARGE },
  { name: 'a body just over the 8 MiB wire cap', fault: () => ({ kind: 'huge', bytes: 8 * 1024 * 1024 }), expected: TOO_LARGE },
  // The runtime decodes gzip: 9 MB of JSON declared as some 30 KB must still be cut at the 8 MiB cap,
  // here with a short note and the bulk in a field no reader looks at, so only that cap refuses it.
  { name: 'a gzip body whose decoded JSON is over the cap', fault: () => ({ kind: 'gzip', bytes: 100, padBytes: 9_000_000 }), expected: TOO_LARGE },
];

let logLines: string[] = [];
beforeEach(() => {
  logLines = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logLines.push(String(line)));
});
afterEach(() => vi.restoreAllMocks());

async function setup() {
  const user = uniqueUser('fault');
  await seedNotes(user, 'default', [FAULTY_NOTE, HEALTHY_NOTE]);
  const token = await mintToken({ sub: user });
  return { user, token };
}

async function mcpCall(tool: string, path: string, token: string, env?: Record<string, string>): Promise<{ status: number; text: string }> {
  const res = await callWorker('/mcp', {
    method: 'POST',
    token,
    env,
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: tool, arguments: { path } } }),
  });
  return { status: res.status, text: await res.text() };
}

/** Nothing of the upstream's text, the gateway secret or the note's content in any output. */
function expectNothingLeaked(outputs: string[]) {
  for (const text of [...outputs, ...logLines]) {
    for (const secret of [UPSTREAM_SENTINEL, NOTE_SENTINEL, canisterSecret(), 'canister.rs', 'Injected', 'INJECTED_FAULT']) {
      expect(text).not.toContain(secret);
    }
  }
}

async function expectHealthyReadSucceeds(token: string, env?: Record<string, string>) {
  const rest = await restGet(REST_ROUTES.note_outline, HEALTHY_PATH, { token, env });
  expect(rest.status).toBe(200);
  expect((await rest.json<any>()).headings[0].text).toBe('Healthy heading');
  const mcp = await mcpCall(TOOLS.section_source, HEALTHY_PATH, token, env);
  expect(mcp.status).toBe(200);
  expect(JSON.parse(mcp.text).result.structuredContent.sections[0].heading_text).toBe('Healthy heading');
}

describe('upstream faults', () => {
  it.each(FAULTS)('$name -> $expected.status', async ({ fault, expected, env: overrides }) => {
    const { user, token } = await setup();
    await setFault(user, 'default', FAULTY_PATH, fault());
    const env = testEnv(overrides ?? {});
    const outputs: string[] = [];

    const rest = await restGet(REST_ROUTES.document_tree, FAULTY_PATH, { token, env });
    const restText = await rest.text();
    outputs.push(restText);
    expect(rest.status).toBe(expected.status);
    expect(restText).toBe(JSON.stringify(expected.rest));

    const mcp = await mcpCall(TOOLS.note_outline, FAULTY_PATH, token, env);
    outputs.push(mcp.text);
    expect(mcp.status).toBe(200);
    const rpc = JSON.parse(mcp.text);
    expect(rpc.result.isError).toBe(true);
    expect(rpc.result.content).toEqual([{ type: 'text', text: JSON.stringify({ error: expected.tool, code: 'UPSTREAM_ERROR' }) }]);
    expect(rpc.result.structuredContent).toBeUndefined();

    // One GET per request: no retry, no redirect follow.
    const faulty = (await canisterRequests(user)).filter((r) => r.url === `/api/v1/notes/${encodeURIComponent(FAULTY_PATH)}`);
    expect(faulty).toHaveLength(2);

    expect(logLines.map((line) => JSON.parse(line))).toMatchObject([
      { surface: 'rest', outcome: expected.rest.code, upstream: expected.upstream },
      { surface: 'mcp', op: TOOLS.note_outline, outcome: expected.rest.code, upstream: expected.upstream },
    ]);
    expectNothingLeaked(outputs);

    logLines = [];
    await expectHealthyReadSucceeds(token, env);
  });

  it('connection refused -> 502 Bad Gateway, then a reachable canister serves again', async () => {
    const { token } = await setup();
    const refusedEnv = testEnv({ CANISTER_URL: 'http://127.0.0.1:1' });
    const rest = await restGet(REST_ROUTES.section_source, FAULTY_PATH, { token, env: refusedEnv });
    const restText = await rest.text();
    expect(rest.status).toBe(502);
    expect(restText).toBe(JSON.stringify({ error: 'Bad Gateway', code: 'BAD_GATEWAY' }));
    const mcp = await mcpCall(TOOLS.metadata_facets, FAULTY_PATH, token, refusedEnv);
    expect(JSON.parse(mcp.text).result.content[0].text).toBe(JSON.stringify({ error: 'Runtime failure', code: 'UPSTREAM_ERROR' }));
    expect(logLines.map((line) => JSON.parse(line))).toMatchObject([
      { surface: 'rest', outcome: 'BAD_GATEWAY', upstream: 'none' },
      { surface: 'mcp', outcome: 'BAD_GATEWAY', upstream: 'none' },
    ]);
    for (const text of [restText, mcp.text, ...logLines]) expect(text).not.toMatch(/127\.0\.0\.1|refused|connect/i);
    await expectHealthyReadSucceeds(token);
  });

  it.each([false, true])('a slow drip that completes inside the deadline is served (chunked: %s)', async (chunked) => {
    const { user, token } = await setup();
    await setFault(user, 'default', FAULTY_PATH, { kind: 'drip', chunks: 4, intervalMs: 25, chunked });
    const env = testEnv({ CANISTER_TIMEOUT_MS: '3000' });
    const rest = await restGet(REST_ROUTES.note_outline, FAULTY_PATH, { token, env });
    expect(rest.status).toBe(200);
    expect((await rest.json<any>()).headings.map((h: any) => h.text)).toEqual(['Faulty heading']);
    const mcp = await mcpCall(TOOLS.document_tree, FAULTY_PATH, token, env);
    expect(JSON.parse(mcp.text).result.structuredContent.root.children[0].text).toBe('Faulty heading');
  });

  it('a gzip answer within the cap is decoded and served', async () => {
    const { user, token } = await setup();
    await setFault(user, 'default', FAULTY_PATH, { kind: 'gzip', bytes: 200_000 });
    const rest = await restGet(REST_ROUTES.note_outline, FAULTY_PATH, { token });
    expect(rest.status).toBe(200);
    expect((await rest.json<any>()).headings).toEqual([]);
  });

  it('a canister answer naming another path answers exactly as a missing note, without echoing it', async () => {
    const { user, token } = await setup();
    await seedNotes(user, 'default', [
      { path: FAULTY_PATH, raw: { path: '../other-vault/secret.md', frontmatter: '{"title":"Raw"}', body: `# ${NOTE_SENTINEL}` } },
    ]);
    const outputs: string[] = [];
    for (const [contract, route] of Object.entries(REST_ROUTES)) {
      const res = await restGet(route, FAULTY_PATH, { token });
      const missing = await restGet(route, 'faults/missing-twin-note.md', { token });
      expect(res.status, contract).toBe(404);
      const text = await res.text();
      expect(text).toBe(await missing.text());
      expect([...res.headers].filter(([n]) => n !== 'x-request-id')).toEqual([...missing.headers].filter(([n]) => n !== 'x-request-id'));
      outputs.push(text);
    }
    const mcp = await mcpCall(TOOLS.section_source, FAULTY_PATH, token);
    const missing = await mcpCall(TOOLS.section_source, 'faults/missing-twin-note.md', token);
    expect(mcp.text).toBe(missing.text);
    outputs.push(mcp.text);
    for (const text of [...outputs, ...logLines]) expect(text).not.toMatch(/other-vault|Raw/);
    expectNothingLeaked(outputs);
  });

  it('the path match is exact, code unit for code unit: NFC and NFD spellings are different notes', async () => {
    const { user, token } = await setup();
    const nfc = 'faults/caf\u00e9.md';
    const nfd = 'faults/cafe\u0301.md';
    await seedNotes(user, 'default', [{ path: nfc, raw: { path: nfd, frontmatter: '{}', body: '# Decomposed' } }]);
    const res = await restGet(REST_ROUTES.note_outline, nfc, { token });
    expect(res.status).toBe(404);
    await seedNotes(user, 'default', [{ path: nfc, raw: { path: nfc, frontmatter: '{}', body: '# Composed' } }]);
    const ok = await restGet(REST_ROUTES.note_outline, nfc, { token });
    expect(ok.status).toBe(200);
    expect((await ok.json<any>()).headings[0].text).toBe('Composed');
  });

  it('metadata facets over a 20 MB body still stops at the wire cap', async () => {
    const { user, token } = await setup();
    await setFault(user, 'default', FAULTY_PATH, { kind: 'huge', bytes: 20_000_000 });
    const res = await restGet(REST_ROUTES.metadata_facets, FAULTY_PATH, { token });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: 'Note too large', code: 'NOTE_TOO_LARGE' });
  });

  it('malformed frontmatter text is tolerated, not echoed', async () => {
    const { user, token } = await setup();
    await seedNotes(user, 'default', [{ path: FAULTY_PATH, frontmatter: `{"title": "T", ${NOTE_SENTINEL}`, body: '# Ok' }]);
    const res = await restGet(REST_ROUTES.metadata_facets, FAULTY_PATH, { token });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain(NOTE_SENTINEL);
  });
});
