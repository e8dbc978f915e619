/**
 * The JSON-RPC 2.0 envelope on /mcp: a body that is not JSON is -32700 Parse error; JSON that is
 * not a JSON-RPC request, notification or response is -32600 Invalid request (JSON-RPC 2.0,
 * section 5.1), with a fixed text, no echo and no canister read, whatever revision headers it
 * carries.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONTRACTS } from '../../src/contracts/registry';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { MCP_HEADERS, callWorker, mintToken } from '../support/worker/harness';

const MODERN = { 'MCP-Protocol-Version': '2026-07-28' };
const ERAS: Array<[string, Record<string, string>]> = [
  ['no revision header', {}],
  ['2025-11-25', { 'MCP-Protocol-Version': '2025-11-25' }],
  ['2026-07-28', MODERN],
];

let logLines: string[] = [];
beforeEach(() => {
  logLines = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logLines.push(String(line)));
});
afterEach(() => vi.restoreAllMocks());

async function post(body: string, headers: Record<string, string>, token: string): Promise<Response> {
  return callWorker('/mcp', { method: 'POST', token, headers: { ...MCP_HEADERS, ...headers }, body });
}

/** JSON that is no JSON-RPC 2.0 message. SENTINEL marks what must never be echoed. */
const NOT_JSON_RPC = [
  '42',
  '"SENTINEL"',
  'null',
  'true',
  '{}',
  '{"SENTINEL":1}',
  '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
  '{"jsonrpc":2,"id":1,"method":"tools/list"}',
  '{"id":1,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":1,"method":5}',
  '{"jsonrpc":"2.0","id":1,"method":null}',
  '{"jsonrpc":"2.0","id":1,"method":{"SENTINEL":1}}',
  '{"jsonrpc":"2.0","id":1}',
  '{"jsonrpc":"2.0","method":"tools/call","params":"SENTINEL"}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}',
  '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"SENTINEL"}}',
  '{"jsonrpc":"2.0","result":{"SENTINEL":1}}',
];

describe('JSON-RPC envelope on /mcp', () => {
  it.each(ERAS.flatMap(([era, headers]) => NOT_JSON_RPC.map((body) => [body, era, headers] as const)))(
    '%s (%s) is 400 -32600 Invalid request, no echo, no fetch',
    async (body, _era, headers) => {
      const user = uniqueUser('envelope');
      await seedNotes(user, 'default', [{ path: 'a.md', body: '# A' }]);
      const token = await mintToken({ sub: user });
      const res = await post(body, headers, token);
      const text = await res.text();
      expect(res.status).toBe(400);
      // JSON-RPC 2.0 section 5: the request's id whenever it could be read, else null.
      const sent = JSON.parse(body);
      const id = sent !== null && typeof sent === 'object' && 'id' in sent ? sent.id : null;
      expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id });
      expect(text).not.toContain('SENTINEL');
      expect(await canisterRequests(user)).toEqual([]);
      expect(logLines).toHaveLength(1);
      expect(JSON.parse(logLines[0] as string)).toMatchObject({ outcome: 'INVALID_REQUEST', upstream: 'none' });
      expect(logLines[0]).not.toContain('SENTINEL');
    },
  );

  it.each(ERAS)('positional params (%s) are 400 -32602 Invalid params: no MCP method takes them', async (_era, headers) => {
    const user = uniqueUser('envelope-array');
    const token = await mintToken({ sub: user });
    const res = await post('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["SENTINEL"]}', headers, token);
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', error: { code: -32602, message: 'Invalid params' }, id: 1 });
    expect(text).not.toContain('SENTINEL');
    expect(await canisterRequests(user)).toEqual([]);
    expect(JSON.parse(logLines[0] as string)).toMatchObject({ outcome: 'INVALID_PARAMS', upstream: 'none' });
  });

  it.each(['{', '{"jsonrpc":"2.0",', 'SENTINEL', '', '\u0000', '{"jsonrpc":"2.0"}}'])('body %j that is not JSON is 400 -32700 Parse error', async (body) => {
    const token = await mintToken({ sub: uniqueUser('parse') });
    const res = await post(body, {}, token);
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    expect(text).not.toContain('SENTINEL');
    expect(JSON.parse(logLines[0] as string)).toMatchObject({ outcome: 'PARSE_ERROR' });
  });

  it('requests (params left out, id 0), notifications and responses (an error with or without id) still pass the envelope', async () => {
    const token = await mintToken({ sub: uniqueUser('envelope-ok') });
    const legacy = { 'MCP-Protocol-Version': '2025-11-25' };
    const list = await post('{"jsonrpc":"2.0","id":0,"method":"tools/list"}', legacy, token);
    expect(list.status).toBe(200);
    const listed = await list.json<any>();
    expect(listed.id).toBe(0);
    expect(listed.result.tools).toHaveLength(CONTRACTS.length);
    const ping = await post('{"jsonrpc":"2.0","id":7,"method":"ping"}', legacy, token);
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    const note = await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', legacy, token);
    expect(note.status).toBe(202);
    for (const reply of [
      '{"jsonrpc":"2.0","id":"s-1","result":{}}',
      '{"jsonrpc":"2.0","id":"s-2","error":{"code":-32603,"message":"x"}}',
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}',
    ]) {
      expect((await post(reply, legacy, token)).status, reply).toBe(202);
    }
  });

  it('a byte order mark before the JSON is ignored, as RFC 8259 allows: the message is read', async () => {
    const token = await mintToken({ sub: uniqueUser('envelope-bom') });
    const list = await post('\uFEFF{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { 'MCP-Protocol-Version': '2025-11-25' }, token);
    expect(list.status).toBe(200);
    expect((await list.json<any>()).result.tools).toHaveLength(CONTRACTS.length);
  });
});
