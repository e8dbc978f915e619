/**
 * The deploy kit: `.dev.vars.example` names every variable the Worker reads (taken from the
 * schema in src/config.ts, so a new variable without an entry fails here), and `npm run deploy`
 * runs `check-config --deploy` before wrangler. That check judges what the deployed Worker will
 * have ([vars] of wrangler.toml, the secrets stored on Cloudflare, the ones `--secrets-from`
 * uploads), never the env file a deployment does not read: it stops a deploy from `.dev.vars`
 * alone and names the command that fixes each missing value. Deploys run in a temporary copy of
 * the project, all `--dry-run` (bundle only, no upload), with no Cloudflare login (a HOME of their
 * own, no CLOUDFLARE_* variables) and the banner off, so nothing goes to the network; the stored
 * secrets are asked of a real HTTP stand-in for the Cloudflare API (CLOUDFLARE_API_BASE_URL).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
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

/** filledExample with a gateway secret as well: a second secret for the deploy to carry. */
function filledWithGatewaySecret(): string {
  return filledExample().replace(/^CANISTER_AUTH_SECRET=$/m, 'CANISTER_AUTH_SECRET=placeholder-gateway-secret');
}

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** Where wrangler would find a login: a home of the tests' own, without one. */
const home = path.join(dir, 'home');
mkdirSync(home);
/** The temporary folder the deploy script writes its secrets file in, to see that it is removed. */
const scriptTmp = path.join(dir, 'tmp');
mkdirSync(scriptTmp);

/** The environment of every run: offline, quiet, not logged in to Cloudflare (plus `extra`). */
function runEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    TMPDIR: scriptTmp,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
  };
  for (const name of Object.keys(env)) if (name.startsWith('CLOUDFLARE_')) delete env[name];
  return { ...env, ...extra };
}

function run(args: string[], cwd = repoRoot): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: runEnv() });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The same, without blocking this process, so a stand-in server in it can answer. */
function runAsync(args: string[], cwd: string, extra: Record<string, string>): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, env: runEnv(extra), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('close', (status) => resolve({ status, output }));
  });
}

const deploy = (...args: string[]) => run(['--import', 'tsx', path.join(repoRoot, 'scripts/deploy.mjs'), ...args]);
const checkConfig = (...args: string[]) => run(['--import', 'tsx', path.join(repoRoot, 'scripts/check-config.mjs'), ...args]);

/**
 * A copy of the project as a user deploys it: wrangler.toml (its [vars] given `vars` on top),
 * the Worker, the scripts and the assets, node_modules linked, and `.dev.vars` holding `devVars`.
 */
function projectCopy(name: string, devVars: string, vars: Record<string, string> = {}): string {
  const folder = path.join(dir, name);
  mkdirSync(folder);
  for (const entry of ['src', 'scripts', 'assets', 'package.json', 'tsconfig.json']) {
    cpSync(path.join(repoRoot, entry), path.join(folder, entry), { recursive: true });
  }
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(folder, 'node_modules'));
  let toml = readFileSync(path.join(repoRoot, 'wrangler.toml'), 'utf8');
  // The top level's [vars] come first in the file: a key it has is replaced there, others are added.
  for (const [key, value] of Object.entries(vars)) {
    const line = `${key} = ${JSON.stringify(value)}`;
    const existing = new RegExp(`^${key} = .*$`, 'm');
    toml = existing.test(toml) ? toml.replace(existing, line) : toml.replace(/^\[vars\]\n/m, `[vars]\n${line}\n`);
  }
  writeFileSync(path.join(folder, 'wrangler.toml'), toml);
  writeFileSync(path.join(folder, '.dev.vars'), devVars);
  return folder;
}

/** `npm run deploy -- ...args` and `npm run check-config -- ...args` in a project copy. */
const deployIn = (folder: string, ...args: string[]) => run(['--import', 'tsx', path.join(folder, 'scripts/deploy.mjs'), ...args], folder);
const checkIn = (folder: string, ...args: string[]) => run(['--import', 'tsx', path.join(folder, 'scripts/check-config.mjs'), ...args], folder);

/** The non-secret values a deployment keeps in [vars] of wrangler.toml, as filledExample fills them. */
const DEPLOYMENT_VARS = {
  CANISTER_URL: 'https://canister.example.com',
  PUBLIC_ORIGIN: 'https://edge.example.com',
  OAUTH_AUTHORIZATION_SERVER: 'https://hub.example.com',
};

