#!/usr/bin/env node
// @ts-check
/**
 * `npm run deploy`: `npm run check-config -- --deploy` first, then `wrangler deploy` of the same
 * environment, only when the check passed. The check judges what the deployed Worker will have
 * ([vars] of wrangler.toml, the secrets stored on Cloudflare, the ones uploaded now), so a Worker
 * that would answer 503 everywhere is not deployed. A local-only environment (ENVIRONMENT=local,
 * such as the load environment) is refused by that check, so it is never deployed from here.
 *
 * Secrets are uploaded only when asked: `--secrets-from F` uploads the secrets F holds (the names
 * src/config.ts calls secrets, non-blank; never its vars, which belong in [vars]) with the deploy
 * itself, through `wrangler deploy --secrets-file` and a temporary JSON file (mode 0600, removed
 * when wrangler exits). Secrets already stored and not in F are kept.
 *
 * The top level is deployed with `--env=""`, wrangler's way of naming it, so wrangler does not warn
 * that several environments are defined ([env.load] is one) and none was chosen.
 *
 * Exit: check-config's code when it refuses (1 invalid, 2 usage), else wrangler's.
 *
 *   npm run deploy -- --dry-run --outdir /tmp/kt-dry   # check, then bundle only: nothing is uploaded
 *   npm run deploy                                      # check, then deploy the top level
 *   npm run deploy -- --secrets-from .dev.vars          # the same, uploading the secrets .dev.vars holds
 *   npm run deploy -- --env staging --secrets-from ./staging.env
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_VARIABLES, SECRET_VARIABLES } from '../src/config.ts';
import { parseOptionsOrExit } from './cli-options.mjs';
import { parseEnvFile, secretsToUpload } from './lib/env-file.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHECK_CONFIG = path.join(REPO_ROOT, 'scripts', 'check-config.mjs');
const WRANGLER_BIN = path.join(REPO_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const USAGE = `Usage: npm run deploy -- [--env <name>] [--secrets-from <file>] [--env-file <file>]... [--config <file>] [--dry-run] [--outdir <dir>]
  --env           a wrangler environment ([env.<name>]); default: the top level (production)
  --secrets-from  upload the secrets this KEY=VALUE file holds (e.g. .dev.vars) with the deploy;
                  only the secret names, only non-blank values; its vars are not uploaded
  --env-file      where the check looks for values to name its fixes (default: .dev.vars.<env>
                  or .dev.vars, else .env files); a deployment never reads these files
  --config        wrangler configuration file (default: wrangler.toml in the repository)
  --dry-run       check and bundle only; nothing is uploaded
  --outdir        where --dry-run writes the bundle
Runs \`npm run check-config -- --deploy\` with the same --env, --secrets-from, --env-file and
--config: it judges what the deployed Worker will have ([vars], the secrets stored on Cloudflare,
the ones uploaded now) and names the command that fixes each missing value. Deploys only when it
passes. A local-only environment (ENVIRONMENT=local, e.g. load) is refused.`;


/** @type {{ env?: string, config?: string, outdir?: string, 'env-file'?: string[], 'secrets-from'?: string, 'dry-run'?: boolean }} */
const options = parseOptionsOrExit(
  process.argv.slice(2),
  {
    env: { type: 'string' },
    'secrets-from': { type: 'string' },
    'env-file': { type: 'string', multiple: true },
    config: { type: 'string' },
    'dry-run': { type: 'boolean' },
    outdir: { type: 'string' },
  },
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
  [
    '--import',
    'tsx',
    CHECK_CONFIG,
    '--deploy',
    ...shared,
    ...(options['secrets-from'] !== undefined ? ['--secrets-from', options['secrets-from']] : []),
    ...(options['env-file'] ?? []).flatMap((file) => ['--env-file', file]),
  ],
  { cwd: process.cwd(), stdio: 'inherit' },
);
if (check.status !== 0) {
  process.stderr.write('deploy: stopped before wrangler deploy: check-config did not pass, so nothing was deployed.\n');
  process.exit(check.status ?? 1);
}

const upload = options['secrets-from'] === undefined ? null : writeUploadFile(options['secrets-from']);
const wranglerArgs = [
  'deploy',
  ...(options.config !== undefined ? ['--config', options.config] : []),
  `--env=${options.env ?? ''}`,
  ...(upload && upload.names.length > 0 ? ['--secrets-file', upload.file] : []),
  ...(options['dry-run'] ? ['--dry-run'] : []),
  ...(options.outdir !== undefined ? ['--outdir', options.outdir] : []),
];
// Ctrl-C reaches wrangler too; this process outlives it to remove the secrets file.
const keepRunning = () => {};
process.on('SIGINT', keepRunning);
process.on('SIGTERM', keepRunning);
let status = 1;
try {
  if (upload) {
    process.stdout.write(
      upload.names.length > 0
        ? `deploy: uploading ${upload.names.join(', ')} from ${options['secrets-from']} with the deploy (secrets already stored and not named here are kept).\n`
        : `deploy: ${options['secrets-from']} holds no secret to upload; the secrets already stored are kept.\n`,
    );
  }
  status = spawnSync(process.execPath, [WRANGLER_BIN, ...wranglerArgs], { cwd: process.cwd(), stdio: 'inherit' }).status ?? 1;
} finally {
  upload?.remove();
}
process.exit(status);

/**
 * The secrets `file` holds, as the JSON object `wrangler deploy --secrets-file` reads, in a
 * private temporary folder: the same parser and selection check-config judged.
 * @param {string} file
 */
function writeUploadFile(file) {
  /** @type {readonly string[]} */
  const secretNames = SECRET_VARIABLES;
  const { values } = parseEnvFile(readFileSync(file, 'utf8'), CONFIG_VARIABLES);
  const secrets = secretsToUpload(values, secretNames);
  const folder = mkdtempSync(path.join(tmpdir(), 'kt-deploy-secrets-'));
  const uploadFile = path.join(folder, 'secrets.json');
  writeFileSync(uploadFile, JSON.stringify(secrets), { mode: 0o600 });
  return { file: uploadFile, names: Object.keys(secrets), remove: () => rmSync(folder, { recursive: true, force: true }) };
}
