// The JWK set under a storm of unknown `kid`s (src/auth/jwks.ts, docs/AUTH.md "Algorithms"): the
// set is fetched at most once per 30 s cooldown whatever the fetch's outcome, requests arriving
// during a fetch share it, an unknown kid inside the cooldown is 401 unknown_key without a fetch,
// and a token whose key is in the loaded set is served throughout, also while the set fails. No
// credential is needed to send an unknown kid, so each of these is what an attacker controls.
// Against the stand-in's /controlled/<id> set (test/support/node/jwks-server.ts), which counts its
// fetches and can fail (500) or answer past the Worker's deadline; the clock is vitest's fake Date.
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { JWKS_COOLDOWN_MS, JWKS_DEADLINE_MS, JWKS_MAX_AGE_MS } from '../../src/auth/jwks';
import { seedNotes, uniqueUser } from '../support/worker/canister';
import { REST_ROUTES, restGet, testEnv } from '../support/worker/harness';
import { keySetAccessToken } from '../support/worker/key-set';
import { fakeDateFrom } from '../support/worker/clock';
/** The stand-in's modes for /controlled/<id> (test/support/node/jwks-server.ts). */
type ControlledMode = 'healthy' | 'failing' | 'slow';

const NOTE = { path: 'storm.md', body: '# Storm\n' };
const START = Date.UTC(2026, 10, 28, 12, 0, 0);
const STORM = 20;

let logLines: string[] = [];
beforeEach(() => {
  logLines = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logLines.push(String(line)));
});
afterEach(() => vi.restoreAllMocks());
const at = fakeDateFrom(START);
/** Just past the cooldown that started at `ms` (a fetch at `ms`). */
const afterCooldownFrom = (ms: number) => ms + JWKS_COOLDOWN_MS + 1_000;

/** A key set of its own (so no other case has loaded it), its mode and its fetch count. */
function controlledSet() {
  const url = `${inject('jwksUrl')}/controlled/${crypto.randomUUID()}`;
  return {
    env: testEnv({ ENVIRONMENT: 'local', JWT_JWKS_URL: url }),
    async become(mode: ControlledMode): Promise<void> {
      const res = await fetch(`${url}/mode/${mode}?delayMs=${JWKS_DEADLINE_MS + 2_000}`, { method: 'PUT' });
      expect(res.status).toBe(204);
    },
    async fetches(): Promise<number> {
      return ((await (await fetch(`${url}/fetches`)).json()) as { fetches: number }).fetches;
    },
  };
}
type ControlledSet = ReturnType<typeof controlledSet>;

interface Answer {
  status: number;
  retryAfter: string | null;
}

async function read(set: ControlledSet, token: string): Promise<Answer> {
  const res = await restGet(REST_ROUTES.note_outline, NOTE.path, { token, env: set.env });
  await res.body?.cancel();
  return { status: res.status, retryAfter: res.headers.get('Retry-After') };
}

/** Each request with a kid no set has, all sent together. */
async function concurrentUnknownKids(set: ControlledSet, user: string): Promise<Answer[]> {
  const tokens = await Promise.all(Array.from({ length: STORM }, () => keySetAccessToken(user, crypto.randomUUID())));
  return Promise.all(tokens.map((token) => read(set, token)));
}

/** Each request with a kid no set has, one after another. */
async function sequentialUnknownKids(set: ControlledSet, user: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < STORM; i++) answers.push(await read(set, await keySetAccessToken(user, crypto.randomUUID())));
  return answers;
}

const statuses = (answers: Answer[]) => answers.map((answer) => answer.status);
const reasons = () => logLines.map((line) => JSON.parse(line).reason as string | null);
const each = (count: number, value: unknown) => Array.from({ length: count }, () => value);

async function seededUser(label: string): Promise<string> {
  const user = uniqueUser(label);
  await seedNotes(user, 'default', [NOTE]);
  return user;
}