/** The line after a problem's line: the fix it names. */
function fixOf(output: string, variable: string): string | undefined {
  const lines = output.split('\n');
  const at = lines.findIndex((line) => new RegExp(`^\\s+${variable}\\s+\\w+: `).test(line));
  return at === -1 ? undefined : lines[at + 1]?.trim();
}

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
  it('stops a deploy from .dev.vars alone, naming the one fix of each missing value (a deployment never reads .dev.vars)', () => {
    const folder = projectCopy('dev-vars-alone', filledWithGatewaySecret());
    const outdir = path.join(folder, 'dry');
    const { status, output } = deployIn(folder, '--dry-run', '--outdir', outdir);
    expect(output).toContain('secrets stored on Cloudflare: not known, wrangler is not logged in');
    expect(output).toContain('judged as if none were stored');
    expect(output).toContain('secrets this deploy uploads: none');
    expect(fixOf(output, 'CANISTER_URL')).toBe('fix: add `CANISTER_URL = "..."` to [vars] of wrangler.toml (the value .dev.vars holds)');
    expect(fixOf(output, 'PUBLIC_ORIGIN')).toBe('fix: add `PUBLIC_ORIGIN = "..."` to [vars] of wrangler.toml (the value .dev.vars holds)');
    expect(fixOf(output, 'OAUTH_AUTHORIZATION_SERVER')).toBe('fix: add `OAUTH_AUTHORIZATION_SERVER = "..."` to [vars] of wrangler.toml (the value .dev.vars holds)');
    expect(fixOf(output, 'SESSION_SECRET')).toBe('fix: npm run deploy -- --secrets-from .dev.vars');
    expect(output).toMatch(/left behind: CANISTER_AUTH_SECRET is set in \.dev\.vars but the deployed Worker would not have it\n\s+fix: npm run deploy -- --secrets-from \.dev\.vars/);
    expect(output).toContain('4 problems: npm run deploy refuses to deploy it; the deployed Worker would answer 503 SERVICE_UNAVAILABLE on every route but /health.');
    expect(output).toContain('nothing was deployed');
    expect(output).not.toContain('valid: the');
    expect(output).not.toContain('Total Upload');
    expect(output).not.toContain('placeholder-');
    expect(existsSync(outdir)).toBe(false);
    expect(status).toBe(1);
    // docs/DEPLOY.md shows this run: its lines are the ones printed.
    const shownInDocs = /```text\n\$ npm run deploy -- --dry-run\n([\s\S]*?)```/.exec(readFileSync(path.join(repoRoot, 'docs/DEPLOY.md'), 'utf8'));
    expect(shownInDocs).not.toBeNull();
    expect(shownInDocs![1].trimEnd().split('\n')).toEqual(output.trimEnd().split('\n'));
  });

  it('with the vars in wrangler.toml and --secrets-from .dev.vars, checks and bundles with exactly the secrets uploaded, then removes their file', () => {
    const folder = projectCopy('vars-and-secrets', filledWithGatewaySecret(), DEPLOYMENT_VARS);
    const outdir = path.join(folder, 'dry');
    const { status, output } = deployIn(folder, '--secrets-from', '.dev.vars', '--dry-run', '--outdir', outdir);
    expect(output).toContain('secrets this deploy uploads, from .dev.vars: SESSION_SECRET, CANISTER_AUTH_SECRET');
    expect(output).toContain('valid: the deployed Worker accepts this configuration');
    expect(output).not.toContain('left behind');
    // check-config ran first, then wrangler, with the two secrets bound (hidden) and no var of the file among them.
    expect(output.indexOf('check-config:')).toBeLessThan(output.indexOf('Total Upload'));
    expect(output).toMatch(/env\.SESSION_SECRET \("\(hidden\)"\)/);
    expect(output).toMatch(/env\.CANISTER_AUTH_SECRET \("\(hidden\)"\)/);
    expect(output).not.toMatch(/env\.(HUB_JWT_SECRET|SESSION_SECRET_PREVIOUS|SCOOLING_SMOKE_TOKEN) /);
    expect(output).toMatch(/env\.CANISTER_URL \("https:\/\/canister\.example\.com"\)\s+Environment Variable/);
    expect(output).not.toContain(MULTIPLE_ENVIRONMENTS_WARNING);
    expect(output).not.toContain('placeholder-');
    expect(existsSync(path.join(outdir, 'index.js'))).toBe(true);
    expect(readdirSync(scriptTmp).filter((name) => name.startsWith('kt-deploy-secrets-'))).toEqual([]);
    expect(status).toBe(0);
  });

  it('without --secrets-from, the same project is stopped: the secret is named with the command that uploads it', () => {
    const folder = projectCopy('vars-only', filledExample(), DEPLOYMENT_VARS);
    const { status, output } = checkIn(folder, '--deploy');
    expect(output).toMatch(/^\s+SESSION_SECRET\s+no_verification_key: /m);
    expect(fixOf(output, 'SESSION_SECRET')).toBe('fix: npm run deploy -- --secrets-from .dev.vars');
    expect(output).toContain('1 problem: ');
    expect(status).toBe(1);
  });

  it('the same dry run without naming the top level does warn (what --env="" avoids)', () => {
    const { status, output } = run([wranglerBin, 'deploy', '--dry-run', '--outdir', path.join(dir, 'unnamed')]);
    expect(output).toContain(MULTIPLE_ENVIRONMENTS_WARNING);
    expect(status).toBe(0);
  });

  it('stops before wrangler on an invalid uploaded secret, naming the file to correct', () => {
    const folder = projectCopy('short-secret', filledExample().replace(/^SESSION_SECRET=.*$/m, 'SESSION_SECRET=placeholder-short'), DEPLOYMENT_VARS);
    const outdir = path.join(folder, 'dry');
    const { status, output } = deployIn(folder, '--secrets-from', '.dev.vars', '--dry-run', '--outdir', outdir);
    expect(output).toMatch(/^\s+SESSION_SECRET\s+too_short: must be at least 32 characters$/m);
    expect(fixOf(output, 'SESSION_SECRET')).toBe('fix: correct SESSION_SECRET in .dev.vars (this deploy uploads it)');
    expect(output).toContain('nothing was deployed');
    expect(output).not.toContain('Total Upload');
    expect(output).not.toContain('placeholder-');
    expect(existsSync(outdir)).toBe(false);
    expect(status).toBe(1);
  });

  it('refuses the load environment, even with every value present', () => {
    const outdir = path.join(dir, 'load');
    const { status, output } = deploy('--env', 'load', '--secrets-from', write('load.env', filledExample()), '--dry-run', '--outdir', outdir);
    expect(output).toContain('not deployable: the load environment is local-only');
    expect(output).toContain('nothing was deployed');
    expect(output).not.toContain('Total Upload');
    expect(existsSync(outdir)).toBe(false);
    expect(status).toBe(1);
  });

  it('refuses a top level whose [vars] say ENVIRONMENT=local; an env file saying so does not reach a deployment', () => {
    const local = projectCopy('local-top', filledExample(), { ...DEPLOYMENT_VARS, ENVIRONMENT: 'local' });
    const refused = deployIn(local, '--secrets-from', '.dev.vars', '--dry-run', '--outdir', path.join(local, 'dry'));
    expect(refused.output).toContain('not deployable: this configuration is local-only');
    expect(refused.status).toBe(1);
    const fileSaysLocal = projectCopy('local-file', filledExample().replace(/^ENVIRONMENT=$/m, 'ENVIRONMENT=local'), DEPLOYMENT_VARS);
    const judged = checkIn(fileSaysLocal, '--deploy', '--secrets-from', '.dev.vars');
    expect(judged.output).not.toContain('local-only');
    expect(judged.status).toBe(0);
  });

  it('is a usage error on an unknown option or an empty --env (exit 2, nothing run)', () => {
    for (const args of [['--bogus'], ['--env', ''], ['--outdir', path.join(dir, 'x')]]) {
      const { status, output } = deploy(...args);
      expect(output, args.join(' ')).toContain('Usage: npm run deploy');
      expect(output).not.toContain('check-config:');
      expect(status).toBe(2);
    }
    const notDeploy = checkConfig('--secrets-from', '.dev.vars.example');
    expect(notDeploy.output).toContain('--secrets-from is for --deploy');
    expect(notDeploy.status).toBe(2);
  });
});

