// Drives the real demo canister over HTTP (node:http client, one connection per request, raw
// request targets), so what is tested here is exactly what the Worker integration tests talk to.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_VAULT_FILE_BYTES,
  loadVault,
  parseVaultNote,
  readVault,
  sanitizeVaultId,
  startDemoCanister,
  type CanisterFault,
  type DemoCanister,
  type RecordedRequest,
  type SeedNote,
} from '../../demo/canister.mjs';
import { rawExchange } from '../support/node/raw-http';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const demoVault = path.join(repoRoot, 'demo', 'vault');
const SECRET = 'unit-test-gateway-secret';
const NOT_FOUND = '{"error":"Not found","code":"NOT_FOUND"}';
const AUTH_REQUIRED = '{"error":"Gateway authentication required","code":"GATEWAY_AUTH_REQUIRED"}';

/** How one HTTP exchange ended, as seen by a client. */
type Outcome =
  | { kind: 'response'; status: number; headers: IncomingHttpHeaders; body: string; dataEvents: number }
  /** No complete response before the client gave up (status set when headers had arrived). */
  | { kind: 'timeout'; status?: number; partial: string }
  /** The connection failed (reset / closed early); status set when headers had arrived. */
  | { kind: 'error'; status?: number; partial: string; message: string };

interface ExchangeOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Client-side patience; the outcome is 'timeout' when it runs out. */
  waitMs?: number;
  /** Destroy the connection after this many body bytes have arrived. */
  abortAfterBytes?: number;
}

/** One request on a fresh connection with the request target sent verbatim. */
function exchange(baseUrl: string, target: string, options: ExchangeOptions = {}): Promise<Outcome> {
  const base = new URL(baseUrl);
  return new Promise((resolve) => {
    let settled = false;
    let status: number | undefined;
    const chunks: Buffer[] = [];
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
      req.destroy();
    };
    const partial = () => Buffer.concat(chunks).toString('utf8');
    const req = httpRequest({
      host: base.hostname,
      port: base.port,
      method: options.method ?? 'GET',
      path: target,
      headers: options.headers ?? {},
      agent: false,
    });
    const timer = setTimeout(() => settle({ kind: 'timeout', status, partial: partial() }), options.waitMs ?? 5000);
    req.on('response', (res) => {
      status = res.statusCode;
      let received = 0;
      let dataEvents = 0;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        dataEvents += 1;
        received += chunk.length;
        if (options.abortAfterBytes !== undefined && received >= options.abortAfterBytes) {
          settle({ kind: 'error', status, partial: partial(), message: 'client aborted' });
        }
      });
      res.on('end', () => {
        if (!res.complete) return;
        settle({ kind: 'response', status: res.statusCode ?? 0, headers: res.headers, body: partial(), dataEvents });
      });
      res.on('error', (error) => settle({ kind: 'error', status, partial: partial(), message: error.message }));
      res.on('close', () => {
        if (!res.complete) settle({ kind: 'error', status, partial: partial(), message: 'response closed early' });
      });
    });
    req.on('error', (error) => settle({ kind: 'error', status, partial: partial(), message: error.message }));
    req.end(options.body);
  });
}

function expectResponse(outcome: Outcome): Extract<Outcome, { kind: 'response' }> {
  if (outcome.kind !== 'response') throw new Error(`expected a complete response, got ${JSON.stringify(outcome)}`);
  return outcome;
}

function noteTarget(notePath: string): string {
  return `/api/v1/notes/${encodeURIComponent(notePath)}`;
}

function authHeaders(user: string, vault?: string, secret = SECRET): Record<string, string> {
  const headers: Record<string, string> = { 'X-Gateway-Auth': secret, 'X-User-Id': user };
  if (vault !== undefined) headers['X-Vault-Id'] = vault;
  return headers;
}

let userCounter = 0;
function freshUser(prefix: string): string {
  userCounter += 1;
  return `${prefix}-${userCounter}-${Math.random().toString(36).slice(2)}`;
}

