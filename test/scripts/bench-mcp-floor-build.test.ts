// The bench's MCP floor as the bench builds and serves it: buildMcpFloor bundles
// scripts/bench/mcp-floor-worker.ts with the Worker's own wrangler configuration, and the module it
// names answers the bench's own tools/call in workerd (Miniflare, its own socket) with a result in
// every era. test/worker/bench-mcp-floor.test.ts checks the same source under vitest's alias; this
// checks the build the bench runs.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMcpFloor, startLab, type Lab } from '../../scripts/bench/lab';
import { MCP_ERAS, toolCallRequest } from '../../scripts/lib/worker-api';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const outDir = mkdtempSync(path.join(os.tmpdir(), 'kt-sdk-floor-'));
let lab: Lab | undefined;
let base: URL;

beforeAll(async () => {
  const script = buildMcpFloor(repoRoot, outDir);
  // The floor reads no binding; the canister URL only completes the bench's setup.
  lab = await startLab('http://127.0.0.1:9', [{ name: 'sdk', scriptPath: script }]);
  base = lab.bases.get('sdk') as URL;
}, 180_000);

afterAll(async () => {
  await lab?.dispose();
  rmSync(outDir, { recursive: true, force: true });
});

describe('the MCP floor as the bench builds it', () => {
  it.each(MCP_ERAS)('answers the bench tools/call in %s with a result holding what GET /json answers', async (era) => {
    const plain = await (await fetch(new URL('/json', base))).text();
    const response = await fetch(toolCallRequest(base, 'any-token', era, 'bench/small.md'));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result?: { content: unknown }; error?: unknown };
    expect(body.error).toBeUndefined();
    expect(body.result?.content).toEqual([{ type: 'text', text: plain }]);
    expect(lab?.errors()).toBe('');
  });
});