/**
 * The Cloudflare API's answer to `wrangler secret list` (GET .../workers/scripts/<name>/secrets), in
 * its v4 envelope: the stored names, or error 10007 (no such Worker).
 */
function cloudflareStandIn(answer: { stored: string[] } | 'no-such-worker'): Promise<{ url: string; requests: string[]; server: Server }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization}`);
    res.setHeader('Content-Type', 'application/json');
    if (answer === 'no-such-worker' || !req.url?.endsWith('/secrets')) {
      res.statusCode = 404;
      res.end(JSON.stringify({ success: false, errors: [{ code: 10007, message: 'workers.api.error.script_not_found' }], messages: [], result: null }));
      return;
    }
    res.end(JSON.stringify({ success: true, errors: [], messages: [], result: answer.stored.map((name) => ({ name, type: 'secret_text' })) }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    resolve({ url: `http://127.0.0.1:${port}/client/v4`, requests, server });
  }));
}

describe('check-config --deploy and the secrets stored on Cloudflare', { timeout: 120_000 }, () => {
  const loggedIn = (url: string) => ({ CLOUDFLARE_API_BASE_URL: url, CLOUDFLARE_API_TOKEN: 'stand-in-token', CLOUDFLARE_ACCOUNT_ID: 'stand-in-account' });

  it('counts a stored secret as present (by name: its value cannot be read back) and names an env-file secret left behind', async () => {
    const folder = projectCopy('stored', filledWithGatewaySecret(), DEPLOYMENT_VARS);
    const api = await cloudflareStandIn({ stored: ['SESSION_SECRET'] });
    try {
      const { status, output } = await runAsync(['--import', 'tsx', path.join(folder, 'scripts/check-config.mjs'), '--deploy'], folder, loggedIn(api.url));
      expect(api.requests).toEqual(['GET /client/v4/accounts/stand-in-account/workers/scripts/knowtation-edge/secrets Bearer stand-in-token']);
      expect(output).toContain('secrets stored on Cloudflare: SESSION_SECRET; a stored value cannot be read back');
      expect(output).toMatch(/left behind: CANISTER_AUTH_SECRET is set in \.dev\.vars but the deployed Worker would not have it\n\s+fix: npm run deploy -- --secrets-from \.dev\.vars/);
      expect(output).toContain('valid: the deployed Worker accepts this configuration');
      expect(status).toBe(0);
    } finally {
      api.server.close();
    }
  });

  it('a Worker not deployed yet has no secret: each one is named with its fix', async () => {
    const folder = projectCopy('first-deploy', 'CANISTER_URL=https://canister.example.com\n', DEPLOYMENT_VARS);
    const api = await cloudflareStandIn('no-such-worker');
    try {
      const { status, output } = await runAsync(['--import', 'tsx', path.join(folder, 'scripts/check-config.mjs'), '--deploy'], folder, loggedIn(api.url));
      expect(output).toContain('secrets stored on Cloudflare: none (no Worker named knowtation-edge is deployed yet)');
      expect(fixOf(output, 'SESSION_SECRET')).toBe('fix: npx wrangler secret put SESSION_SECRET');
      expect(status).toBe(1);
    } finally {
      api.server.close();
    }
  });
});

