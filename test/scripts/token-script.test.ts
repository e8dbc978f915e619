// Runs scripts/token.mjs as a child process, exactly as `npm run -s token -- ...` would, and
// checks the minted JWT with jose.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { mintViewerToken } from '../../scripts/token.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const script = path.join(repoRoot, 'scripts', 'token.mjs');

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the token script with a controlled environment (no inherited SESSION_SECRET unless given). */
function runToken(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!('SESSION_SECRET' in env)) delete childEnv.SESSION_SECRET;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, ...args], { cwd: repoRoot, env: childEnv }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** Long enough for the Worker (>= 32 characters), and not the published dev secret. */
const PRODUCTION_SECRET = 'a-real-production-secret-0123456789abcdef';

const JWT_LINE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n$/;

let devSecret: string;
const key = (secret: string) => new TextEncoder().encode(secret);

async function verifyWith(secret: string, token: string, audience?: string): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, key(secret), { algorithms: ['HS256'], audience });
  return payload;
}

/** Mints with the given args, asserting a clean run whose stdout is only the token. */
async function mint(args: string[], env: Record<string, string> = {}): Promise<{ token: string; before: number; after: number }> {
  const before = Math.floor(Date.now() / 1000);
  const result = await runToken(args, env);
  const after = Math.floor(Date.now() / 1000);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(JWT_LINE);
  return { token: result.stdout.trim(), before, after };
}

beforeAll(async () => {
  const devConfigUrl = pathToFileURL(path.join(repoRoot, 'scripts', 'dev-config.mjs')).href;
  const devConfig = (await import(devConfigUrl)) as { DEV_SESSION_SECRET: string; isDevSecret(s: unknown): boolean };
  devSecret = devConfig.DEV_SESSION_SECRET;
  expect(devConfig.isDevSecret(devSecret)).toBe(true);
  expect(devConfig.isDevSecret('something-else')).toBe(false);
});

