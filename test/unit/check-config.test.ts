/**
 * `npm run check-config`, run as a user runs it, on
 * temporary wrangler.toml and env files. Each bad variable is named with its
 * reason, no value is ever printed, and the exit code says valid (0) or not (1).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'check-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GOOD_SECRET = 'SENTINEL-GOOD-SECRET-0123456789abcdefghij';
/** What every deployment outside local mode names: its public origin and its authorization server. */
const OAUTH_LINES = 'PUBLIC_ORIGIN=https://edge.example\nOAUTH_AUTHORIZATION_SERVER=https://hub.example\n';
const LIMITER = '[[ratelimits]]\nname = "RATE_LIMITER"\nnamespace_id = "1001"\nsimple = { limit = 60, period = 60 }\n';

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

function wranglerToml(vars: Record<string, string>, extra = LIMITER): string {
  const lines = Object.entries(vars).map(([name, value]) => `${name} = ${JSON.stringify(value)}`);
  return write(`wrangler-${Math.random().toString(36).slice(2)}.toml`, `name = "t"\nmain = "src/index.ts"\ncompatibility_date = "2026-04-01"\n\n[vars]\n${lines.join('\n')}\n\n${extra}`);
}

function checkConfig(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/check-config.mjs'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('npm run check-config', { timeout: 120_000 }, () => {
  it('accepts a valid configuration (exit 0) without printing any value', () => {
    const config = wranglerToml({ ENVIRONMENT: 'production', CANISTER_URL: 'https://SENTINEL-HOST.example' });
    const envFile = write('good.env', `SESSION_SECRET=${GOOD_SECRET}\nCANISTER_AUTH_SECRET=SENTINEL-CANISTER\n${OAUTH_LINES}`);
    const { status, output } = checkConfig('--config', config, '--env-file', envFile);
    expect(output).toContain('valid');
    expect(output).not.toContain('SENTINEL');
    expect(status).toBe(0);
  });

  it('names each bad variable with its reason, never the value, and exits 1', () => {
    const config = wranglerToml({
      ENVIRONMENT: 'SENTINEL-ENV',
      CANISTER_URL: 'ftp://SENTINEL-HOST',
      CORS_ORIGINS: 'https://SENTINEL-ORIGIN.example/path',
      CANISTER_TIMEOUT_MS: '99999999',
    });
    const envFile = write(
      'bad.env',
      [
        'SESSION_SECRET=SENTINEL-short',
        'JWT_JWKS_URL=SENTINEL-not-a-url',
        'SCOOLING_SMOKE_ENABLED=SENTINEL-yes',
        'PUBLIC_ORIGIN=https://SENTINEL-ORIGIN.example/mcp',
        'OAUTH_AUTHORIZATION_SERVER=http://SENTINEL-AS.example',
        'LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE=SENTINEL-yes',
      ].join('\n'),
    );
    const { status, output } = checkConfig('--config', config, '--env-file', envFile);
    const expected: Array<[string, string]> = [
      ['CANISTER_URL', 'not_a_url'],
      ['SESSION_SECRET', 'too_short'],
      ['JWT_JWKS_URL', 'not_a_url'],
      ['CORS_ORIGINS', 'not_exact_origins'],
      ['CANISTER_TIMEOUT_MS', 'out_of_range'],
      // RFC 8414 section 2 issuer and RFC 9728 section 2 resource: https, http only on loopback.
      ['OAUTH_AUTHORIZATION_SERVER', 'not_an_issuer'],
      ['PUBLIC_ORIGIN', 'not_an_origin'],
      ['LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE', 'not_allowed'],
      ['ENVIRONMENT', 'not_allowed'],
      ['SCOOLING_SMOKE_ENABLED', 'not_allowed'],
    ];
    for (const [variable, reason] of expected) expect(output).toMatch(new RegExp(`^\\s+${variable}\\s+${reason}:`, 'm'));
    expect(output).toContain(`${expected.length} problems`);
    expect(output).not.toContain('SENTINEL');
    expect(output).not.toContain('99999999');
    expect(status).toBe(1);
  });

  it('names a missing variable, a missing verification key and a missing rate-limit binding', () => {
    const config = wranglerToml({ ENVIRONMENT: 'production' }, '');
    const envFile = write('empty.env', 'CANISTER_AUTH_SECRET=SENTINEL-CANISTER\n');
    const { status, output } = checkConfig('--config', config, '--env-file', envFile);
    expect(output).toMatch(/^\s+CANISTER_URL\s+missing:/m);
    expect(output).toMatch(/^\s+SESSION_SECRET\s+no_verification_key:/m);
    expect(output).toMatch(/^\s+RATE_LIMITER\s+missing_binding:/m);
    expect(output).not.toContain('SENTINEL');
    expect(status).toBe(1);
  });

  it('outside local mode, a deployment without its authorization server or public origin is refused', () => {
    const config = wranglerToml({ ENVIRONMENT: 'production', CANISTER_URL: 'https://canister.example' });
    const envFile = write('no-oauth.env', `SESSION_SECRET=${GOOD_SECRET}\n`);
    const { status, output } = checkConfig('--config', config, '--env-file', envFile);
    expect(output).toMatch(/^\s+OAUTH_AUTHORIZATION_SERVER\s+missing:/m);
    expect(output).toMatch(/^\s+PUBLIC_ORIGIN\s+missing:/m);
    expect(status).toBe(1);
    const local = wranglerToml({ ENVIRONMENT: 'local', CANISTER_URL: 'https://canister.example' });
    expect(checkConfig('--config', local, '--env-file', envFile).status).toBe(0);
  });

  it('the env file overrides wrangler.toml vars, as wrangler dev does', () => {
    const config = wranglerToml({ ENVIRONMENT: 'production', CANISTER_URL: 'not a url' });
    const envFile = write('override.env', `CANISTER_URL=https://canister.example\nSESSION_SECRET=${GOOD_SECRET}\n${OAUTH_LINES}`);
    expect(checkConfig('--config', config, '--env-file', envFile).status).toBe(0);
  });

  it('checks the repository wrangler.toml, and a wrangler environment with --env', () => {
    const envFile = write('repo.env', `CANISTER_URL=https://canister.example\nSESSION_SECRET=${GOOD_SECRET}\n${OAUTH_LINES}`);
    expect(checkConfig('--env-file', envFile).status).toBe(0);
    const load = checkConfig('--env', 'load', '--env-file', envFile);
    expect(load.output).toContain('[env.load]');
    expect(load.status).toBe(0);
  });

  it('a usage error exits 2', () => {
    expect(checkConfig('--no-such-option').status).toBe(2);
    expect(checkConfig('--config', path.join(dir, 'missing.toml')).status).toBe(2);
  });
});
