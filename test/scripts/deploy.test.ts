/**
 * The deploy kit: `.dev.vars.example` names every variable the Worker reads (taken from the
 * schema in src/config.ts, so a new variable without an entry fails here), and `npm run deploy`
 * runs `check-config --deploy` before wrangler, stops on an invalid or local-only configuration,
 * and deploys the top level without wrangler's multiple-environments warning. Every deploy here is
 * `--dry-run` (bundle only, no login, no upload); the banner, and with it wrangler's update check,
 * is off, so nothing goes to the network.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EnvSchema, SECRET_VARIABLES } from '../../src/config';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const wranglerBin = path.join(repoRoot, 'node_modules/wrangler/bin/wrangler.js');
const exampleText = readFileSync(path.join(repoRoot, '.dev.vars.example'), 'utf8');
const dir = mkdtempSync(path.join(tmpdir(), 'kt-deploy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What wrangler prints when a command names no environment while [env.*] sections exist. */
const MULTIPLE_ENVIRONMENTS_WARNING = 'Multiple environments are defined';
const SCHEMA_NAMES = Object.keys(EnvSchema.shape).sort();

/** The example's `NAME=value` lines, with the comment lines just above each. */
function exampleEntries(): Array<{ name: string; value: string; comment: string }> {
  const entries: Array<{ name: string; value: string; comment: string }> = [];
  let comment: string[] = [];
  for (const line of exampleText.split('\n')) {
    if (line.startsWith('#')) comment.push(line);
    else if (line.trim() === '') comment = [];
    else {
      const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
      expect(match, `a line of .dev.vars.example that is not NAME=value: ${line}`).not.toBeNull();
      entries.push({ name: match![1]!, value: match![2]!, comment: comment.join('\n') });
      comment = [];
    }
  }
  return entries;
}

/** The example with every required value filled in with a placeholder, as a user fills it for production. */
function filledExample(): string {
  const fills: Record<string, string> = {
    SESSION_SECRET: 'placeholder-session-secret-0123456789abcdef',
    CANISTER_URL: 'https://canister.example.com',
    PUBLIC_ORIGIN: 'https://edge.example.com',
    OAUTH_AUTHORIZATION_SERVER: 'https://hub.example.com',
  };
  return exampleText.replace(/^([A-Z_]+)=$/gm, (line, name: string) => (fills[name] ? `${name}=${fills[name]}` : line));
}

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

function run(args: string[]): { status: number | null; output: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_HIDE_BANNER: 'true', NO_COLOR: '1', FORCE_COLOR: '0' };
  delete env.CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV;
  const result = spawnSync(process.execPath, args, { cwd: repoRoot, encoding: 'utf8', env });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const deploy = (...args: string[]) => run([path.join(repoRoot, 'scripts/deploy.mjs'), ...args]);
const checkConfig = (...args: string[]) => run(['--import', 'tsx', path.join(repoRoot, 'scripts/check-config.mjs'), ...args]);

describe('.dev.vars.example', () => {
  it('names every variable the Worker reads, once, and nothing else', () => {
    const names = exampleEntries().map((entry) => entry.name);
    expect([...names].sort()).toEqual(SCHEMA_NAMES);
    expect(new Set(names).size).toBe(names.length);
  });

  it('gives no value, and explains each name as a secret or a var as src/config.ts classifies it', () => {
    for (const { name, value, comment } of exampleEntries()) {
      expect(value, name).toBe('');
      const kind = (SECRET_VARIABLES as readonly string[]).includes(name) ? 'secret' : 'var';
      expect(comment, `${name} is explained as a ${kind}`).toMatch(new RegExp(`^# ${kind}, .{10,}`));
    }
  });

  it('is read by check-config line for line (no line dropped, no unknown name)', () => {
    const { status, output } = checkConfig('--env-file', path.join(repoRoot, '.dev.vars.example'));
    expect(output).not.toMatch(/line \d+:|warning/);
    // Blank, it is not a configuration yet: the required values are named missing.
    expect(output).toMatch(/CANISTER_URL\s+missing/);
    expect(status).toBe(1);
  });
});

