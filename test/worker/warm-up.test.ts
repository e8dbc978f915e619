/**
 * The startup warm-up (src/warm-up.ts) runs a read's steps on constants, so their code is compiled
 * before the first request. Every step must take its accepting path (else it warms only a refusal):
 * the token verifies, the path and vault are admitted, the canister answer decodes; and the
 * placeholder key must verify nothing for the Worker itself.
 */
import { describe, expect, it } from 'vitest';
import { verifyWarmUpToken, warmUpRequestPath, WARM_UP_KEY } from '../../src/warm-up';
import { REST_ROUTES, callWorker, mintToken } from '../support/worker/harness';

describe('startup warm-up', () => {
  it('verifies its constant token as a session principal', async () => {
    const verified = await verifyWarmUpToken();
    expect(verified?.ok).toBe(true);
    if (verified?.ok) expect(verified.principal).toMatchObject({ sub: 'warm-up', tokenType: 'session', role: 'viewer' });
  });

  it('runs every step of a read on its constants as a request would, and does so again', async () => {
    expect(await warmUpRequestPath()).toBe(true);
    expect(await warmUpRequestPath()).toBe(true);
  });

  it('leaves the placeholder key out of the Worker: a token signed with it is refused (RFC 6750 section 3.1)', async () => {
    await verifyWarmUpToken();
    const token = await mintToken({ sub: 'warm-up', role: 'admin' }, { secret: WARM_UP_KEY });
    const response = await callWorker(`${REST_ROUTES.note_outline}?path=${encodeURIComponent('projects/plan.md')}`, { token });
    expect(response.status).toBe(401);
    expect(response.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
  });
});
