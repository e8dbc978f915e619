/**
 * `npm run check-config`, run as a user runs it, on
 * temporary wrangler.toml and env files. Each bad variable is named with its
 * reason and the bounds it must be in, each malformed env-file line by its
 * number, the files read are named, no value is ever printed, and the exit
 * code says valid (0) or not (1).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
const LIMITER =
  '[[ratelimits]]\nname = "RATE_LIMITER"\nnamespace_id = "1001"\nsimple = { limit = 60, period = 60 }\n' +
  '[[ratelimits]]\nname = "PROTOCOL_RATE_LIMITER"\nnamespace_id = "1003"\nsimple = { limit = 300, period = 60 }\n';

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
  const env: NodeJS.ProcessEnv = { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' };
  delete env.CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV;
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/check-config.mjs'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A folder of its own holding a copy of the repository's wrangler.toml and nothing else, as a fresh clone has it. */
function cloneFolder(name: string): { folder: string; config: string } {
  const folder = path.join(dir, name);
  mkdirSync(folder, { recursive: true });
  const config = path.join(folder, 'wrangler.toml');
  copyFileSync(path.join(repoRoot, 'wrangler.toml'), config);
  return { folder, config };
}

/** The lines of the output that name a variable's problem, as `VARIABLE reason: text`. */
function problemLine(output: string, variable: string): string | undefined {
  return output
    .split('\n')
    .map((line) => line.trim().replace(/\s{2,}/, ' '))
    .find((line) => line.startsWith(`${variable} `));
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

  it('warns, outside local, when shared-secret tokens are accepted and HOSTED_CONTEXT_URL is unset; not when it is set, nor locally', () => {
    const config = wranglerToml({ ENVIRONMENT: 'production', CANISTER_URL: 'https://SENTINEL-HOST.example' });
    const without = checkConfig('--config', config, '--env-file', write('hub-without.env', `SESSION_SECRET=${GOOD_SECRET}\n${OAUTH_LINES}`));
    expect(without.status).toBe(0);
    expect(without.output).toMatch(/warning: HOSTED_CONTEXT_URL is unset while shared-secret tokens are accepted: .* own user's partition with the viewer role/);
    const withUrl = checkConfig(
      '--config',
      config,
      '--env-file',
      write('hub-with.env', `SESSION_SECRET=${GOOD_SECRET}\nHOSTED_CONTEXT_URL=https://bridge.example/api/v1/hosted-context\n${OAUTH_LINES}`),
    );
    expect(withUrl.output).not.toMatch(/warning: HOSTED_CONTEXT_URL/);
    const local = checkConfig('--config', wranglerToml({ ENVIRONMENT: 'local', CANISTER_URL: 'https://SENTINEL-HOST.example' }), '--env-file', write('hub-local.env', `SESSION_SECRET=${GOOD_SECRET}\n`));
    expect(local.output).not.toMatch(/warning: HOSTED_CONTEXT_URL/);
    // In the clear, the caller's token would travel with it: http off loopback is refused outside local (RFC 6750 section 5.3).
    const plain = checkConfig('--config', config, '--env-file', write('hub-plain.env', `SESSION_SECRET=${GOOD_SECRET}\nHOSTED_CONTEXT_URL=http://bridge.example/api/v1/hosted-context\n${OAUTH_LINES}`));
    expect(plain.status).toBe(1);
    expect(plain.output).toMatch(/^\s+HOSTED_CONTEXT_URL\s+not_https:/m);
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
    expect(output).toMatch(/^\s+PROTOCOL_RATE_LIMITER\s+missing_binding:/m);
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

  it('on a fresh clone (no .dev.vars, no .env) it names the file it read, says no env file was found and why npm start still runs', () => {
    const { config } = cloneFolder('fresh-clone');
    const { status, output } = checkConfig('--config', config);
    expect(output).toContain('wrangler.toml (top level): [vars] ENVIRONMENT, CANISTER_TIMEOUT_MS; RATE_LIMITER 60 per 60 s, PROTOCOL_RATE_LIMITER 300 per 60 s');
    expect(output).toMatch(/no env file: \.dev\.vars, \.env, \.env\.local not found next to .*wrangler\.toml, so every secret is unset/);
    expect(output).toMatch(/^\s+CANISTER_URL\s+missing:/m);
    expect(output).toMatch(/^\s+SESSION_SECRET\s+no_verification_key:/m);
    // The explanation for "npm start works, check-config fails" on the same clone.
    expect(output).toContain('npm start does not read .dev.vars');
    expect(output).toContain('temporary env file');
    expect(output).toContain('npm run check-config -- --env-file <file>');
    expect(status).toBe(1);
  });

  it('reads .dev.vars next to the configuration by default, .dev.vars.<env> first with --env, and the .env files only without either', () => {
    const { folder, config } = cloneFolder('default-files');
    const secrets = `CANISTER_URL=https://canister.example\nSESSION_SECRET=${GOOD_SECRET}\n${OAUTH_LINES}`;
    // Only .env: wrangler dev falls back to the .env family.
    writeFileSync(path.join(folder, '.env'), secrets);
    const fromDotEnv = checkConfig('--config', config);
    expect(fromDotEnv.output).toMatch(/^\s+\S*\/default-files\/\.env: CANISTER_URL, SESSION_SECRET, PUBLIC_ORIGIN, OAUTH_AUTHORIZATION_SERVER$/m);
    expect(fromDotEnv.status).toBe(0);
    // A .dev.vars wins and the .env file is not read at all, as in wrangler dev.
    writeFileSync(path.join(folder, '.dev.vars'), 'CANISTER_URL=https://canister.example\n');
    const fromDevVars = checkConfig('--config', config);
    expect(fromDevVars.output).toMatch(/^\s+\S*\/default-files\/\.dev\.vars: CANISTER_URL$/m);
    expect(fromDevVars.output).not.toMatch(/\.env:/);
    expect(fromDevVars.status).toBe(1);
    writeFileSync(path.join(folder, '.dev.vars.load'), secrets);
    const forLoad = checkConfig('--config', config, '--env', 'load');
    expect(forLoad.output).toContain(
      'wrangler.toml ([env.load]): [vars] ENVIRONMENT, CANISTER_TIMEOUT_MS; RATE_LIMITER 1000000 per 10 s, PROTOCOL_RATE_LIMITER 1000000 per 10 s',
    );
    expect(forLoad.output).toMatch(/^\s+\S*\/default-files\/\.dev\.vars\.load: CANISTER_URL, SESSION_SECRET, PUBLIC_ORIGIN, OAUTH_AUTHORIZATION_SERVER$/m);
    expect(forLoad.status).toBe(0);
    expect(`${fromDotEnv.output}${fromDevVars.output}${forLoad.output}`).not.toContain('SENTINEL');
  });

  it('names each malformed env-file line by its number, never its text', () => {
    const config = wranglerToml({ ENVIRONMENT: 'production', CANISTER_URL: 'https://canister.example' });
    const envFile = write(
      'malformed.env',
      [
        '# a comment line is fine',
        `SESSION_SECRET=${GOOD_SECRET}`,
        'SENTINEL-a-pasted-value-without-a-name',
        '',
        'CANISTER_AUTH_SECRET="SENTINEL-unclosed',
        'bad name=SENTINEL-value',
        "JWT_ISSUER='SENTINEL-issuer' SENTINEL-after",
        'JWT_AUDIENCE="SENTINEL-runs-on',
        'SENTINEL-swallowed-line"',
        'SESION_SECRET=SENTINEL-typo',
        'SENTINELPADDEDBASE64==',
        ...OAUTH_LINES.trim().split('\n'),
      ].join('\n'),
    );
    const { status, output } = checkConfig('--config', config, '--env-file', envFile);
    const lines = (line: number) => output.split('\n').filter((text) => text.includes(`malformed.env line ${line}:`));
    expect(lines(1)).toEqual([]);
    expect(lines(2)).toEqual([]);
    expect(lines(3).join()).toContain('no "="');
    expect(lines(5).join()).toContain(`CANISTER_AUTH_SECRET's value opens a " quote that is never closed`);
    expect(lines(6).join()).toContain('not a variable name');
    expect(lines(7).join()).toContain(`JWT_ISSUER's value has text after its closing '`);
    expect(lines(8).join()).toContain(`JWT_AUDIENCE's value is a quoted value that runs on to line 9`);
    expect(lines(10).join()).toMatch(/warning: .*a name the Worker does not read; did you mean SESSION_SECRET\?/);
    // A value pasted on its own line with a trailing "=" parses as a name: counted, never shown.
    expect(lines(11).join()).toMatch(/warning: .*a name the Worker does not read$/);
    expect(output).toMatch(/and 2 other names the Worker does not read/);
    expect(output).toContain('5 problems');
    expect(output).toContain('5 env-file lines are not read as written');
    expect(output).not.toContain('SENTINEL');
    expect(status).toBe(1);
  });

  it('says the range or the set each bounded variable must be in', () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ CANISTER_TIMEOUT_MS: '99' }, 'CANISTER_TIMEOUT_MS out_of_range', 'must be an integer from 100 to 30000'],
      [{ CANISTER_TIMEOUT_MS: '30001' }, 'CANISTER_TIMEOUT_MS out_of_range', 'must be an integer from 100 to 30000'],
      [{ CANISTER_TIMEOUT_MS: '2.5' }, 'CANISTER_TIMEOUT_MS not_a_number', 'must be an integer from 100 to 30000'],
      [{ ENVIRONMENT: 'prod' }, 'ENVIRONMENT not_allowed', 'must be one of: local, staging, production'],
      [{ LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE: 'yes' }, 'LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE not_allowed', 'must be one of: true, false'],
      [{ SCOOLING_SMOKE_ENABLED: '1' }, 'SCOOLING_SMOKE_ENABLED not_allowed', 'must be one of: true, false'],
      [{ SESSION_SECRET: 'short' }, 'SESSION_SECRET too_short', 'must be at least 32 characters'],
      [
        { JWT_JWKS_URL: 'http://jwks.example/keys' },
        'JWT_JWKS_URL not_https',
        'must be an https URL outside ENVIRONMENT=local (http only on a loopback host): keys that verify tokens, and the tokens sent for a hosted context, must not travel in the clear',
      ],
    ];
    for (const [vars, prefix, bound] of cases) {
      const config = wranglerToml({ ENVIRONMENT: 'production', CANISTER_URL: 'https://canister.example', ...vars });
      const envFile = write('bounds.env', `SESSION_SECRET=${vars.SESSION_SECRET ?? GOOD_SECRET}\n${OAUTH_LINES}`);
      const { status, output } = checkConfig('--config', config, '--env-file', envFile);
      expect(problemLine(output, prefix.split(' ')[0]), output).toBe(`${prefix}: ${bound}${prefix.startsWith('CANISTER_TIMEOUT_MS') ? ' (milliseconds; unset means 5000)' : ''}`);
      expect(status).toBe(1);
    }
    const badLimiter = wranglerToml(
      { ENVIRONMENT: 'production', CANISTER_URL: 'https://canister.example' },
      '[[ratelimits]]\nname = "RATE_LIMITER"\nnamespace_id = "1001"\nsimple = { limit = 0, period = 60 }\n',
    );
    const envFile = write('limiter.env', `SESSION_SECRET=${GOOD_SECRET}\n${OAUTH_LINES}`);
    const limiter = checkConfig('--config', badLimiter, '--env-file', envFile);
    expect(problemLine(limiter.output, 'RATE_LIMITER')).toMatch(/^RATE_LIMITER invalid: .*limit = <an integer from 1>, period = 10 or 60/);
    expect(limiter.status).toBe(1);
    // Nine runs of the command, each a fresh Node process: more than the default timeout on a busy 2-core machine.
  }, 180_000);

  it('a usage error exits 2', () => {
    expect(checkConfig('--no-such-option').status).toBe(2);
    expect(checkConfig('--config', path.join(dir, 'missing.toml')).status).toBe(2);
  });
});