describe('check-config and the load environment', { timeout: 60_000 }, () => {
  it('--deploy refuses it (exit 1); for wrangler dev it stays valid and says it is local-only', () => {
    const envFile = write('check-load.env', filledExample());
    const forDeploy = checkConfig('--env', 'load', '--secrets-from', envFile, '--deploy');
    expect(forDeploy.output).toContain('not deployable: the load environment is local-only');
    expect(forDeploy.status).toBe(1);

    const forDev = checkConfig('--env', 'load', '--env-file', envFile);
    expect(forDev.output).toContain('the load environment is local-only');
    expect(forDev.output).toContain('valid: the Worker accepts this configuration');
    expect(forDev.status).toBe(0);
  });

  it('--deploy judges [vars] and the uploaded secrets, not the env file: the same file that makes wrangler dev valid leaves a deployment without its vars', () => {
    const file = write('check-top.env', filledExample());
    const forDev = checkConfig('--env-file', file);
    expect(forDev.status).toBe(0);
    const { status, output } = checkConfig('--env-file', file, '--secrets-from', file, '--deploy');
    expect(output).not.toContain('local-only');
    expect(output).toMatch(/^\s+CANISTER_URL\s+missing: /m);
    expect(output).not.toMatch(/^\s+SESSION_SECRET\s+/m);
    expect(status).toBe(1);
  });
});
