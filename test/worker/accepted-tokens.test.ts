// The accepted-token memo (src/auth/accepted-tokens.ts) must answer exactly what a fresh
// verification answers. Each case first has the Worker accept a credential (so it is remembered),
// then changes what the answer depends on: the time (RFC 7519 sections 4.1.4 exp and 4.1.5 nbf, with
// the Worker's 30 s tolerance, and the iat rule), the resource the request addresses (RFC 8707, RFC 9068
// section 4: an access token is accepted only by the resource it names) and the configuration. A
// remembered credential must be refused wherever a fresh one is, with the same reason.
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { importJWK, SignJWT, type JWK } from 'jose';
import worker from '../../src/index';
import { loadConfig } from '../../src/config';
import { acceptedCount } from '../../src/auth/accepted-tokens';
import { seedNotes, uniqueUser } from '../support/worker/canister';
import { fakeDateFrom } from '../support/worker/clock';
import { AUTHORIZATION_SERVER, MCP_HEADERS, ORIGIN, REST_ROUTES, TOOLS, mintToken, rateLimitBinding, testEnv } from '../support/worker/harness';

const NOTE = { path: 'memo/a.md', frontmatter: { title: 'A' }, body: '# Heading\n\ntext\n' };
const TOLERANCE = 30;
const START = Date.UTC(2026, 10, 28, 12, 0, 0);

let logLines: string[] = [];
beforeEach(() => {
  logLines = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logLines.push(String(line)));
});
afterEach(() => vi.restoreAllMocks());
const clock = fakeDateFrom(START);

/** One env object for every request of a case, as an isolate keeps one. */
function isolateEnv(overrides: Record<string, string> = {}): Record<string, unknown> {
  const lifted = rateLimitBinding('TEST_RATE_LIMITER');
  return { RATE_LIMITER: lifted, PROTOCOL_RATE_LIMITER: lifted, ...testEnv(overrides) };
}

function configOf(env: Record<string, unknown>) {
  const loaded = loadConfig(env);
  if (!loaded.ok) throw new Error('the test env is a valid configuration');
  return loaded.config;
}

const at = (secondsFromStart: number) => clock(secondsFromStart * 1000);
const seconds = (fromStart: number) => Math.floor(START / 1000) + fromStart;

async function readOutline(env: Record<string, unknown>, token: string): Promise<{ status: number; reason: unknown }> {
  const response = await worker.fetch(
    new Request(`${ORIGIN}${REST_ROUTES.note_outline}?path=${encodeURIComponent(NOTE.path)}`, { headers: { Authorization: `Bearer ${token}`, 'X-Vault-Id': 'default' } }),
    env,
  );
  await response.arrayBuffer();
  return { status: response.status, reason: JSON.parse(logLines.at(-1) as string).reason };
}

