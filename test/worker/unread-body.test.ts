// Whatever a route leaves unread of a request body is read to its end before the answer leaves
// (src/index.ts, src/bounded-read.ts discardUnreadBody), so the exchange ends as an ordinary one and
// the client's connection carries its next request (RFC 9112 section 9.3; what the connection then
// does under wrangler dev is test/e2e/early-refusal-keep-alive.test.ts). Through the Worker's own
// entry, with request bodies that count what was read of them.
import { describe, expect, it } from 'vitest';
import { MAX_DISCARDED_BYTES } from '../../src/bounded-read';
import { seedNotes, uniqueUser } from '../support/worker/canister';
import { MCP_HEADERS, REST_ROUTES, callWorker, mintToken } from '../support/worker/harness';

const MiB = 1024 * 1024;

/** A body of `bytes` bytes in 64 KiB chunks: how much was read of it and whether it was cancelled. */
function countedBody(bytes: number) {
  const counted = { read: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counted.read >= bytes) return controller.close();
      const chunk = new Uint8Array(Math.min(64 * 1024, bytes - counted.read)).fill(0x20);
      counted.read += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      counted.cancelled = true;
    },
  });
  return { body, counted };
}

async function tokenFor(label: string): Promise<string> {
  const user = uniqueUser(label);
  await seedNotes(user, 'default', [{ path: 'a.md', body: '# A\n' }]);
  return mintToken({ sub: user, role: 'viewer' });
}

describe('a request body left unread is read to its end before the answer', () => {
  it('MCP, 2 MiB without a length: 413, and the whole body read', async () => {
    const { body, counted } = countedBody(2 * MiB);
    const res = await callWorker('/mcp', { method: 'POST', token: await tokenFor('unread-mcp'), headers: MCP_HEADERS, body });
    expect(res.status).toBe(413);
    expect(counted).toEqual({ read: 2 * MiB, cancelled: false });
  });

  it('a REST route, which reads no body: its answer (405 for a POST), and the whole body read', async () => {
    const { body, counted } = countedBody(2 * MiB);
    const res = await callWorker(`${REST_ROUTES.note_outline}?path=a.md`, { method: 'POST', token: await tokenFor('unread-rest'), body });
    expect(res.status).toBe(405);
    expect(counted).toEqual({ read: 2 * MiB, cancelled: false });
  });

  it(`past ${MAX_DISCARDED_BYTES} bytes more the rest is cancelled: bounded work for any body`, async () => {
    const { body, counted } = countedBody(4 * MAX_DISCARDED_BYTES);
    const res = await callWorker('/mcp', { method: 'POST', token: await tokenFor('unread-bound'), headers: MCP_HEADERS, body });
    expect(res.status).toBe(413);
    expect(counted.cancelled).toBe(true);
    expect(counted.read).toBeLessThanOrEqual(MiB + MAX_DISCARDED_BYTES + 3 * 64 * 1024);
  });

  it('a message within the cap is read by its route and answered as ever', async () => {
    const message = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    const res = await callWorker('/mcp', { method: 'POST', token: await tokenFor('unread-ok'), headers: MCP_HEADERS, body: message });
    expect(res.status).toBe(200);
  });
});
