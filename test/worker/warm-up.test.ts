/**
 * The startup warm-up (src/warm-up.ts) verifies a constant token, so the verification path is
 * compiled before the first request. It must verify (else it warms only the refusal path), and
 * its placeholder key must verify nothing for the Worker itself.
 */
import { describe, expect, it } from 'vitest';
import { verifyWarmUpToken, WARM_UP_KEY } from '../../src/warm-up';
import { REST_ROUTES, callWorker, mintToken } from '../support/worker/harness';

describe('startup warm-up', () => {
  it('verifies its constant token as a session principal', async () => {
    const verified = await verifyWarmUpToken();
    expect(verified?.ok).toBe(true);
    if (verified?.ok) expect(verified.principal).toMatchObject({ sub: 'warm-up', tokenType: 'session', role: 'viewer' });
  });

  it('leaves the placeholder key out of the Worker: a token signed with it is refused (RFC 6750 section 3.1)', async () => {
    await verifyWarmUpToken();
    const token = await mintToken({ sub: 'warm-up', role: 'admin' }, { secret: WARM_UP_KEY });
    const response = await callWorker(`${REST_ROUTES.note_outline}?path=${encodeURIComponent('projects/plan.md')}`, { token });
    expect(response.status).toBe(401);
    expect(response.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
  });
});
