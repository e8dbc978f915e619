import { describe, it, expect, inject } from 'vitest';
import { createExecutionContext, env } from 'cloudflare:test';
import worker from '../../src/index';
describe('smoke', () => {
  it('health', async () => {
    const res = await worker.fetch(new Request('http://x/health'), env as any, createExecutionContext());
    expect(await res.json()).toEqual({ ok: true });
  });
  it('loopback', async () => {
    const url = inject('canisterUrl' as any) as string;
    const r = await fetch(url + '/api/v1/notes/a%2Fb');
    expect(await r.json()).toEqual({ url: '/api/v1/notes/a%2Fb' });
  });
});