async function control(canister: DemoCanister, route: string, body: unknown): Promise<Outcome> {
  return exchange(canister.url, `/__control/${route}`, {
    method: 'POST',
    headers: { 'X-Gateway-Auth': SECRET, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function seed(canister: DemoCanister, user: string, vault: string, notes: SeedNote[]): Promise<void> {
  const outcome = expectResponse(await control(canister, 'notes', { user, vault, notes }));
  expect(outcome.status).toBe(200);
}

async function fault(canister: DemoCanister, user: string, vault: string, notePath: string, value: CanisterFault | null) {
  const outcome = expectResponse(await control(canister, 'faults', { user, vault, path: notePath, fault: value }));
  expect(outcome.status).toBe(200);
}

async function requestLog(canister: DemoCanister, user: string): Promise<RecordedRequest[]> {
  const outcome = expectResponse(
    await exchange(canister.url, `/__control/requests?user=${encodeURIComponent(user)}`, {
      headers: { 'X-Gateway-Auth': SECRET },
    }),
  );
  expect(outcome.status).toBe(200);
  return JSON.parse(outcome.body) as RecordedRequest[];
}

/** Resolves once the canister has logged `count` requests for this user (so a request is in flight server-side). */
async function untilLogged(canister: DemoCanister, user: string, count: number): Promise<void> {
  for (;;) {
    if ((await requestLog(canister, user)).length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('demo canister', () => {
  let canister: DemoCanister;

  beforeAll(async () => {
    canister = await startDemoCanister({ gatewaySecret: SECRET, vaultDir: demoVault, control: true });
  });
  afterAll(async () => {
    await canister.close();
  });

  it('listens on 127.0.0.1 and reports a url without a trailing slash', () => {
    expect(canister.url).toBe(`http://127.0.0.1:${canister.port}`);
    expect(canister.port).toBeGreaterThan(0);
  });

  describe('fail-closed gateway auth', () => {
    it('answers /health without auth', async () => {
      const res = expectResponse(await exchange(canister.url, '/health'));
      expect(res.status).toBe(200);
      expect(res.body).toBe('{"ok":true}');
    });

    it('answers OPTIONS without auth and without a body', async () => {
      const res = expectResponse(await exchange(canister.url, noteTarget('daily/2026-03-02.md'), { method: 'OPTIONS' }));
      expect(res.status).toBe(204);
      expect(res.body).toBe('');
    });

    it('refuses a missing X-Gateway-Auth with the exact 403 body', async () => {
      const res = expectResponse(
        await exchange(canister.url, noteTarget('daily/2026-03-02.md'), { headers: { 'X-User-Id': 'demo' } }),
      );
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toBe(AUTH_REQUIRED);
    });

    it('refuses a wrong secret, including one of the same length and an empty one', async () => {
      for (const wrong of ['nope', SECRET.replace(/.$/, 'X'), '', `${SECRET} `.trim() + 'x']) {
        const res = expectResponse(
          await exchange(canister.url, noteTarget('daily/2026-03-02.md'), { headers: authHeaders('demo', undefined, wrong) }),
        );
        expect(res.status, `secret ${JSON.stringify(wrong)}`).toBe(403);
        expect(res.body).toBe(AUTH_REQUIRED);
      }
    });

    it('accepts the configured secret', async () => {
      const res = expectResponse(await exchange(canister.url, noteTarget('daily/2026-03-02.md'), { headers: authHeaders('demo') }));
      expect(res.status).toBe(200);
    });

    it('refuses unknown routes and the control API without auth (403 before 404)', async () => {
      for (const target of ['/nope', '/__control/requests?user=x', '/api/v1/notes/batch']) {
        const res = expectResponse(await exchange(canister.url, target));
        expect(res.status, target).toBe(403);
      }
    });

    it.each([
      ['empty', ''],
      ['missing', undefined],
    ])('denies everything when the configured secret is %s', async (_label, configured) => {
      const closed = await startDemoCanister({ gatewaySecret: configured, vaultDir: demoVault });
      try {
        for (const sent of ['', 'anything', SECRET]) {
          const res = expectResponse(
            await exchange(closed.url, noteTarget('daily/2026-03-02.md'), { headers: authHeaders('demo', undefined, sent) }),
          );
          expect(res.status).toBe(403);
          expect(res.body).toBe(AUTH_REQUIRED);
        }
        const noHeader = expectResponse(await exchange(closed.url, noteTarget('daily/2026-03-02.md'), { headers: { 'X-User-Id': 'demo' } }));
        expect(noHeader.status).toBe(403);
        expect(expectResponse(await exchange(closed.url, '/health')).status).toBe(200);
      } finally {
        await closed.close();
      }
    });
  });

  describe('note responses', () => {
    it('answers 200 with exactly path, frontmatter (as JSON text) and body, in that order', async () => {
      const user = freshUser('shape');
      await seed(canister, user, 'default', [
        { path: 'a/b.md', frontmatter: { title: 'T', tags: ['x'] }, body: '# Heading\n\ntext\n' },
      ]);
      const res = expectResponse(await exchange(canister.url, noteTarget('a/b.md'), { headers: authHeaders(user) }));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toBe(
        JSON.stringify({ path: 'a/b.md', frontmatter: '{"title":"T","tags":["x"]}', body: '# Heading\n\ntext\n' }),
      );
      const parsed = JSON.parse(res.body) as Record<string, unknown>;
      expect(Object.keys(parsed)).toEqual(['path', 'frontmatter', 'body']);
      expect(typeof parsed.frontmatter).toBe('string');
    });

    it('stores string frontmatter verbatim and defaults absent frontmatter/body', async () => {
      const user = freshUser('fm');
      await seed(canister, user, 'default', [
        { path: 'verbatim.md', frontmatter: '{\\"title\\":\\"Escaped\\"}', body: 'b' },
        { path: 'bare.md' },
      ]);
      const verbatim = JSON.parse(expectResponse(await exchange(canister.url, noteTarget('verbatim.md'), { headers: authHeaders(user) })).body);
      expect(verbatim.frontmatter).toBe('{\\"title\\":\\"Escaped\\"}');
      const bare = expectResponse(await exchange(canister.url, noteTarget('bare.md'), { headers: authHeaders(user) }));
      expect(bare.body).toBe('{"path":"bare.md","frontmatter":"{}","body":""}');
    });

    it('answers a raw note with exactly JSON.stringify(raw)', async () => {
      const user = freshUser('raw');
      const raws: Array<[string, unknown]> = [
        ['array.md', [1, 2, 3]],
        ['number.md', 42],
        ['null.md', null],
        ['odd.md', { path: 'elsewhere.md', frontmatter: { a: 1 }, body: 7, extra: true }],
      ];
      await seed(canister, user, 'default', raws.map(([p, raw]) => ({ path: p, raw })));
      for (const [p, raw] of raws) {
        const res = expectResponse(await exchange(canister.url, noteTarget(p), { headers: authHeaders(user) }));
        expect(res.status).toBe(200);
        expect(res.body).toBe(JSON.stringify(raw));
      }
    });

    it('answers the exact 404 body for a missing note', async () => {
      const res = expectResponse(await exchange(canister.url, noteTarget('missing.md'), { headers: authHeaders('demo') }));
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toBe(NOT_FOUND);
    });

    it('treats batch and delete-by-prefix as non-notes even when such notes exist', async () => {
      const user = freshUser('batch');
      await seed(canister, user, 'default', [{ path: 'batch' }, { path: 'delete-by-prefix' }, { path: 'batch/x.md' }]);
      for (const target of ['/api/v1/notes/batch', '/api/v1/notes/delete-by-prefix']) {
        const res = expectResponse(await exchange(canister.url, target, { headers: authHeaders(user) }));
        expect(res.status, target).toBe(404);
        expect(res.body).toBe(NOT_FOUND);
      }
      const nested = expectResponse(await exchange(canister.url, '/api/v1/notes/batch%2Fx.md', { headers: authHeaders(user) }));
      expect(nested.status).toBe(200);
    });

    it('answers 405 for non-GET methods on notes', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const res = expectResponse(
          await exchange(canister.url, noteTarget('daily/2026-03-02.md'), { method, headers: authHeaders('demo') }),
        );
        expect(res.status, method).toBe(405);
      }
    });

    it('answers 404 JSON for other routes', async () => {
      for (const target of ['/', '/api/v1/notes', '/api/v1/note', '/health/x', '/__control/unknown']) {
        const res = expectResponse(await exchange(canister.url, target, { headers: authHeaders('demo') }));
        expect(res.status, target).toBe(404);
        expect(res.body).toBe(NOT_FOUND);
      }
    });
  });

  describe('path decoding', () => {
    const user = freshUser('paths');

    beforeAll(async () => {
      await seed(canister, user, 'default', [
        { path: 'projects/My Project/a b.md', body: 'spaces' },
        { path: 'literal%41.md', body: 'percent in the stored path' },
        { path: '100%.md', body: 'undecodable' },
        { path: 'both b.md', body: 'decoded form' },
        { path: 'both%20b.md', body: 'raw form' },
        { path: 'Café/ünï.md', body: 'unicode' },
      ]);
    });

    const bodyOf = async (target: string) => {
      const res = expectResponse(await exchange(canister.url, target, { headers: authHeaders(user) }));
      return res.status === 200 ? (JSON.parse(res.body) as { body: string }).body : res.status;
    };

    it('decodes %2F and %20 in the remainder', async () => {
      expect(await bodyOf('/api/v1/notes/projects%2FMy%20Project%2Fa%20b.md')).toBe('spaces');
      expect(await bodyOf('/api/v1/notes/projects/My%20Project/a%20b.md')).toBe('spaces');
    });

    it('strips exactly one trailing slash, encoded or not', async () => {
      expect(await bodyOf('/api/v1/notes/projects%2FMy%20Project%2Fa%20b.md/')).toBe('spaces');
      expect(await bodyOf('/api/v1/notes/projects%2FMy%20Project%2Fa%20b.md%2F')).toBe('spaces');
      expect(await bodyOf('/api/v1/notes/projects%2FMy%20Project%2Fa%20b.md//')).toBe(404);
    });

    it('falls back to the raw remainder when the decoded form is not stored', async () => {
      expect(await bodyOf('/api/v1/notes/literal%41.md')).toBe('percent in the stored path');
    });

    it('uses the raw remainder when percent-decoding fails', async () => {
      expect(await bodyOf('/api/v1/notes/100%.md')).toBe('undecodable');
    });

    it('prefers the decoded form over the raw remainder', async () => {
      expect(await bodyOf('/api/v1/notes/both%20b.md')).toBe('decoded form');
    });

    it('decodes UTF-8 percent escapes', async () => {
      expect(await bodyOf(noteTarget('Café/ünï.md'))).toBe('unicode');
    });

    it('ignores the query string', async () => {
      expect(await bodyOf(`${noteTarget('projects/My Project/a b.md')}?x=1`)).toBe('spaces');
    });
  });

  describe('partitioning', () => {
    it('separates users and defaults an absent X-User-Id to "default"', async () => {
      const alice = freshUser('alice');
      const bob = freshUser('bob');
      await seed(canister, alice, 'default', [{ path: 'shared.md', body: 'alice' }]);
      await seed(canister, bob, 'default', [{ path: 'shared.md', body: 'bob' }]);
      await seed(canister, 'default', 'default', [{ path: 'default-user-only.md', body: 'default user' }]);
      const read = async (headers: Record<string, string>, notePath: string) =>
        expectResponse(await exchange(canister.url, noteTarget(notePath), { headers }));
      expect(JSON.parse((await read(authHeaders(alice), 'shared.md')).body).body).toBe('alice');
      expect(JSON.parse((await read(authHeaders(bob), 'shared.md')).body).body).toBe('bob');
      expect((await read(authHeaders(freshUser('carol')), 'shared.md')).status).toBe(404);
      expect((await read({ 'X-Gateway-Auth': SECRET }, 'default-user-only.md')).status).toBe(200);
      expect((await read(authHeaders(alice), 'default-user-only.md')).status).toBe(404);
    });

    it('loads the demo vault into user demo, vault default only', async () => {
      const ok = expectResponse(await exchange(canister.url, noteTarget('daily/2026-03-02.md'), { headers: authHeaders('demo') }));
      expect(ok.status).toBe(200);
      const otherVault = expectResponse(
        await exchange(canister.url, noteTarget('daily/2026-03-02.md'), { headers: authHeaders('demo', 'other') }),
      );
      expect(otherVault.status).toBe(404);
      const otherUser = expectResponse(
        await exchange(canister.url, noteTarget('daily/2026-03-02.md'), { headers: authHeaders(freshUser('nobody')) }),
      );
      expect(otherUser.status).toBe(404);
    });

    it('sanitizes, trims, truncates and defaults the vault id', async () => {
      const user = freshUser('vaults');
      const longVault = 'v'.repeat(64);
      await seed(canister, user, 'team vault!', [{ path: 'n.md', body: 'sanitized' }]);
      await seed(canister, user, `${longVault}-and-more`, [{ path: 'n.md', body: 'long' }]);
      await seed(canister, user, 'default', [{ path: 'n.md', body: 'default' }]);
      await seed(canister, user, 'caf\u00e9', [{ path: 'n.md', body: 'latin1' }]);
      const bodyFor = async (vault: string | undefined) => {
        const res = expectResponse(await exchange(canister.url, noteTarget('n.md'), { headers: authHeaders(user, vault) }));
        return res.status === 200 ? (JSON.parse(res.body) as { body: string }).body : res.status;
      };
      expect(await bodyFor('team vault!')).toBe('sanitized');
      expect(await bodyFor('team_vault_')).toBe('sanitized');
      expect(await bodyFor('  team vault!  ')).toBe('sanitized');
      expect(await bodyFor('team-vault-')).toBe(404);
      expect(await bodyFor(longVault)).toBe('long');
      expect(await bodyFor(`${longVault}x`)).toBe('long');
      expect(await bodyFor(undefined)).toBe('default');
      expect(await bodyFor('')).toBe('default');
      expect(await bodyFor('   ')).toBe('default');
      expect(await bodyFor('caf_')).toBe('latin1');
    });

    it('sanitizes per code point', () => {
      expect(sanitizeVaultId('a\u{1F600}b')).toBe('a_b');
      expect(sanitizeVaultId('Ok_-09')).toBe('Ok_-09');
      expect(sanitizeVaultId('a/b.c')).toBe('a_b_c');
      expect(sanitizeVaultId(undefined)).toBe('default');
      expect(sanitizeVaultId(' \t ')).toBe('default');
      expect(sanitizeVaultId('x'.repeat(100))).toBe('x'.repeat(64));
    });
  });

  describe('vault loader', () => {
    it('serves demo notes with YAML dates as ISO strings and the YAML block removed from the body', async () => {
      const res = expectResponse(await exchange(canister.url, noteTarget('daily/2026-03-02.md'), { headers: authHeaders('demo') }));
      const note = JSON.parse(res.body) as { path: string; frontmatter: string; body: string };
      expect(note.path).toBe('daily/2026-03-02.md');
      expect(JSON.parse(note.frontmatter)).toEqual({ date: '2026-03-02T00:00:00.000Z', tags: ['daily'], mood: 'focused' });
      const file = await readFile(path.join(demoVault, 'daily/2026-03-02.md'), 'utf8');
      expect(note.body).toBe(file.slice(file.indexOf('# Monday')));
    });

    it('keeps invalid YAML as body text with frontmatter {}', async () => {
      const res = expectResponse(await exchange(canister.url, noteTarget('inbox/broken-frontmatter.md'), { headers: authHeaders('demo') }));
      const note = JSON.parse(res.body) as { frontmatter: string; body: string };
      expect(note.frontmatter).toBe('{}');
      expect(note.body).toBe(await readFile(path.join(demoVault, 'inbox/broken-frontmatter.md'), 'utf8'));
    });

    it('serves vault paths with spaces and CRLF frontmatter', async () => {
      const spaced = expectResponse(
        await exchange(canister.url, noteTarget('projects/Tidal Garden/planting plan.md'), { headers: authHeaders('demo') }),
      );
      expect(JSON.parse(JSON.parse(spaced.body).frontmatter).project).toBe('Tidal Garden');
      const crlf = expectResponse(await exchange(canister.url, noteTarget('daily/2026-03-04.md'), { headers: authHeaders('demo') }));
      const note = JSON.parse(crlf.body) as { frontmatter: string; body: string };
      expect(JSON.parse(note.frontmatter).title).toBe('Wednesday (CRLF)');
      expect(note.body.startsWith('# Wednesday 4 March\r\n')).toBe(true);
    });

    it('splits frontmatter by the documented rules', () => {
      expect(parseVaultNote('---\ntitle: A\n---\nbody\n')).toEqual({ frontmatter: '{"title":"A"}', body: 'body\n' });
      expect(parseVaultNote('---\r\ntitle: A\r\n---\r\nbody')).toEqual({ frontmatter: '{"title":"A"}', body: 'body' });
      expect(parseVaultNote('---\ntitle: A\n---')).toEqual({ frontmatter: '{"title":"A"}', body: '' });
      expect(parseVaultNote('---\n---\nbody')).toEqual({ frontmatter: '{}', body: 'body' });
      expect(parseVaultNote('no frontmatter\n---\n')).toEqual({ frontmatter: '{}', body: 'no frontmatter\n---\n' });
      expect(parseVaultNote('---\nunclosed: true\n')).toEqual({ frontmatter: '{}', body: '---\nunclosed: true\n' });
      expect(parseVaultNote('---\n- a\n- b\n---\nx')).toEqual({ frontmatter: '{}', body: '---\n- a\n- b\n---\nx' });
      expect(parseVaultNote('---\njust a string\n---\nx')).toEqual({ frontmatter: '{}', body: '---\njust a string\n---\nx' });
      expect(parseVaultNote('---\na: [\n---\nx')).toEqual({ frontmatter: '{}', body: '---\na: [\n---\nx' });
      expect(parseVaultNote('---\na: 1\na: 2\n---\nx')).toEqual({ frontmatter: '{}', body: '---\na: 1\na: 2\n---\nx' });
      expect(parseVaultNote('')).toEqual({ frontmatter: '{}', body: '' });
    });

    it('stores YAML timestamps as ISO strings and keeps other scalars as YAML 1.2 reads them', () => {
      const { frontmatter } = parseVaultNote(
        '---\nd: 2026-03-02\nt: 2026-03-03 21:15:00\nq: "2026-03-04"\nyes_word: yes\nn: 0x1F\nnested: {when: 2025-12-30}\n---\n',
      );
      expect(JSON.parse(frontmatter)).toEqual({
        d: '2026-03-02T00:00:00.000Z',
        t: '2026-03-03T21:15:00.000Z',
        q: '2026-03-04',
        yes_word: 'yes',
        n: 31,
        nested: { when: '2025-12-30T00:00:00.000Z' },
      });
    });

    describe('on a scratch vault', () => {
      let dir: string;
      beforeAll(async () => {
        dir = await mkdtemp(path.join(tmpdir(), 'demo-canister-vault-'));
        await mkdir(path.join(dir, 'deep', 'er'), { recursive: true });
        await writeFile(path.join(dir, 'top.md'), '---\ntitle: Top\n---\n# Top\n');
        await writeFile(path.join(dir, 'deep', 'er', 'leaf.md'), 'leaf body');
        await writeFile(path.join(dir, 'ignored.txt'), 'not markdown');
        await writeFile(path.join(dir, 'ignored.markdown'), 'not *.md');
      });
      afterAll(async () => {
        await rm(dir, { recursive: true, force: true });
      });

      it('loads every *.md recursively with /-separated vault-relative paths', async () => {
        expect(await loadVault(dir)).toEqual([
          { path: 'deep/er/leaf.md', frontmatter: '{}', body: 'leaf body' },
          { path: 'top.md', frontmatter: '{"title":"Top"}', body: '# Top\n' },
        ]);
      });

      it('seeds the configured user and vault', async () => {
        const custom = await startDemoCanister({ gatewaySecret: SECRET, vaultDir: dir, seedUser: 'u1', seedVault: 'team' });
        try {
          const hit = expectResponse(await exchange(custom.url, noteTarget('deep/er/leaf.md'), { headers: authHeaders('u1', 'team') }));
          expect(hit.body).toBe('{"path":"deep/er/leaf.md","frontmatter":"{}","body":"leaf body"}');
          const miss = expectResponse(await exchange(custom.url, noteTarget('deep/er/leaf.md'), { headers: authHeaders('demo') }));
          expect(miss.status).toBe(404);
        } finally {
          await custom.close();
        }
      });

      it('rejects a missing vault directory at start', async () => {
        await expect(startDemoCanister({ gatewaySecret: SECRET, vaultDir: path.join(dir, 'nope') })).rejects.toThrow();
      });
    });

    describe('on a folder with files it cannot serve (npm start --vault)', () => {
      const isRoot = process.getuid?.() === 0;
      let dir: string;
      beforeAll(async () => {
        dir = await mkdtemp(path.join(tmpdir(), 'demo-canister-own-notes-'));
        await mkdir(path.join(dir, 'projects', 'Zed'), { recursive: true });
        await mkdir(path.join(dir, '.obsidian'), { recursive: true });
        await mkdir(path.join(dir, 'locked-folder'), { recursive: true });
        await writeFile(path.join(dir, 'projects', 'Zed', 'plan.md'), '---\ntitle: Plan\ntags: [a, b]\n---\n# Plan\n## Step\n');
        await writeFile(path.join(dir, 'bom.md'), '\uFEFF---\ntitle: With BOM\n---\n# B\n');
        await writeFile(path.join(dir, 'broken-yaml.md'), '---\na: [\n---\n# Broken\n');
        await writeFile(path.join(dir, 'list-yaml.md'), '---\n- a\n---\n# List\n');
        await writeFile(path.join(dir, 'latin1.md'), Buffer.from([0x23, 0x20, 0x43, 0x61, 0x66, 0xe9, 0x0a]));
        await writeFile(path.join(dir, 'too-big.md'), Buffer.alloc(MAX_VAULT_FILE_BYTES + 1, 0x61));
        await writeFile(path.join(dir, 'back\\slash.md'), '# unreachable\n');
        await writeFile(path.join(dir, ' padded.md'), '# unreachable\n');
        await writeFile(path.join(dir, '.obsidian', 'workspace.md'), '# hidden\n');
        await mkdir(path.join(dir, 'node_modules', 'pkg'), { recursive: true });
        await writeFile(path.join(dir, 'node_modules', 'pkg', 'README.md'), '# dependency\n');
        await writeFile(path.join(dir, 'notes.txt'), 'not markdown');
        await writeFile(path.join(dir, 'locked.md'), '# locked\n');
        await writeFile(path.join(dir, 'locked-folder', 'inside.md'), '# inside\n');
        await symlink(path.join(dir, 'bom.md'), path.join(dir, 'link.md'));
        execFileSync('mkfifo', [path.join(dir, 'pipe.md')]);
        await chmod(path.join(dir, 'locked.md'), 0o000);
        await chmod(path.join(dir, 'locked-folder'), 0o000);
      });
      afterAll(async () => {
        await chmod(path.join(dir, 'locked-folder'), 0o755).catch(() => {});
        await rm(dir, { recursive: true, force: true });
      });

      it('loads the good notes, names every skipped file with its reason, and never throws', async () => {
        const report = await readVault(dir);
        expect(report.notes.map((note) => note.path)).toEqual(
          isRoot
            ? ['bom.md', 'broken-yaml.md', 'list-yaml.md', 'locked-folder/inside.md', 'locked.md', 'projects/Zed/plan.md']
            : ['bom.md', 'broken-yaml.md', 'list-yaml.md', 'projects/Zed/plan.md'],
        );
        expect(report.skipped).toEqual(
          expect.arrayContaining([
            { path: ' padded.md', reason: 'path starts or ends with whitespace, which the Worker trims' },
            { path: 'back\\slash.md', reason: 'path contains a backslash, which the Worker reads as a folder separator' },
            { path: 'latin1.md', reason: 'not valid UTF-8' },
            { path: 'link.md', reason: 'symbolic link (not followed)' },
            { path: 'pipe.md', reason: 'not a regular file' },
            { path: 'too-big.md', reason: 'larger than 8 MiB' },
          ]),
        );
        expect(report.skipped).toHaveLength(isRoot ? 6 : 8);
        expect(report.warnings).toEqual([
          { path: 'broken-yaml.md', reason: 'frontmatter is not valid YAML: served with frontmatter {} and the block kept in the body' },
          { path: 'list-yaml.md', reason: 'frontmatter is not a YAML mapping: served with frontmatter {} and the block kept in the body' },
        ]);
        expect(report.limitReached).toBe(false);
        const bom = report.notes.find((note) => note.path === 'bom.md');
        expect(bom).toEqual({ path: 'bom.md', frontmatter: '{"title":"With BOM"}', body: '# B\n' });
      });

      // Root reads everything, so as root the walk runs in a child process as user nobody (setpriv).
      // The child must load demo/canister.mjs as nobody: a clone inside a private (0700) folder is out of its reach.
      const dropRootArgs = ['--reuid=65534', '--regid=65534', '--clear-groups'];
      const canDropRoot =
        isRoot &&
        existsSync('/usr/bin/setpriv') &&
        spawnSync('/usr/bin/setpriv', [...dropRootArgs, '/usr/bin/test', '-r', path.join(repoRoot, 'demo', 'canister.mjs')]).status === 0;
      if (isRoot && !canDropRoot) {
        console.warn('demo-canister.test.ts: user nobody cannot read this checkout (or setpriv is missing), so the unreadable-file case is SKIPPED.');
      }
      it.skipIf(isRoot && !canDropRoot)('names an unreadable file and an unreadable folder', async () => {
        let report: Awaited<ReturnType<typeof readVault>>;
        if (canDropRoot) {
          await chmod(dir, 0o755);
          const canisterModule = pathToFileURL(path.join(repoRoot, 'demo', 'canister.mjs')).href;
          const script = `const m = await import(${JSON.stringify(canisterModule)}); process.stdout.write(JSON.stringify(await m.readVault(${JSON.stringify(dir)})));`;
          const stdout = execFileSync('/usr/bin/setpriv', [...dropRootArgs, process.execPath, '--input-type=module', '-e', script], {
            encoding: 'utf8',
          });
          report = JSON.parse(stdout) as typeof report;
          expect(report.notes.map((note) => note.path)).not.toContain('locked.md');
        } else {
          report = await readVault(dir);
        }
        expect(report.skipped).toEqual(
          expect.arrayContaining([
            { path: 'locked.md', reason: 'unreadable (EACCES)' },
            { path: 'locked-folder/', reason: 'folder unreadable (EACCES)' },
          ]),
        );
      });

      it('serves the loaded notes, 404s the skipped ones, and lists paths in process only', async () => {
        const custom = await startDemoCanister({ gatewaySecret: SECRET, vaultDir: dir });
        try {
          expect(custom.vault?.noteCount).toBe(custom.listNotes().length);
          expect(custom.vault?.skipped.map((issue) => issue.path)).toContain('latin1.md');
          expect(custom.listNotes()).toContain('projects/Zed/plan.md');
          expect(custom.listNotes('someone-else')).toEqual([]);
          const hit = expectResponse(await exchange(custom.url, noteTarget('projects/Zed/plan.md'), { headers: authHeaders('demo') }));
          expect(hit.status).toBe(200);
          for (const skipped of ['latin1.md', 'link.md', 'too-big.md', 'pipe.md', '.obsidian/workspace.md']) {
            const miss = expectResponse(await exchange(custom.url, noteTarget(skipped), { headers: authHeaders('demo') }));
            expect(miss.status, skipped).toBe(404);
          }
        } finally {
          await custom.close();
        }
      });
    });
  });

  describe('faults', () => {
    const vault = 'faults';
    const notePath = 'faulty/note.md';
    const fullNote = JSON.stringify({ path: notePath, frontmatter: '{"title":"Faulty"}', body: '# Faulty\n\nSome text.\n'.repeat(20) });

    async function userWithFault(value: CanisterFault): Promise<string> {
      const user = freshUser('fault');
      await seed(canister, user, vault, [{ path: notePath, frontmatter: { title: 'Faulty' }, body: '# Faulty\n\nSome text.\n'.repeat(20) }]);
      await fault(canister, user, vault, notePath, value);
      return user;
    }

    it('status: answers the given status with the given body and content type', async () => {
      const user = await userWithFault({ kind: 'status', status: 503, body: '<h1>down</h1>', contentType: 'text/html' });
      const res = expectResponse(await exchange(canister.url, noteTarget(notePath), { headers: authHeaders(user, vault) }));
      expect(res.status).toBe(503);
      expect(res.body).toBe('<h1>down</h1>');
      expect(res.headers['content-type']).toBe('text/html');
    });

    it('status: defaults to a JSON error body', async () => {
      const user = await userWithFault({ kind: 'status', status: 500 });
      const res = expectResponse(await exchange(canister.url, noteTarget(notePath), { headers: authHeaders(user, vault) }));
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'INJECTED_FAULT' });
    });

    it('text: answers 200 with exactly the text', async () => {
      const user = await userWithFault({ kind: 'text', body: '{"path":"faulty/note.md","front' });
      const res = expectResponse(await exchange(canister.url, noteTarget(notePath), { headers: authHeaders(user, vault) }));
      expect(res.status).toBe(200);
      expect(res.body).toBe('{"path":"faulty/note.md","front');
    });

    it('applies to a path with no stored note, and is cleared by null', async () => {
      const user = freshUser('fault-clear');
      await fault(canister, user, vault, 'ghost.md', { kind: 'status', status: 502 });
      expect(expectResponse(await exchange(canister.url, noteTarget('ghost.md'), { headers: authHeaders(user, vault) })).status).toBe(502);
      await fault(canister, user, vault, 'ghost.md', null);
      expect(expectResponse(await exchange(canister.url, noteTarget('ghost.md'), { headers: authHeaders(user, vault) })).status).toBe(404);
    });

    it('applies only to its own partition and path', async () => {
      const user = await userWithFault({ kind: 'status', status: 500 });
      await seed(canister, user, vault, [{ path: 'healthy.md', body: 'fine' }]);
      expect(expectResponse(await exchange(canister.url, noteTarget('healthy.md'), { headers: authHeaders(user, vault) })).status).toBe(200);
      expect(expectResponse(await exchange(canister.url, noteTarget(notePath), { headers: authHeaders(user, 'other') })).status).toBe(404);
    });

    it('is checked after auth: an unauthenticated request still gets 403', async () => {
      const user = await userWithFault({ kind: 'hang' });
      const res = expectResponse(
        await exchange(canister.url, noteTarget(notePath), { headers: { 'X-User-Id': user, 'X-Vault-Id': vault } }),
      );
      expect(res.status).toBe(403);
      expect(res.body).toBe(AUTH_REQUIRED);
    });

    it('reset: destroys the connection without any response', async () => {
      const user = await userWithFault({ kind: 'reset' });
      const outcome = await exchange(canister.url, noteTarget(notePath), { headers: authHeaders(user, vault) });
      expect(outcome.kind).toBe('error');
      expect(outcome).toMatchObject({ status: undefined, partial: '' });
    });

    it('reset-mid-body: sends headers and a prefix of the note, then drops the connection', async () => {
      const user = await userWithFault({ kind: 'reset-mid-body' });
      const outcome = await exchange(canister.url, noteTarget(notePath), { headers: authHeaders(user, vault) });
      expect(outcome.kind).toBe('error');
      if (outcome.kind !== 'error') return;
      expect(outcome.status).toBe(200);
      expect(outcome.partial.length).toBeGreaterThan(0);
      expect(outcome.partial.length).toBeLessThan(fullNote.length);
      expect(fullNote.startsWith(outcome.partial)).toBe(true);
    });

    it('drip: delivers the complete note JSON in several pieces', async () => {
      const user = await userWithFault({ kind: 'drip', chunks: 5, intervalMs: 20 });
      const res = expectResponse(await exchange(canister.url, noteTarget(notePath), { headers: authHeaders(user, vault) }));
      expect(res.status).toBe(200);
      expect(res.body).toBe(fullNote);
      expect(res.dataEvents).toBeGreaterThan(1);
    });

    it('huge: streams a valid note whose body has exactly the requested length (chunked by default)', async () => {
      const bytes = 3_000_001;
      const user = await userWithFault({ kind: 'huge', bytes });
      const res = expectResponse(await exchange(canister.url, noteTarget(notePath), { headers: authHeaders(user, vault), waitMs: 30_000 }));
      expect(res.status).toBe(200);
      expect(res.headers['content-length']).toBeUndefined();
      expect(res.headers['transfer-encoding']).toBe('chunked');
      const note = JSON.parse(res.body) as { path: string; frontmatter: string; body: string };
      expect(Object.keys(note)).toEqual(['path', 'frontmatter', 'body']);
      expect(note.path).toBe(notePath);
      expect(note.frontmatter).toBe('{}');
      expect(note.body.length).toBe(bytes);
    });

    it('huge: can declare an exact Content-Length', async () => {
      const bytes = 200_003;
      const user = await userWithFault({ kind: 'huge', bytes, declareLength: true });
      const res = expectResponse(await exchange(canister.url, noteTarget(notePath), { headers: authHeaders(user, vault) }));
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
      expect((JSON.parse(res.body) as { body: string }).body.length).toBe(bytes);
    });

    it('huge: a client that goes away early does not disturb the server', async () => {
      const user = await userWithFault({ kind: 'huge', bytes: 1024 * 1024 * 1024 });
      const outcome = await exchange(canister.url, noteTarget(notePath), { headers: authHeaders(user, vault), abortAfterBytes: 1 });
      expect(outcome).toMatchObject({ kind: 'error', status: 200 });
      const after = expectResponse(await exchange(canister.url, noteTarget('daily/2026-03-02.md'), { headers: authHeaders('demo') }));
      expect(after.status).toBe(200);
    });

    describe('hanging responses (own canister, so close() can be observed)', () => {
      let own: DemoCanister;
      const ownControl = (route: string, body: unknown) =>
        exchange(own.url, `/__control/${route}`, {
          method: 'POST',
          headers: { 'X-Gateway-Auth': SECRET, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });

      beforeAll(async () => {
        own = await startDemoCanister({ gatewaySecret: SECRET, control: true });
      });
      afterAll(async () => {
        await own.close();
      });

      it('hang: never answers, and close() destroys the open socket', async () => {
        const user = freshUser('hang');
        await ownControl('faults', { user, vault, path: notePath, fault: { kind: 'hang' } });
        await ownControl('faults', { user, vault, path: 'body.md', fault: { kind: 'hang-body' } });
        await ownControl('notes', { user, vault, notes: [{ path: 'body.md', body: 'x'.repeat(100) }] });

        const hung = exchange(own.url, noteTarget(notePath), { headers: authHeaders(user, vault), waitMs: 60_000 });
        const hungBody = exchange(own.url, noteTarget('body.md'), { headers: authHeaders(user, vault), waitMs: 60_000 });
        await untilLoggedOn(own, user, 2);
        // Short patience: a response now would be a defect.
        const early = await exchange(own.url, noteTarget(notePath), { headers: authHeaders(user, vault), waitMs: 300 });
        expect(early).toEqual({ kind: 'timeout', status: undefined, partial: '' });
        const earlyBody = await exchange(own.url, noteTarget('body.md'), { headers: authHeaders(user, vault), waitMs: 300 });
        expect(earlyBody.kind).toBe('timeout');
        expect(earlyBody).toMatchObject({ status: 200 });
        const full = JSON.stringify({ path: 'body.md', frontmatter: '{}', body: 'x'.repeat(100) });
        const partial = (earlyBody as { partial: string }).partial;
        expect(partial.length).toBeGreaterThan(0);
        expect(full.startsWith(partial) && partial.length < full.length).toBe(true);

        await own.close();
        expect(await hung).toMatchObject({ kind: 'error', status: undefined });
        expect(await hungBody).toMatchObject({ kind: 'error', status: 200 });
      });

      async function untilLoggedOn(target: DemoCanister, user: string, count: number) {
        for (;;) {
          const res = expectResponse(
            await exchange(target.url, `/__control/requests?user=${encodeURIComponent(user)}`, { headers: { 'X-Gateway-Auth': SECRET } }),
          );
          if ((JSON.parse(res.body) as unknown[]).length >= count) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    });

    it('rejects malformed faults and notes with 400', async () => {
      const bad: unknown[] = [
        { user: 'u', vault: 'v', path: 'p', fault: { kind: 'explode' } },
        { user: 'u', vault: 'v', path: 'p', fault: { kind: 'status', status: 99 } },
        { user: 'u', vault: 'v', path: 'p', fault: { kind: 'drip', chunks: 0, intervalMs: 1 } },
        { user: 'u', vault: 'v', path: 'p', fault: { kind: 'huge', bytes: -1 } },
        { user: 'u', vault: 'v', fault: { kind: 'hang' } },
      ];
      for (const body of bad) {
        expect(expectResponse(await control(canister, 'faults', body)).status, JSON.stringify(body)).toBe(400);
      }
      expect(expectResponse(await control(canister, 'notes', { user: 'u', notes: [{ path: 1 }] })).status).toBe(400);
      expect(expectResponse(await control(canister, 'notes', { user: 'u', notes: [{ path: 'a', body: 5 }] })).status).toBe(400);
      const notJson = await exchange(canister.url, '/__control/notes', {
        method: 'POST',
        headers: { 'X-Gateway-Auth': SECRET },
        body: '{nope',
      });
      expect(expectResponse(notJson).status).toBe(400);
    });
  });

  describe('request log', () => {
    it('records every request with that X-User-Id, including refused ones, with raw url and lower-cased headers', async () => {
      const user = freshUser('log');
      await exchange(canister.url, '/api/v1/notes/a%2Fb.md?x=1', {
        headers: { 'X-User-Id': user, 'X-Vault-Id': 'V', 'X-Custom-Thing': 'Value' },
      });
      await exchange(canister.url, '/api/v1/notes/c.md', { headers: authHeaders(user) });
      await exchange(canister.url, '/api/v1/notes/other.md', { headers: authHeaders(freshUser('someone-else')) });
      await untilLogged(canister, user, 2);
      const log = await requestLog(canister, user);
      expect(log).toHaveLength(2);
      expect(log[0]).toMatchObject({ method: 'GET', url: '/api/v1/notes/a%2Fb.md?x=1' });
      expect(log[0]!.headers).toMatchObject({ 'x-user-id': user, 'x-vault-id': 'V', 'x-custom-thing': 'Value' });
      expect(log[0]!.headers['x-gateway-auth']).toBeUndefined();
      expect(log[1]).toMatchObject({ method: 'GET', url: '/api/v1/notes/c.md' });
      expect(log[1]!.headers['x-gateway-auth']).toBe(SECRET);
      for (const entry of log) {
        for (const name of Object.keys(entry.headers)) expect(name).toBe(name.toLowerCase());
      }
    });

    it('answers an empty array for an unknown user and 400 without ?user=', async () => {
      expect(await requestLog(canister, freshUser('never-seen'))).toEqual([]);
      const res = expectResponse(await exchange(canister.url, '/__control/requests', { headers: { 'X-Gateway-Auth': SECRET } }));
      expect(res.status).toBe(400);
    });
  });

  describe('Host guard (DNS rebinding)', () => {
    const MISDIRECTED = '{"error":"Misdirected request","code":"MISDIRECTED_REQUEST"}';
    const notePath = 'daily/2026-03-02.md';
    const otherPort = () => (canister.port === 65535 ? canister.port - 1 : canister.port + 1);

    it('serves its own loopback name and port, as the Worker sends them (fetch sets Host from the URL)', async () => {
      for (const host of [`127.0.0.1:${canister.port}`, `localhost:${canister.port}`, `LocalHost:${canister.port}`]) {
        const res = expectResponse(await exchange(canister.url, noteTarget(notePath), { headers: { ...authHeaders('demo'), Host: host } }));
        expect(res.status, host).toBe(200);
        expect(JSON.parse(res.body).path).toBe(notePath);
      }
      const user = freshUser('worker-shape');
      await seed(canister, user, 'default', [{ path: 'w.md', body: 'from fetch' }]);
      const viaFetch = await fetch(`${canister.url}${noteTarget('w.md')}`, { headers: authHeaders(user) });
      expect(viaFetch.status).toBe(200);
      expect(((await viaFetch.json()) as { body: string }).body).toBe('from fetch');
      const [logged] = await requestLog(canister, user);
      expect(logged!.headers.host).toBe(`127.0.0.1:${canister.port}`);
    });

    it.each([
      ['a foreign name', () => 'evil.example'],
      ['a foreign name with the canister port 8788', () => 'evil.example:8788'],
      ['a foreign name with this port', () => `evil.example:${canister.port}`],
      ['a name that starts with the loopback address', () => `127.0.0.1.evil.example:${canister.port}`],
      ['localhost with another port', () => `localhost:${otherPort()}`],
      ['the loopback address with another port', () => `127.0.0.1:${otherPort()}`],
      ['the loopback address without a port', () => '127.0.0.1'],
      ['localhost without a port', () => 'localhost'],
      ['userinfo before the own name', () => `user@127.0.0.1:${canister.port}`],
      ['userinfo with a password before localhost', () => `user:pass@localhost:${canister.port}`],
      ['another loopback address', () => `127.0.0.2:${canister.port}`],
      ['IPv6 loopback, where it does not listen', () => `[::1]:${canister.port}`],
      ['the any address', () => `0.0.0.0:${canister.port}`],
      ['a trailing dot', () => `localhost.:${canister.port}`],
    ])('refuses %s with 421 and a fixed body, even with the published gateway secret', async (_label, host) => {
      const res = expectResponse(await exchange(canister.url, noteTarget(notePath), { headers: { ...authHeaders('demo'), Host: host() } }));
      expect(res.status).toBe(421);
      expect(res.body).toBe(MISDIRECTED);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.connection).toBe('close');
    });

    it('refuses an empty Host, a request without Host, and two Host headers', async () => {
      const port = canister.port;
      const own = `127.0.0.1:${port}`;
      const target = noteTarget(notePath);
      const auth = `X-Gateway-Auth: ${SECRET}\r\nX-User-Id: demo\r\n`;
      for (const head of [
        `GET ${target} HTTP/1.1\r\nHost: \r\n${auth}Connection: close\r\n\r\n`,
        `GET ${target} HTTP/1.0\r\n${auth}\r\n`,
        `GET ${target} HTTP/1.1\r\nHost: ${own}\r\nHost: evil.example\r\n${auth}Connection: close\r\n\r\n`,
        `GET ${target} HTTP/1.1\r\nHost: evil.example\r\nHost: ${own}\r\n${auth}Connection: close\r\n\r\n`,
      ]) {
        const res = await rawExchange(port, head);
        expect(res.status, head).toBe(421);
        expect(res.body).toBe(MISDIRECTED);
      }
      // Node itself answers 400 to an HTTP/1.1 request with no Host at all; nothing of the note either way.
      const noHost = await rawExchange(port, `GET ${target} HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`);
      expect(noHost.status).toBe(400);
      expect(noHost.body).not.toContain('Monday');
    });

    it('refuses an absolute-form request target that names another host, whatever the Host header says', async () => {
      const port = canister.port;
      const target = noteTarget(notePath);
      const auth = `X-Gateway-Auth: ${SECRET}\r\nX-User-Id: demo\r\nConnection: close\r\n`;
      for (const absolute of [
        `http://evil.example${target}`,
        `http://evil.example:${port}${target}`,
        `http://user@127.0.0.1:${port}${target}`,
        `https://127.0.0.1:${port}${target}`,
        `http://localhost:${otherPort()}${target}`,
      ]) {
        const res = await rawExchange(port, `GET ${absolute} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${auth}\r\n`);
        expect(res.status, absolute).toBe(421);
        expect(res.body).toBe(MISDIRECTED);
      }
      // Naming this canister is not refused by the Host rule (the target is then not a note route: 404).
      const own = await rawExchange(port, `GET http://127.0.0.1:${port}${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${auth}\r\n`);
      expect(own.status).toBe(404);
    });

    it('a rebound page gets nothing: notes, health, OPTIONS and the whole control API answer 421, and nothing is stored or logged', async () => {
      const port = canister.port;
      const user = freshUser('rebinding');
      await seed(canister, user, 'default', [{ path: 'secret.md', frontmatter: { title: 'Private' }, body: 'private body text' }]);
      // What a page on http://attacker.example:<port> sends once its name resolves to 127.0.0.1.
      const page = { Host: `attacker.example:${port}`, Origin: `http://attacker.example:${port}`, 'X-Gateway-Auth': SECRET, 'X-User-Id': user };
      const json = { ...page, 'Content-Type': 'application/json' };
      const attempts: Array<[string, ExchangeOptions]> = [
        [noteTarget('secret.md'), { headers: page }],
        ['/health', { headers: page }],
        [noteTarget('secret.md'), { method: 'OPTIONS', headers: page }],
        [`/__control/requests?user=${encodeURIComponent(user)}`, { headers: page }],
        ['/__control/notes', { method: 'POST', headers: json, body: JSON.stringify({ user, vault: 'default', notes: [{ path: 'planted.md' }] }) }],
        ['/__control/faults', { method: 'POST', headers: json, body: JSON.stringify({ user, vault: 'default', path: 'secret.md', fault: { kind: 'hang' } }) }],
      ];
      for (const [target, options] of attempts) {
        const res = expectResponse(await exchange(canister.url, target, options));
        expect(res.status, `${options.method ?? 'GET'} ${target}`).toBe(421);
        expect(res.body).toBe(MISDIRECTED);
        expect(res.body).not.toMatch(/private|Private|attacker/);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
      const secret = expectResponse(await exchange(canister.url, noteTarget('secret.md'), { headers: authHeaders(user) }));
      expect(JSON.parse(secret.body).body).toBe('private body text');
      expect(expectResponse(await exchange(canister.url, noteTarget('planted.md'), { headers: authHeaders(user) })).status).toBe(404);
      const log = await requestLog(canister, user);
      expect(log.map((entry) => entry.headers.host)).toEqual([`127.0.0.1:${port}`, `127.0.0.1:${port}`]);
    });

    it.each(['0.0.0.0', '::', '192.0.2.1', '', 'example.com', '127.0.0.1.evil.example', '[::1]x'])(
      'refuses to listen on the non-loopback host %j',
      async (host) => {
        await expect(startDemoCanister({ gatewaySecret: SECRET, host })).rejects.toThrow(/loopback/);
      },
    );

    it('on ::1 it serves [::1]:<port> and localhost:<port>, and refuses 127.0.0.1:<port>', async (context) => {
      let v6: DemoCanister;
      try {
        v6 = await startDemoCanister({ gatewaySecret: SECRET, host: '::1', vaultDir: demoVault });
      } catch {
        context.skip();
        return;
      }
      try {
        expect(v6.url).toBe(`http://[::1]:${v6.port}`);
        const read = (host: string) =>
          new Promise<number>((resolve, reject) => {
            const req = httpRequest({ host: '::1', port: v6.port, path: noteTarget(notePath), headers: { ...authHeaders('demo'), Host: host }, agent: false }, (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            });
            req.on('error', reject);
            req.end();
          });
        expect(await read(`[::1]:${v6.port}`)).toBe(200);
        expect(await read(`localhost:${v6.port}`)).toBe(200);
        expect(await read(`127.0.0.1:${v6.port}`)).toBe(421);
      } finally {
        await v6.close();
      }
    });
  });

  describe('without control: true', () => {
    it('has no control API (404 even when authenticated) and still serves notes', async () => {
      const plain = await startDemoCanister({ gatewaySecret: SECRET, vaultDir: demoVault });
      try {
        const seedAttempt = await exchange(plain.url, '/__control/notes', {
          method: 'POST',
          headers: { 'X-Gateway-Auth': SECRET, 'Content-Type': 'application/json' },
          body: JSON.stringify({ user: 'x', vault: 'default', notes: [{ path: 'n.md' }] }),
        });
        expect(expectResponse(seedAttempt).status).toBe(404);
        for (const target of ['/__control/requests?user=demo', '/__control/faults']) {
          const res = expectResponse(await exchange(plain.url, target, { headers: { 'X-Gateway-Auth': SECRET } }));
          expect(res.status, target).toBe(404);
          expect(res.body).toBe(NOT_FOUND);
        }
        const note = expectResponse(await exchange(plain.url, noteTarget('inbox/quick-capture.md'), { headers: authHeaders('demo') }));
        expect(note.status).toBe(200);
      } finally {
        await plain.close();
      }
    });
  });
});
