// The JWK set fetch is bounded: one deadline for headers and body together, and a byte cap. A set
// that is far too large, never answers, drips, or is not a JWK set gives the plain 401 (log reason
// jwks_unavailable) within the deadline, and a concurrent request is not held behind it. Against a
// real HTTP stand-in (test/support/node/jwks-server.ts).
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { importJWK, SignJWT, type JWK } from 'jose';
import { JWKS_DEADLINE_MS } from '../../src/auth/jwks';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { REST_ROUTES, mintToken, restGet, testEnv } from '../support/worker/harness';

const NOTE = { path: 'a.md', body: '# A\n' };
/** A bound, not a benchmark: the answer must come within the deadline plus scheduling slack. */
const WITHIN_DEADLINE_MS = JWKS_DEADLINE_MS + 2_000;

let logLines: string[] = [];
beforeEach(() => {
  logLines = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logLines.push(String(line)));
});
afterEach(() => vi.restoreAllMocks());

async function es256Token(user: string): Promise<string> {
  const key = await importJWK(JSON.parse(inject('jwksPrivateJwk')) as JWK, 'ES256');
  return new SignJWT({ sub: user })
    .setProtectedHeader({ alg: 'ES256', kid: 'jwks-test' })
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key);
}

async function readAt(jwksPath: string, user: string): Promise<{ status: number; ms: number }> {
  const env = testEnv({ JWT_JWKS_URL: `${inject('jwksUrl')}${jwksPath}` });
  const started = Date.now();
  const res = await restGet(REST_ROUTES.note_outline, NOTE.path, { token: await es256Token(user), env });
  await res.body?.cancel();
  return { status: res.status, ms: Date.now() - started };
}

describe('JWK set fetch bounds', () => {
  it('a good set verifies (control)', async () => {
    const user = uniqueUser('jwks-good');
    await seedNotes(user, 'default', [NOTE]);
    expect((await readAt('/good', user)).status).toBe(200);
  });

  it.each(['/huge', '/hang', '/drip', '/not-a-set'])('%s: 401 jwks_unavailable within the deadline, no canister read', async (jwksPath) => {
    const user = uniqueUser('jwks-bad');
    const { status, ms } = await readAt(jwksPath, user);
    expect(status).toBe(401);
    expect(ms).toBeLessThan(WITHIN_DEADLINE_MS);
    expect(logLines.map((line) => JSON.parse(line).reason)).toEqual(['jwks_unavailable']);
    expect(await canisterRequests(user)).toEqual([]);
  });

  it('a request is not held behind another request waiting on a hanging set', async () => {
    const user = uniqueUser('jwks-concurrent');
    await seedNotes(user, 'default', [NOTE]);
    const order: string[] = [];
    const hanging = readAt('/hang', uniqueUser('jwks-hang')).then((result) => (order.push('hang'), result));
    const hmac = restGet(REST_ROUTES.note_outline, NOTE.path, { token: await mintToken({ sub: user }) }).then((res) => (order.push('hmac'), res.status));
    const good = readAt('/good', user).then((result) => (order.push('good'), result.status));
    expect(await hmac).toBe(200);
    expect(await good).toBe(200);
    expect((await hanging).status).toBe(401);
    expect(order[order.length - 1]).toBe('hang');
  });
});
