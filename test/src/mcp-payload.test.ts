// The single serialization of a tool payload in an MCP answer (src/http/mcp-payload.ts): the
// bytes sent are exactly what JSON.stringify of the SDK's envelope with the real result would be.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { embedPayload, payloadStandIns } from '../../src/http/mcp-payload';

/** What the SDK serializes: its envelope, with the stand-ins where the payload goes. */
function sdkAnswer(standIns: { content: string; structuredContent: string }, structuredFirst = false): Response {
  const result = structuredFirst
    ? { structuredContent: standIns.structuredContent, content: standIns.content }
    : { content: standIns.content, structuredContent: standIns.structuredContent };
  return new Response(JSON.stringify({ result, jsonrpc: '2.0', id: 7 }), { status: 200, headers: { 'Content-Type': 'application/json', 'Content-Length': '1' } });
}

/** What the SDK would have sent with the real result. */
function expectedAnswer(payload: unknown, structuredFirst = false): string {
  const text = JSON.stringify(payload);
  const content = [{ type: 'text', text }];
  const result = structuredFirst ? { structuredContent: payload, content } : { content, structuredContent: payload };
  return JSON.stringify({ result, jsonrpc: '2.0', id: 7 });
}

async function embedded(payload: unknown, structuredFirst = false): Promise<Response> {
  const standIns = payloadStandIns();
  return embedPayload(sdkAnswer(standIns, structuredFirst), JSON.stringify(payload), standIns);
}

describe('embedPayload', () => {
  it('equals the SDK serialization of the real result, for any JSON payload and either key order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.boolean(), async (payload, structuredFirst) => {
        expect(await (await embedded(payload, structuredFirst)).text()).toBe(expectedAnswer(payload, structuredFirst));
      }),
      { numRuns: 300 },
    );
  });

  it('escapes a large payload slice by slice without splitting a surrogate pair or an escape', async () => {
    // Astral characters, quotes, backslashes and controls straddle every 64 Ki-unit slice boundary.
    const heading = '\u{1F600}"\\\n\u0001é'.repeat(40_000);
    const payload = { schema: 'knowtation.note_outline/v1', headings: [{ level: 1, text: heading }] };
    const response = await embedded(payload);
    expect(response.headers.get('Content-Length')).toBeNull();
    expect(await response.text()).toBe(expectedAnswer(payload));
  });

  it('fresh stand-ins every time, and an answer without them is an error, never a silent answer', async () => {
    const a = payloadStandIns();
    const b = payloadStandIns();
    expect(a.content).not.toBe(b.content);
    const other = new Response(JSON.stringify({ result: { content: a.content, structuredContent: a.structuredContent } }), { status: 200 });
    await expect(embedPayload(other, '{}', b)).rejects.toThrow(/stand-ins/);
  });

  it('passes an answer that is not a 200 through untouched', async () => {
    const refused = new Response('{"error":1}', { status: 400 });
    expect(await embedPayload(refused, '{}', payloadStandIns())).toBe(refused);
  });
});
