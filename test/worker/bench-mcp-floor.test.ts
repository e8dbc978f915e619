// The bench's MCP floor (scripts/bench/mcp-floor-worker.ts), in workerd: the bench's own
// tools/call (worker-api.ts toolCallRequest) is answered in every era it times with a result, never
// an error (so the bench times a whole exchange), carrying the JSON GET /json answers without the SDK.
import { describe, expect, it } from 'vitest';
import floor from '../../scripts/bench/mcp-floor-worker';
import { MCP_ERAS, toolCallRequest } from '../../scripts/lib/worker-api';

const BASE = new URL('http://bench.example');

describe('the bench MCP floor', () => {
  it.each(MCP_ERAS)('answers a %s tools/call with a result holding what GET /json answers', async (era) => {
    const plain = await (await floor.fetch(new Request(new URL('/json', BASE)))).text();
    const response = await floor.fetch(toolCallRequest(BASE, 'any-token', era, 'bench/small.md'));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: number; result?: { content: { type: string; text: string }[]; structuredContent: unknown }; error?: unknown };
    expect(body.error).toBeUndefined();
    expect(body.id).toBe(1);
    expect(body.result?.content).toEqual([{ type: 'text', text: plain }]);
    expect(body.result?.structuredContent).toEqual(JSON.parse(plain));
  });

  it('answers nothing else: a GET of /mcp and any other path are 404', async () => {
    expect((await floor.fetch(new Request(new URL('/mcp', BASE)))).status).toBe(404);
    expect((await floor.fetch(new Request(new URL('/health', BASE)))).status).toBe(404);
  });
});
