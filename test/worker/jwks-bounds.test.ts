// The JWK set fetch is bounded: one deadline for headers and body together, and a byte cap. A set
// that is far too large, never answers, drips, fails, or is not a JWK set is the server's fault: 503
// with Retry-After (log reason jwks_unavailable) within the deadline, never a 401 that would send an
// OAuth client to sign in again, and a concurrent request is not held behind it. Against a real HTTP
// stand-in (test/support/node/jwks-server.ts) on loopback http, which only ENVIRONMENT=local admits.
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { JWKS_DEADLINE_MS } from '../../src/auth/jwks';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { MCP_HEADERS, REST_ROUTES, TOOLS, callWorker, mintToken, restGet, testEnv } from '../support/worker/harness';
import { keySetAccessToken } from '../support/worker/key-set';

const NOTE = { path: 'a.md', body: '# A\n' };
/** A bound, not a benchmark: the answer must come within the deadline plus scheduling slack. */
const WITHIN_DEADLINE_MS = JWKS_DEADLINE_MS + 2_000;

let logLines: string[] = [];
beforeEach(() => {
  logLines = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logLines.push(String(line)));
});
afterEach(() => vi.restoreAllMocks());

const envFor = (jwksPath: string) => testEnv({ ENVIRONMENT: 'local', JWT_JWKS_URL: `${inject('jwksUrl')}${jwksPath}` });

async function readAt(jwksPath: string, user: string): Promise<{ status: number; ms: number; retryAfter: string | null }> {
  const started = Date.now();
  const res = await restGet(REST_ROUTES.note_outline, NOTE.path, { token: await keySetAccessToken(user), env: envFor(jwksPath) });
  await res.body?.cancel();
  return { status: res.status, ms: Date.now() - started, retryAfter: res.headers.get('Retry-After') };
}

describe('JWK set fetch bounds', () => {
  it('a good set verifies (control)', async () => {
    const user = uniqueUser('jwks-good');
    await seedNotes(user, 'default', [NOTE]);
    expect((await readAt('/good', user)).status).toBe(200);
  });

  it.each(['/huge', '/hang', '/drip', '/not-a-set', '/missing'])(
    '%s: 503 with Retry-After (RFC 9110 section 15.6.4), log reason jwks_unavailable, within the deadline, no canister read',
    async (jwksPath) => {
      const user = uniqueUser('jwks-bad');
      const { status, ms, retryAfter } = await readAt(jwksPath, user);
      expect(status).toBe(503);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      expect(ms).toBeLessThan(WITHIN_DEADLINE_MS);
      expect(logLines.map((line) => JSON.parse(line))).toMatchObject([{ reason: 'jwks_unavailable', outcome: 'SERVICE_UNAVAILABLE' }]);
      expect(await canisterRequests(user)).toEqual([]);
    },
  );

  it('MCP, both endpoint forms: the same 503 with Retry-After as a JSON-RPC error, no challenge', async () => {
    const user = uniqueUser('jwks-mcp');
    for (const endpoint of ['/mcp', '/mcp/vaults/default']) {
      const res = await callWorker(endpoint, {
        method: 'POST',
        token: await keySetAccessToken(user),
        env: envFor('/not-a-set'),
        headers: MCP_HEADERS,
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: TOOLS.note_outline, arguments: { path: NOTE.path } } }),
      });
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('Retry-After'))).toBeGreaterThan(0);
      expect(res.headers.get('WWW-Authenticate')).toBeNull();
      expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Token verification unavailable' }, id: null });
    }
    expect(await canisterRequests(user)).toEqual([]);
  });

  it("a token whose kid the set does not have is still the token's fault: 401 unknown_key", async () => {
    const user = uniqueUser('jwks-kid');
    const token = await keySetAccessToken(user, 'rotated-away');
    const res = await restGet(REST_ROUTES.note_outline, NOTE.path, { token, env: envFor('/good') });
    expect(res.status).toBe(401);
    expect(logLines.map((line) => JSON.parse(line).reason)).toEqual(['unknown_key']);
  });

  it('outside ENVIRONMENT=local a plain-http key set off loopback is refused: the Worker does not serve (503, JWT_JWKS_URL named)', async () => {
    const user = uniqueUser('jwks-http');
    await seedNotes(user, 'default', [NOTE]);
    const token = await mintToken({ sub: user });
    const served = async (environment: string, jwksUrl: string) => {
      const res = await restGet(REST_ROUTES.note_outline, NOTE.path, { token, env: testEnv({ ENVIRONMENT: environment, JWT_JWKS_URL: jwksUrl }) });
      await res.body?.cancel();
      return res.status;
    };
    expect(await served('production', 'http://jwks.example/keys')).toBe(503);
    expect(await served('staging', 'HTTP://jwks.example/keys')).toBe(503);
    expect(logLines.map((line) => JSON.parse(line).config)).toEqual([['JWT_JWKS_URL'], ['JWT_JWKS_URL']]);
    expect(await canisterRequests(user)).toEqual([]);
    // What looks like it and is fine: https anywhere, http on a loopback host (never leaves the machine), anything in local mode.
    expect(await served('production', 'https://jwks.example/keys')).toBe(200);
    expect(await served('production', `${inject('jwksUrl')}/good`)).toBe(200);
    expect(await served('local', 'http://jwks.example/keys')).toBe(200);
  });

  it('a request is not held behind another request waiting on a hanging set', async () => {
    const user = uniqueUser('jwks-concurrent');
    await seedNotes(user, 'default', [NOTE]);
    const order: string[] = [];
    // A set of its own: /hang was fetched (and failed) by the case above, so its cooldown would answer at once.
    const hanging = readAt('/hang?held-behind', uniqueUser('jwks-hang')).then((result) => (order.push('hang'), result));
    const hmac = restGet(REST_ROUTES.note_outline, NOTE.path, { token: await mintToken({ sub: user }) }).then((res) => (order.push('hmac'), res.status));
    const good = readAt('/good', user).then((result) => (order.push('good'), result.status));
    expect(await hmac).toBe(200);
    expect(await good).toBe(200);
    expect((await hanging).status).toBe(503);
    expect(order[order.length - 1]).toBe('hang');
  });
});