describe('npm run deploy', { timeout: 180_000 }, () => {
  it('checks, then bundles the top level without the multiple-environments warning', () => {
    const outdir = path.join(dir, 'top');
    const { status, output } = deploy('--env-file', write('production.env', filledExample()), '--dry-run', '--outdir', outdir);
    expect(output).toContain('valid: the Worker accepts this configuration');
    expect(output).toContain('--dry-run: exiting now');
    // check-config ran first, then wrangler.
    expect(output.indexOf('check-config:')).toBeLessThan(output.indexOf('Total Upload'));
    expect(output).not.toContain(MULTIPLE_ENVIRONMENTS_WARNING);
    expect(output).not.toContain('placeholder-session-secret');
    expect(existsSync(path.join(outdir, 'index.js'))).toBe(true);
    expect(status).toBe(0);
  });

  it('the same dry run without naming the top level does warn (what --env="" avoids)', () => {
    const { status, output } = run([wranglerBin, 'deploy', '--dry-run', '--outdir', path.join(dir, 'unnamed')]);
    expect(output).toContain(MULTIPLE_ENVIRONMENTS_WARNING);
    expect(status).toBe(0);
  });

  it('stops before wrangler on an invalid configuration, naming the problem', () => {
    const outdir = path.join(dir, 'invalid');
    const invalid = filledExample().replace(/^PUBLIC_ORIGIN=.*$/m, 'PUBLIC_ORIGIN=');
    const { status, output } = deploy('--env-file', write('invalid.env', invalid), '--dry-run', '--outdir', outdir);
    expect(output).toMatch(/PUBLIC_ORIGIN\s+missing/);
    expect(output).toContain('nothing was deployed');
    expect(output).not.toContain('Total Upload');
    expect(existsSync(outdir)).toBe(false);
    expect(status).toBe(1);
  });

  it('refuses the load environment, even with a valid production file', () => {
    const outdir = path.join(dir, 'load');
    const { status, output } = deploy('--env', 'load', '--env-file', write('load.env', filledExample()), '--dry-run', '--outdir', outdir);
    expect(output).toContain('not deployable: the load environment is local-only');
    expect(output).toContain('nothing was deployed');
    expect(output).not.toContain('Total Upload');
    expect(existsSync(outdir)).toBe(false);
    expect(status).toBe(1);
  });

  it('refuses a top level turned local by the env file', () => {
    const local = `${filledExample().replace(/^ENVIRONMENT=$/m, 'ENVIRONMENT=local')}`;
    const { status, output } = deploy('--env-file', write('local.env', local), '--dry-run', '--outdir', path.join(dir, 'local'));
    expect(output).toContain('not deployable: this configuration is local-only');
    expect(status).toBe(1);
  });

  it('is a usage error on an unknown option or an empty --env (exit 2, nothing run)', () => {
    for (const args of [['--bogus'], ['--env', ''], ['--outdir', path.join(dir, 'x')]]) {
      const { status, output } = deploy(...args);
      expect(output, args.join(' ')).toContain('Usage: npm run deploy');
      expect(output).not.toContain('check-config:');
      expect(status).toBe(2);
    }
  });
});

describe('check-config and the load environment', { timeout: 60_000 }, () => {
  it('--deploy refuses it (exit 1); for wrangler dev it stays valid and says it is local-only', () => {
    const envFile = write('check-load.env', filledExample());
    const forDeploy = checkConfig('--env', 'load', '--env-file', envFile, '--deploy');
    expect(forDeploy.output).toContain('not deployable: the load environment is local-only');
    expect(forDeploy.status).toBe(1);

    const forDev = checkConfig('--env', 'load', '--env-file', envFile);
    expect(forDev.output).toContain('the load environment is local-only');
    expect(forDev.output).toContain('valid: the Worker accepts this configuration');
    expect(forDev.status).toBe(0);
  });

  it('--deploy accepts the top level with the same file', () => {
    const { status, output } = checkConfig('--env-file', write('check-top.env', filledExample()), '--deploy');
    expect(output).not.toContain('local-only');
    expect(status).toBe(0);
  });
});