describe('scripts/token.mjs', () => {
  it('mints a viewer session token for demo by default, valid for one hour', async () => {
    const { token, before, after } = await mint([]);
    expect(decodeProtectedHeader(token).alg).toBe('HS256');
    const payload = await verifyWith(devSecret, token);
    expect(Object.keys(payload).sort()).toEqual(['exp', 'iat', 'role', 'sub', 'type']);
    expect(payload).toMatchObject({ sub: 'demo', role: 'viewer', type: 'session' });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(after);
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('adds vault, canister user, scope and scopes claims when asked', async () => {
    const { token } = await mint([
      '--sub', 'user-7',
      '--role', 'editor',
      '--vault', 'team',
      '--canister-user', 'owner-1',
      '--scope-folder', 'projects/Aurora',
      '--scope-folder', 'inbox',
      '--scope-project', 'aurora',
      '--type', 'mcp_access',
      '--scopes', 'vault:read, vault:write',
    ]);
    const payload = await verifyWith(devSecret, token);
    expect(payload).toMatchObject({
      sub: 'user-7',
      role: 'editor',
      type: 'mcp_access',
      allowed_vault_ids: ['team'],
      effective_canister_user_id: 'owner-1',
      scope: { projects: ['aurora'], folders: ['projects/Aurora', 'inbox'] },
      scopes: ['vault:read', 'vault:write'],
    });
    expect(payload.aud).toBeUndefined();
    expect(payload.vault_ids).toBeUndefined();
  });

  it('gives scope both lists even when only one kind is given', async () => {
    const payload = await verifyWith(devSecret, (await mint(['--scope-project', 'p1'])).token);
    expect(payload.scope).toEqual({ projects: ['p1'], folders: [] });
  });

  it('adds aud, typ and vault_ids for agent_access tokens', async () => {
    const withVault = await verifyWith(
      devSecret,
      (await mint(['--type', 'agent_access', '--vault', 'v2', '--scopes', 'vault:read'])).token,
      'knowtation-hub-rest',
    );
    expect(withVault).toMatchObject({
      type: 'agent_access',
      aud: 'knowtation-hub-rest',
      typ: 'kt_agent_access',
      vault_ids: ['v2'],
      allowed_vault_ids: ['v2'],
      scopes: ['vault:read'],
    });
    const withoutVault = await verifyWith(devSecret, (await mint(['--type', 'agent_access'])).token, 'knowtation-hub-rest');
    expect(withoutVault.vault_ids).toEqual(['default']);
    expect(withoutVault.allowed_vault_ids).toBeUndefined();
  });

  it.each([
    ['90s', 90],
    ['15m', 900],
    ['12h', 43_200],
    ['2d', 172_800],
    ['45', 45],
  ])('sets exp from --ttl %s', async (ttl, seconds) => {
    const payload = await verifyWith(devSecret, (await mint(['--ttl', ttl])).token);
    expect(payload.exp! - payload.iat!).toBe(seconds);
  });

  it.each([['abc'], ['0'], ['5w'], ['-1h']])('refuses --ttl %s with exit 2 and no token', async (ttl) => {
    const result = await runToken([`--ttl=${ttl}`]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/ttl/);
  });

  it('signs with SESSION_SECRET when it is the dev secret', async () => {
    const { token } = await mint([], { SESSION_SECRET: devSecret });
    await expect(verifyWith(devSecret, token)).resolves.toMatchObject({ sub: 'demo' });
  });

  it('refuses a non-dev secret from the environment or --secret without --allow-production-secret', async () => {
    for (const [args, env] of [
      [[], { SESSION_SECRET: PRODUCTION_SECRET }],
      [['--secret', PRODUCTION_SECRET], {}],
    ] as Array<[string[], Record<string, string>]>) {
      const result = await runToken(args, env);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('--allow-production-secret');
      expect(result.stderr).not.toContain(PRODUCTION_SECRET);
    }
  });

  it('signs with a non-dev secret when --allow-production-secret is given', async () => {
    const { token } = await mint(['--secret', PRODUCTION_SECRET, '--allow-production-secret']);
    await expect(verifyWith(PRODUCTION_SECRET, token)).resolves.toMatchObject({ sub: 'demo' });
    await expect(verifyWith(devSecret, token)).rejects.toThrow();
  });

  it('refuses a secret the Worker would refuse (shorter than its minimum) unless --allow-weak-secret', async () => {
    for (const [args, env] of [
      [['--secret', 'ten-chars!', '--allow-production-secret'], {}],
      [['--allow-production-secret'], { SESSION_SECRET: 'ten-chars!' }],
      [['--secret', 'x'.repeat(31), '--allow-production-secret'], {}],
    ] as Array<[string[], Record<string, string>]>) {
      const result = await runToken(args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/shorter than 32 characters/);
      expect(result.stderr).toContain('--allow-weak-secret');
      expect(result.stderr).not.toContain('ten-chars!');
    }
    const { token } = await mint(['--secret', 'ten-chars!', '--allow-production-secret', '--allow-weak-secret']);
    await expect(verifyWith('ten-chars!', token)).resolves.toMatchObject({ sub: 'demo' });
  });

  it('agrees with the Worker on the shortest secret it accepts, and its own dev secret is accepted', async () => {
    const { loadConfig } = await import('../../src/config');
    const workerAccepts = (secret: string) => loadConfig({ CANISTER_URL: 'https://canister.example', SESSION_SECRET: secret, ENVIRONMENT: 'local' }).ok;
    expect(workerAccepts(devSecret)).toBe(true);
    for (const length of [31, 32]) {
      const secret = 'k'.repeat(length);
      const result = await runToken(['--secret', secret, '--allow-production-secret']);
      expect(result.code === 0, `length ${length}`).toBe(workerAccepts(secret));
    }
  });

  it('refuses an empty secret even with --allow-production-secret', async () => {
    const result = await runToken(['--allow-production-secret'], { SESSION_SECRET: '' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });

  it('rejects unknown options, bad types and an empty subject with exit 2', async () => {
    for (const args of [['--bogus'], ['--type', 'admin_access'], ['--sub', ''], ['stray-positional']]) {
      const result = await runToken(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
    }
  });

  it('prints usage for --help', async () => {
    const result = await runToken(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage:');
    expect(result.stdout).toContain('--allow-production-secret');
  });
});

describe('mintViewerToken (the token npm start, smoke, load and the tests send)', () => {
  it('signs the CLI default claim set with the dev secret, for the subject and lifetime asked', async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = await mintViewerToken('load-user', 600);
    const after = Math.floor(Date.now() / 1000);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const payload = await verifyWith(devSecret, token);
    expect(Object.keys(payload).sort()).toEqual(['exp', 'iat', 'role', 'sub', 'type']);
    expect(payload).toMatchObject({ sub: 'load-user', role: 'viewer', type: 'session' });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(after);
    expect(payload.exp! - payload.iat!).toBe(600);
    await expect(verifyWith(PRODUCTION_SECRET, token)).rejects.toThrow();
  });

  it('signs with the key it is given, and then not with the dev secret', async () => {
    const token = await mintViewerToken('demo', 60, PRODUCTION_SECRET);
    await expect(verifyWith(PRODUCTION_SECRET, token)).resolves.toMatchObject({ sub: 'demo', role: 'viewer', type: 'session' });
    await expect(verifyWith(devSecret, token)).rejects.toThrow();
  });
});