async function callOutlineTool(env: Record<string, unknown>, token: string, endpoint = '/mcp'): Promise<{ status: number; reason: unknown }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOLS.note_outline, arguments: { path: NOTE.path } } });
  const response = await worker.fetch(
    new Request(`${ORIGIN}${endpoint}`, { method: 'POST', headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}`, 'MCP-Protocol-Version': '2025-11-25' }, body }),
    env,
  );
  await response.arrayBuffer();
  return { status: response.status, reason: JSON.parse(logLines.at(-1) as string).reason };
}

async function seededUser(): Promise<string> {
  const user = uniqueUser('memo');
  await seedNotes(user, 'default', [NOTE]);
  return user;
}

describe('a remembered credential is refused wherever a fresh one is', () => {
  it('exp (RFC 7519 section 4.1.4): accepted until exp + 30 s, then 401 expired, also after being remembered', async () => {
    const env = isolateEnv();
    const user = await seededUser();
    const token = await mintToken({ sub: user, role: 'viewer', iat: seconds(0), exp: seconds(60) }, { expiresIn: null });
    expect(await readOutline(env, token)).toEqual({ status: 200, reason: null });
    expect(acceptedCount(configOf(env))).toBeGreaterThan(0);
    at(60 + TOLERANCE - 1);
    expect(await readOutline(env, token)).toEqual({ status: 200, reason: null });
    at(60 + TOLERANCE);
    expect(await readOutline(env, token)).toEqual({ status: 401, reason: 'expired' });
    // A refusal is not remembered either: the same answer again.
    expect(await readOutline(env, token)).toEqual({ status: 401, reason: 'expired' });
  });

  it('nbf and iat (RFC 7519 sections 4.1.5, 4.1.6): a clock set back before either, less the tolerance, is 401 not_yet_valid', async () => {
    const env = isolateEnv();
    const user = await seededUser();
    const nbfToken = await mintToken({ sub: user, role: 'viewer', iat: seconds(-600), nbf: seconds(0), exp: seconds(600) }, { expiresIn: null });
    const iatToken = await mintToken({ sub: user, role: 'viewer', iat: seconds(0), exp: seconds(600) }, { expiresIn: null });
    for (const token of [nbfToken, iatToken]) {
      at(0);
      expect(await readOutline(env, token)).toEqual({ status: 200, reason: null });
      at(-TOLERANCE);
      expect(await readOutline(env, token)).toEqual({ status: 200, reason: null });
      at(-TOLERANCE - 1);
      expect(await readOutline(env, token)).toEqual({ status: 401, reason: 'not_yet_valid' });
    }
  });

  it('a token verified with the JWK set is verified every time: a retired key refuses it as soon as the Worker reloads the set', async () => {
    const user = await seededUser();
    const setUrl = `${inject('jwksUrl')}/rotating/${crypto.randomUUID()}`;
    const env = isolateEnv({ JWT_JWKS_URL: setUrl });
    const key = await importJWK(JSON.parse(inject('jwksPrivateJwk')) as JWK, 'ES256');
    const signed = (kid: string) =>
      new SignJWT({ iss: AUTHORIZATION_SERVER, sub: user, aud: ORIGIN, client_id: 'c1', jti: crypto.randomUUID(), scope: 'vault:read', iat: seconds(0), exp: seconds(3600) })
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
        .sign(key);
    const token = await signed('jwks-test');
    expect(await readOutline(env, token)).toEqual({ status: 200, reason: null });
    expect(acceptedCount(configOf(env))).toBe(0);
    await (await fetch(`${setUrl}/retire`, { method: 'POST' })).arrayBuffer();
    // An unknown kid makes the Worker reload the set (at most once per 30 s); the set no longer has the key.
    at(31);
    expect(await readOutline(env, await signed('another-key'))).toEqual({ status: 401, reason: 'unknown_key' });
    at(32);
    expect(await readOutline(env, token)).toEqual({ status: 401, reason: 'unknown_key' });
  });

  it('RFC 8707 / RFC 9068 section 4: an access token remembered at /mcp is still 401 bad_audience on the REST routes', async () => {
    const env = isolateEnv();
    const user = await seededUser();
    const claims = { iss: AUTHORIZATION_SERVER, sub: user, aud: `${ORIGIN}/mcp`, client_id: 'c1', jti: crypto.randomUUID(), scope: 'vault:read', iat: seconds(0), exp: seconds(600) };
    const token = await mintToken(claims, { header: { typ: 'at+jwt' }, expiresIn: null });
    expect(await callOutlineTool(env, token)).toEqual({ status: 200, reason: null });
    expect(await callOutlineTool(env, token, '/mcp/vaults/default')).toEqual({ status: 200, reason: null });
    expect(await readOutline(env, token)).toEqual({ status: 401, reason: 'bad_audience' });
    // And the other way: a token for the REST resource remembered there is refused at /mcp/vaults/<id>? No:
    // the origin is a parent of every MCP resource (RFC 8707 section 2), so it is accepted everywhere.
    const forOrigin = await mintToken({ ...claims, aud: ORIGIN, jti: crypto.randomUUID() }, { header: { typ: 'at+jwt' }, expiresIn: null });
    expect(await readOutline(env, forOrigin)).toEqual({ status: 200, reason: null });
    expect(await callOutlineTool(env, forOrigin)).toEqual({ status: 200, reason: null });
  });

  it('the memo keys by the token, not the header spelling: every accepted spelling of one token is one entry', async () => {
    const env = isolateEnv();
    const user = await seededUser();
    const token = await mintToken({ sub: user, role: 'viewer' });
    for (const authorization of [`Bearer ${token}`, `bearer ${token}`, `BEARER   ${token}`, ` Bearer ${token}\t`]) {
      const response = await worker.fetch(
        new Request(`${ORIGIN}${REST_ROUTES.note_outline}?path=${encodeURIComponent(NOTE.path)}`, { headers: { Authorization: authorization } }),
        env,
      );
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    expect(acceptedCount(configOf(env))).toBe(1);
  });

  it('a credential remembered under one configuration is verified afresh under another (a rotated secret refuses it)', async () => {
    const user = await seededUser();
    const token = await mintToken({ sub: user, role: 'viewer' });
    const before = isolateEnv();
    expect(await readOutline(before, token)).toEqual({ status: 200, reason: null });
    const rotated = isolateEnv({ SESSION_SECRET: 'another-session-secret-for-the-memo-test-0003' });
    expect(await readOutline(rotated, token)).toEqual({ status: 401, reason: 'bad_signature' });
    expect(await readOutline(before, token)).toEqual({ status: 200, reason: null });
  });

  it('a remembered principal cannot be changed by what handles the request', async () => {
    const env = isolateEnv();
    const user = await seededUser();
    const token = await mintToken({ sub: user, role: 'viewer', allowed_vault_ids: ['default'], hosted_scope: { folders: ['memo'] } });
    expect(await readOutline(env, token)).toEqual({ status: 200, reason: null });
    const { authenticate } = await import('../../src/auth/jwt');
    const { protectedResource } = await import('../../src/auth/resource');
    const config = configOf(env);
    const outcome = await authenticate(`Bearer ${token}`, config, protectedResource(new URL(ORIGIN), config, ''), seconds(0));
    if (!outcome.ok) throw new Error('expected the remembered principal');
    const { principal } = outcome;
    expect(Object.isFrozen(principal)).toBe(true);
    expect(Object.isFrozen(principal.allowedVaultIds)).toBe(true);
    expect(Object.isFrozen(principal.scope)).toBe(true);
    expect(Object.isFrozen(principal.scope?.folders)).toBe(true);
    expect(Object.isFrozen(principal.scope?.projects)).toBe(true);
  });
});
