import { describe, expect, it } from 'vitest';
import { buildContract } from '../../src/contracts';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { callWorker, mintToken, testEnv } from '../support/worker/harness';

const ROUTE = '/scooling/note-outline/smoke';
const NOTE = { path: 'scooling/lesson one.md', frontmatter: { title: 'Lesson' }, body: '# Intro\n\nSecret body.\n\n## Practice\n' };

async function bridgeEnv(overrides: Record<string, string | undefined> = {}) {
  const user = uniqueUser('scooling');
  await seedNotes(user, 'default', [NOTE]);
  const token = await mintToken({ sub: user, role: 'viewer' }, { expiresIn: '1h' });
  const env = testEnv({ SCOOLING_SMOKE_ENABLED: 'true', ENVIRONMENT: 'staging', SCOOLING_SMOKE_TOKEN: token, ...overrides });
  return { user, env };
}

const smoke = (env: Record<string, string>, headers: Record<string, string> = {}) =>
  callWorker(`${ROUTE}?path=${encodeURIComponent(NOTE.path)}`, { env, headers });

describe('Scooling smoke bridge', () => {
  it('returns the raw NoteOutline using its own credential', async () => {
    const { user, env } = await bridgeEnv();
    const res = await smoke(env);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(JSON.stringify(buildContract('note_outline', NOTE.path, NOTE.frontmatter, NOTE.body)));
    const [req] = await canisterRequests(user);
    // Its own credential authenticates it to the Worker and is never passed through to the canister.
    expect(req.headers).not.toHaveProperty('authorization');
    expect(req.headers['x-gateway-auth']).toBe(env.CANISTER_AUTH_SECRET);
  });

  it('reads only the vault its credential names: a caller\'s X-Vault-Id is never obeyed', async () => {
    const { user, env } = await bridgeEnv();
    await seedNotes(user, 'private', [{ ...NOTE, body: '# Private heading\n' }]);
    for (const vault of ['private', ' private ', 'not a vault']) {
      const res = await smoke(env, { 'X-Vault-Id': vault });
      expect(res.status).toBe(200);
      expect(JSON.parse(await res.text()).headings[0].text).toBe('Intro');
    }
    expect((await canisterRequests(user)).map((request) => request.headers['x-vault-id'])).toEqual(['default', 'default', 'default']);
  });

  it('is off by default, in production, and unless enabled is exactly "true"', async () => {
    const { user, env } = await bridgeEnv();
    for (const off of [
      { ...env, SCOOLING_SMOKE_ENABLED: 'false' },
      { ...env, ENVIRONMENT: 'production' },
      testEnv(),
    ]) {
      const res = await smoke(off);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
    }
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('refuses requests that carry their own Authorization or Cookie', async () => {
    const { user, env } = await bridgeEnv({ ENVIRONMENT: 'local' });
    for (const headers of [{ Authorization: 'Bearer x.y.z' }, { Cookie: 'session=abc' }] as Record<string, string>[]) {
      const res = await smoke(env, headers);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'Credentials are not accepted on this route', code: 'CREDENTIALS_REFUSED' });
    }
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('answers 503 when its own credential is missing or invalid, and validates the path first', async () => {
    const { user, env } = await bridgeEnv();
    for (const token of [undefined, 'not-a-jwt']) {
      const res = await smoke({ ...testEnv({ SCOOLING_SMOKE_ENABLED: 'true', ENVIRONMENT: 'staging', SCOOLING_SMOKE_TOKEN: token }) });
      expect(res.status).toBe(503);
      expect(res.headers.get('WWW-Authenticate')).toBeNull();
    }
    for (const query of [`path=${encodeURIComponent('../x.md')}`, 'path=%ED%A0%80x.md', 'path=a.md&path=a.md']) {
      const refused = await callWorker(`${ROUTE}?${query}`, { env });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: 'Invalid path', code: 'INVALID_PATH' });
    }
    expect(await canisterRequests(user)).toHaveLength(0);
  });
});
