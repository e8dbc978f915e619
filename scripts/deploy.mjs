#!/usr/bin/env node
// @ts-check
/**
 * `npm run deploy`: `npm run check-config -- --deploy` first, then `wrangler deploy` of the same
 * environment, only when the check passed. A local-only environment (ENVIRONMENT=local, such as
 * the load environment) is refused by that check, so it is never deployed from here.
 *
 * The top level is deployed with `--env=""`, wrangler's way of naming it, so wrangler does not warn
 * that several environments are defined ([env.load] is one) and none was chosen.
 *
 * Exit: check-config's code when it refuses (1 invalid, 2 usage), else wrangler's.
 *
 *   npm run deploy -- --dry-run --outdir /tmp/kt-dry   # check, then bundle only: nothing is uploaded
 *   npm run deploy                                      # check, then deploy the top level
 *   npm run deploy -- --env staging --env-file ./staging.env
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseOptionsOrExit } from './cli-options.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHECK_CONFIG = path.join(REPO_ROOT, 'scripts', 'check-config.mjs');
const WRANGLER_BIN = path.join(REPO_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const USAGE = `Usage: npm run deploy -- [--env <name>] [--env-file <file>]... [--config <file>] [--dry-run] [--outdir <dir>]
  --env       a wrangler environment ([env.<name>]); default: the top level (production)
  --env-file  the values to check with the vars of wrangler.toml: the secrets you store with
              \`wrangler secret put\` (default: .dev.vars.<env> or .dev.vars, else .env files)
  --config    wrangler configuration file (default: wrangler.toml in the repository)
  --dry-run   check and bundle only; nothing is uploaded
  --outdir    where --dry-run writes the bundle
Runs \`npm run check-config -- --deploy\` with the same --env, --env-file and --config, and
deploys only when it passes. A local-only environment (ENVIRONMENT=local, e.g. load) is refused.`;


/** @type {{ env?: string, config?: string, outdir?: string, 'env-file'?: string[], 'dry-run'?: boolean }} */
const options = parseOptionsOrExit(
  process.argv.slice(2),
  { env: { type: 'string' }, 'env-file': { type: 'string', multiple: true }, config: { type: 'string' }, 'dry-run': { type: 'boolean' }, outdir: { type: 'string' } },
  USAGE,
  (values, UsageError) => {
    if (typeof values.env === 'string' && values.env.trim() === '') throw new UsageError('deploy: --env needs a name; leave it out to deploy the top level');
    if (values.outdir !== undefined && !values['dry-run']) throw new UsageError('deploy: --outdir is for --dry-run');
    return /** @type {any} */ (values);
  },
);

const shared = [
  ...(options.config !== undefined ? ['--config', options.config] : []),
  ...(options.env !== undefined ? ['--env', options.env] : []),
];
const check = spawnSync(
  process.execPath,
  ['--import', 'tsx', CHECK_CONFIG, '--deploy', ...shared, ...(options['env-file'] ?? []).flatMap((file) => ['--env-file', file])],
  { cwd: process.cwd(), stdio: 'inherit' },
);
if (check.status !== 0) {
  process.stderr.write('deploy: stopped before wrangler deploy: check-config did not pass, so nothing was deployed.\n');
  process.exit(check.status ?? 1);
}

const wranglerArgs = [
  'deploy',
  ...(options.config !== undefined ? ['--config', options.config] : []),
  `--env=${options.env ?? ''}`,
  ...(options['dry-run'] ? ['--dry-run'] : []),
  ...(options.outdir !== undefined ? ['--outdir', options.outdir] : []),
];
const deploy = spawnSync(process.execPath, [WRANGLER_BIN, ...wranglerArgs], { cwd: process.cwd(), stdio: 'inherit' });
process.exit(deploy.status ?? 1);