describe('the JWK set under a storm of unknown kids: one fetch per cooldown, whatever the fetch does', () => {
  it('healthy: 20 unknown kids sent together after the cooldown share one fetch, 20 sent one by one inside it fetch nothing (401 unknown_key)', async () => {
    const set = controlledSet();
    const user = await seededUser('storm-healthy');
    expect(await read(set, await keySetAccessToken(user))).toMatchObject({ status: 200 });
    expect(await set.fetches()).toBe(1);

    expect(statuses(await sequentialUnknownKids(set, user))).toEqual(each(STORM, 401));
    expect(await set.fetches()).toBe(1);

    at(afterCooldownFrom(0));
    logLines = [];
    const known = read(set, await keySetAccessToken(user));
    expect(statuses(await concurrentUnknownKids(set, user))).toEqual(each(STORM, 401));
    expect((await known).status).toBe(200);
    expect(await set.fetches()).toBe(2);
    expect(reasons().filter((reason) => reason === 'unknown_key')).toHaveLength(STORM);

    at(afterCooldownFrom(afterCooldownFrom(0)));
    expect(statuses(await sequentialUnknownKids(set, user))).toEqual(each(STORM, 401));
    expect(await set.fetches()).toBe(3);
  });

  it.each<ControlledMode>(['failing', 'slow'])(
    'loaded once, then %s: one fetch per cooldown, the cached key served throughout, past the set\'s maximum age too',
    async (mode) => {
      const set = controlledSet();
      const user = await seededUser(`storm-${mode}`);
      const knownKey = async () => (await read(set, await keySetAccessToken(user))).status;
      expect(await knownKey()).toBe(200);
      await set.become(mode);

      // After the cooldown, the storm shares one fetch; the requests that waited on it saw it fail (503).
      const stormAt = afterCooldownFrom(0);
      at(stormAt);
      logLines = [];
      const known = knownKey();
      const storm = await concurrentUnknownKids(set, user);
      expect(statuses(storm)).toEqual(each(STORM, 503));
      expect(storm.every((answer) => Number(answer.retryAfter) > 0)).toBe(true);
      expect(await known).toBe(200);
      expect(await set.fetches()).toBe(2);
      expect(reasons().sort()).toEqual([...each(STORM, 'jwks_unavailable'), null]);

      // Inside the cooldown the failed fetch started: unknown kids are the token's fault at once, no fetch.
      logLines = [];
      expect(statuses(await sequentialUnknownKids(set, user))).toEqual(each(STORM, 401));
      expect(reasons()).toEqual(each(STORM, 'unknown_key'));
      expect(await knownKey()).toBe(200);
      expect(await set.fetches()).toBe(2);

      // The next cooldown: one fetch for the first unknown kid, none for the 19 after it.
      at(afterCooldownFrom(stormAt));
      expect(statuses(await sequentialUnknownKids(set, user))).toEqual([503, ...each(STORM - 1, 401)]);
      expect(await set.fetches()).toBe(3);

      // Past the maximum age the set is due for a refetch; it fails, and the key loaded before is still served.
      const aged = JWKS_MAX_AGE_MS + 1_000;
      at(aged);
      expect(await Promise.all(Array.from({ length: STORM }, knownKey))).toEqual(each(STORM, 200));
      expect(await set.fetches()).toBe(4);
      at(afterCooldownFrom(aged));
      expect(await knownKey()).toBe(200);
      expect(await set.fetches()).toBe(5);
    },
  );

  it.each<ControlledMode>(['failing', 'slow'])(
    'never loaded, %s: 503 with Retry-After (RFC 9110 section 15.6.4) for every request, one fetch per cooldown',
    async (mode) => {
      const set = controlledSet();
      await set.become(mode);
      const user = await seededUser(`storm-unloaded-${mode}`);
      const storm = await Promise.all([read(set, await keySetAccessToken(user)), ...(await concurrentUnknownKids(set, user))]);
      expect(statuses(storm)).toEqual(each(STORM + 1, 503));
      expect(storm.every((answer) => Number(answer.retryAfter) > 0)).toBe(true);
      expect(await set.fetches()).toBe(1);

      expect(statuses(await sequentialUnknownKids(set, user))).toEqual(each(STORM, 503));
      expect((await read(set, await keySetAccessToken(user))).status).toBe(503);
      expect(await set.fetches()).toBe(1);

      // One more fetch once the cooldown is over, and the set, healthy again, serves.
      at(afterCooldownFrom(0));
      await set.become('healthy');
      expect((await read(set, await keySetAccessToken(user))).status).toBe(200);
      expect(statuses(await sequentialUnknownKids(set, user))).toEqual(each(STORM, 401));
      expect(await set.fetches()).toBe(2);
    },
  );
});
