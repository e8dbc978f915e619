// The bench's MCP floor (scripts/lib/bench-sdk-floor-worker.ts), in workerd: in every era the bench
// times, a tools/call is answered with a result (never an error, so the bench times a whole
// exchange), carrying the same JSON that GET /json answers without the SDK.
import { describe, expect, it } from 'vitest';
import floor from '../../scripts/lib/bench-sdk-floor-worker';

const ORIGIN = 'http://bench.example';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function toolsCall(era: '2025-11-25' | '2026-07-28'): Request {
  const params: Record<string, unknown> = { name: 'get_note_outline', arguments: { path: 'bench/fixed-small.md' } };
  const headers: Record<string, string> = { ...HEADERS, 'mcp-protocol-version': era };
  if (era === '2026-07-28') {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': era,
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    Object.assign(headers, { 'mcp-method': 'tools/call', 'mcp-name': params.name });
  }
  return new Request(`${ORIGIN}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }) });
}

describe('the bench MCP floor', () => {
  it.each(['2025-11-25', '2026-07-28'] as const)('answers a %s tools/call with a result holding what GET /json answers', async (era) => {
    const plain = await (await floor.fetch(new Request(`${ORIGIN}/json`))).text();
    const response = await floor.fetch(toolsCall(era));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: number; result?: { content: { type: string; text: string }[]; structuredContent: unknown }; error?: unknown };
    expect(body.error).toBeUndefined();
    expect(body.id).toBe(7);
    expect(body.result?.content).toEqual([{ type: 'text', text: plain }]);
    expect(body.result?.structuredContent).toEqual(JSON.parse(plain));
  });

  it('answers nothing else: a GET of /mcp and any other path are 404', async () => {
    expect((await floor.fetch(new Request(`${ORIGIN}/mcp`))).status).toBe(404);
    expect((await floor.fetch(new Request(`${ORIGIN}/health`))).status).toBe(404);
  });
});
