// Nothing is lost after an early refusal: a request the Worker answers without reading its whole
// body (an MCP message over the 1 MiB cap, 413; a REST route, which reads no body) leaves its
// keep-alive connection ready for the next request (RFC 9112 section 9.3, persistence; section 6.3,
// message body length), because the Worker reads and discards the rest of the body before it answers
// (src/bounded-read.ts discardUnreadBody), or, for a body that declares more than it would discard,
// reads none of it. Against the e2e Worker under `wrangler dev`
// (its dev proxy in front, as `npm start` runs it), on one raw HTTP/1.1 connection per case, each
// next answer checked to be the Worker's own (its X-Request-Id and its body).
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { MAX_MCP_BODY_BYTES } from '../../src/http/mcp';
import { MAX_DISCARDED_BYTES } from '../../src/bounded-read';
import { mintViewerToken } from '../../scripts/token.mjs';
import { keepAliveConnection, type KeepAliveConnection, type RawAnswer } from '../support/node/raw-http';

const worker = new URL(inject('workerUrl'));
const HOST = worker.host;
const PORT = Number(worker.port);
const MiB = 1024 * 1024;
const NOTE = 'projects/Aurora/roadmap.md';
/** A bound on waiting for an answer that must come at once: past it the connection is stuck. */
const STUCK_AFTER_MS = 20_000;

let token = '';
beforeAll(async () => {
  token = await mintViewerToken('demo', 900, inject('sessionSecret'));
});

function mcpHead(framing: string): string {
  return [
    'POST /mcp HTTP/1.1',
    `Host: ${HOST}`,
    `Authorization: Bearer ${token}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    'MCP-Protocol-Version: 2025-11-25',
    framing,
    '',
    '',
  ].join('\r\n');
}

/** Writes a body as HTTP/1.1 chunks of 64 KiB (RFC 9112 section 7.1). */
async function writeChunked(connection: KeepAliveConnection, body: Uint8Array): Promise<void> {
  for (let at = 0; at < body.length; at += 64 * 1024) {
    const chunk = body.subarray(at, at + 64 * 1024);
    await connection.write(`${chunk.length.toString(16)}\r\n`);
    await connection.write(chunk);
    await connection.write('\r\n');
  }
  await connection.write('0\r\n\r\n');
}

/** JSON whitespace: a body whose size is all that matters. */
const blank = (bytes: number) => new Uint8Array(bytes).fill(0x20);

/** A valid tools/list message padded with trailing JSON whitespace to exactly `bytes`. */
function toolsListOf(bytes: number): Uint8Array {
  const message = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }));
  const body = blank(bytes);
  body.set(message);
  return body;
}

/** The Worker's own answer: every answer of the Worker carries its request id. */
function fromWorker(answer: RawAnswer): RawAnswer {
  expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  return answer;
}

/** Ordinary requests after the refusal, on the same connection: each answered by the Worker. */
async function expectConnectionServes(connection: KeepAliveConnection): Promise<void> {
  await connection.write(`GET /health HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
  const health = fromWorker(await connection.answer(STUCK_AFTER_MS));
  expect(health.status).toBe(200);
  expect(JSON.parse(health.body)).toEqual({ ok: true });

  const outline = `GET /api/v1/note-outline?path=${encodeURIComponent(NOTE)} HTTP/1.1\r\nHost: ${HOST}\r\nAuthorization: Bearer ${token}\r\n\r\n`;
  await connection.write(outline);
  const read = fromWorker(await connection.answer(STUCK_AFTER_MS));
  expect(read.status).toBe(200);
  expect(JSON.parse(read.body)).toMatchObject({ schema: 'knowtation.note_outline/v1', path: NOTE });

  // A message of exactly the cap, chunked: accepted (the refusal before it changed nothing).
  await connection.write(mcpHead('Transfer-Encoding: chunked'));
  await writeChunked(connection, toolsListOf(MAX_MCP_BODY_BYTES));
  const listed = fromWorker(await connection.answer(STUCK_AFTER_MS));
  expect(listed.status).toBe(200);
  expect(JSON.parse(listed.body)).toMatchObject({ jsonrpc: '2.0', id: 7, result: { tools: expect.any(Array) } });
}

const TOO_LARGE = { jsonrpc: '2.0', error: { code: -32600, message: 'Request body too large' }, id: null };

type Refused = { send: (connection: KeepAliveConnection) => Promise<void>; status: number; body: unknown };

const REFUSED_EARLY: Array<[string, Refused]> = [
  [
    'MCP, Content-Length one byte over the 1 MiB cap, the body sent whole: 413',
    {
      send: async (c) => (await c.write(mcpHead(`Content-Length: ${MAX_MCP_BODY_BYTES + 1}`)), c.write(blank(MAX_MCP_BODY_BYTES + 1))),
      status: 413,
      body: TOO_LARGE,
    },
  ],
  [
    'MCP, Content-Length 2 MiB, the body sent whole: 413',
    { send: async (c) => (await c.write(mcpHead(`Content-Length: ${2 * MiB}`)), c.write(blank(2 * MiB))), status: 413, body: TOO_LARGE },
  ],
  [
    'MCP, Content-Length past the 8 MiB the Worker would read to discard (10 MiB, sent whole): 413, the body never read',
    {
      send: async (c) => (await c.write(mcpHead(`Content-Length: ${MAX_DISCARDED_BYTES + 2 * MiB}`)), c.write(blank(MAX_DISCARDED_BYTES + 2 * MiB))),
      status: 413,
      body: TOO_LARGE,
    },
  ],
  [
    'MCP, chunked, 2 MiB: 413',
    { send: async (c) => (await c.write(mcpHead('Transfer-Encoding: chunked')), writeChunked(c, blank(2 * MiB))), status: 413, body: TOO_LARGE },
  ],
  [
    'REST, a GET with a 2 MiB body and no token: 401',
    {
      send: async (c) => (await c.write(`GET /api/v1/note-outline?path=a.md HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: ${2 * MiB}\r\n\r\n`), c.write(blank(2 * MiB))),
      status: 401,
      body: { error: 'Unauthorized', code: 'UNAUTHORIZED' },
    },
  ],
  [
    'REST, a POST with a chunked 2 MiB body: 405',
    {
      send: async (c) => (await c.write(`POST /api/v1/note-outline?path=a.md HTTP/1.1\r\nHost: ${HOST}\r\nTransfer-Encoding: chunked\r\n\r\n`), writeChunked(c, blank(2 * MiB))),
      status: 405,
      body: { error: 'Method not allowed', code: 'METHOD_NOT_ALLOWED' },
    },
  ],
];

describe('nothing lost after an early refusal (one keep-alive connection, wrangler dev)', () => {
  it('control: ordinary requests on one connection', async () => {
    const connection = await keepAliveConnection(PORT);
    try {
      await expectConnectionServes(connection);
    } finally {
      connection.close();
    }
  });

  it.each(REFUSED_EARLY)('%s, then the next requests on the connection are answered by the Worker', async (_label, refused) => {
    const connection = await keepAliveConnection(PORT);
    try {
      await refused.send(connection);
      const refusal = fromWorker(await connection.answer(STUCK_AFTER_MS));
      expect(refusal.status).toBe(refused.status);
      expect(JSON.parse(refusal.body)).toEqual(refused.body);
      await expectConnectionServes(connection);
    } finally {
      connection.close();
    }
  });
});
