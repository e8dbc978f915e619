#!/usr/bin/env node
// @ts-check
/**
 * `npm run check-config`: validates the Worker's configuration offline, with the Worker's own
 * schema (src/config.ts, so the two never disagree): the `[vars]` of wrangler.toml (top level or
 * `--env <name>`) overlaid by env files of secrets and overrides, plus the two rate-limit bindings.
 *
 * The env files are the ones `wrangler dev` would read: `--env-file F` (repeatable, later files
 * win), else `.dev.vars.<env>` or `.dev.vars` next to the configuration, else `.env`, `.env.local`,
 * `.env.<env>` and `.env.<env>.local`. They are parsed with the rules of the dotenv parser wrangler
 * uses, and a line that parser would drop or read differently from what was written (no `=`, a
 * quote that is never closed, text after a closing quote, a quoted value over several lines) is
 * named by its line number. It says which files it read, names each failing variable and why,
 * from a fixed vocabulary with the bounds the schema sets, and never prints a value.
 *
 * With `--deploy` it judges what a deployment will have instead (what `npm run deploy` runs
 * first): the `[vars]` of wrangler.toml, the secrets already stored on Cloudflare (their names, from
 * `wrangler secret list`; when wrangler cannot be asked it says why and judges as if none were
 * stored) and the secrets this deploy uploads (`--secrets-from F`). A deployment never reads an
 * env file, so the env files only tell which fix to name: each missing value gets the one command
 * or `[vars]` line that supplies it, and a value an env file holds that the deployment would lack
 * is named as left behind. A local-only environment (ENVIRONMENT=local, such as `--env load`) is
 * refused.
 *
 * Exit 0: valid. 1: invalid (each problem listed). 2: usage error or unreadable file.
 *
 *   npm run check-config
 *   npm run check-config -- --env-file ./secrets.env
 *   npm run check-config -- --env staging --env-file ./staging.env
 *   npm run check-config -- --deploy
 *   npm run check-config -- --deploy --secrets-from .dev.vars
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_VARIABLES, RATE_LIMIT_BINDINGS, SECRET_VARIABLES, checkVariables, isLocalEnvironment } from '../src/config.ts';
import { CONFIG_WARNING_TEXT, configWarnings, describeConfigProblem } from '../src/config-report.ts';
import { parseOptionsOrExit } from './cli-options.mjs';
import { parseEnvFile, secretsToUpload } from './lib/env-file.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WRANGLER_BIN = path.join(REPO_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
/** How long `wrangler secret list` may take (it asks the Cloudflare API once). */
const SECRET_LIST_TIMEOUT_MS = 60_000;
/** Stands in for a stored secret's value, which cannot be read back: long enough for every secret's bound. */
const STORED_PLACEHOLDER = 'stored-on-cloudflare-value-not-readable';
/** @type {readonly string[]} */
const SECRET_NAMES = SECRET_VARIABLES;
/** The names the Worker reads from vars and secrets (the bindings are not variables). */
const WORKER_VARIABLES = CONFIG_VARIABLES.filter((name) => !(/** @type {readonly string[]} */ (RATE_LIMIT_BINDINGS)).includes(name));
const USAGE = `Usage: npm run check-config -- [--config wrangler.toml] [--env <name>] [--env-file <file>]... [--deploy [--secrets-from <file>]]
  --config        wrangler configuration file (default: wrangler.toml in the repository)
  --env           a wrangler environment ([env.<name>]); default: the top level
  --env-file      secrets and overrides, KEY=VALUE lines; may be repeated, later files win
                  (default: what wrangler dev reads next to the config: .dev.vars.<env> or .dev.vars,
                  else .env, .env.local, .env.<env>, .env.<env>.local)
  --deploy        judge what a deployment will have: [vars] of the config, the secrets stored on
                  Cloudflare (wrangler secret list, when logged in) and the ones --secrets-from
                  uploads; the env files only say which fix to name. A local-only environment
                  (ENVIRONMENT=local, such as --env load) is refused
  --secrets-from  with --deploy: the secrets this file holds are uploaded by npm run deploy with
                  the same option, so they count as set
Validates with the Worker's own schema, says which files it read, names each failing variable
and why (with --deploy, also the command that fixes it), and each env-file line that is not read
as written, by number. Never prints a value.
npm start does not read these files: it runs wrangler dev with its own temporary env file.
Exit 0 when valid, 1 when invalid (or local-only with --deploy), 2 on a usage error.`;

/** Why npm start runs on a fresh clone whatever this check says (scripts/start.mjs). */
const NPM_START_NOTE = [
  'Note: npm start does not read .dev.vars, .env or these secrets. It runs wrangler dev with its own',
  'temporary env file (the published dev secrets, removed when it stops) and sets ENVIRONMENT=local and',
  'the local URLs itself, so it works on a fresh clone whatever this check says. This check is for',
  '`wrangler dev` on your own files and for a deployment: put its values in a file and run',
  '`npm run check-config -- --env-file <file>` (add `--env <name>` for a wrangler environment).',
];

/** @param {string} message */
function usageError(message) {
  process.stderr.write(`check-config: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/**
 * A path as the user would type it: relative to the current folder when inside it, else absolute.
 * @param {string} file
 */
function shown(file) {
  const relative = path.relative(process.cwd(), file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** @type {{ config?: string, env?: string, 'env-file'?: string[], deploy?: boolean, 'secrets-from'?: string }} */
const options = parseOptionsOrExit(
  process.argv.slice(2),
  {
    config: { type: 'string' },
    env: { type: 'string' },
    'env-file': { type: 'string', multiple: true },
    deploy: { type: 'boolean' },
    'secrets-from': { type: 'string' },
  },
  USAGE,
  (values) => /** @type {any} */ (values),
);

const configPath = path.resolve(options.config ?? path.join(REPO_ROOT, 'wrangler.toml'));
if (!existsSync(configPath)) usageError(`no such configuration file: ${shown(configPath)}`);
const configDir = path.dirname(configPath);

// Wrangler's own reader: the same inheritance rules (vars and bindings per environment) as deploy and dev.
const { unstable_readConfig } = await import('wrangler');
/** @type {{ name?: string, vars: Record<string, unknown>, ratelimits: Array<{ name: string, simple?: { limit?: unknown, period?: unknown } }> }} */
let wrangler;
try {
  wrangler = /** @type {any} */ (unstable_readConfig({ config: configPath, env: options.env }));
} catch {
  usageError(`could not read ${shown(configPath)}${options.env ? ` for --env ${options.env}` : ''}`);
}

const forDeploy = options.deploy === true;
if (options['secrets-from'] !== undefined && !forDeploy) usageError('--secrets-from is for --deploy: it names the file whose secrets npm run deploy uploads');
const envFiles = selectEnvFiles(options['env-file'], options.env);
const secretsFile = options['secrets-from'] === undefined ? undefined : path.resolve(options['secrets-from']);

/** @type {Map<string, ReturnType<typeof parseEnvFile>>} each env file read, by absolute path */
const parsedFiles = new Map();
/** @type {Record<string, string>} the env files' values, later files winning */
const fileVars = {};
/** @type {string[]} */
const lineProblems = [];
/** @type {string[]} */
const lineWarnings = [];
/** @type {string[]} */
const readLines = [];
// For wrangler dev the env files are the configuration; for a deployment they are only where the
// fixes can point (a deployment never reads them), so their unreadable lines are warnings there.
for (const file of envFiles.files) {
  const parsed = readEnvFile(file);
  const name = shown(file);
  for (const line of parsed.malformed) (forDeploy ? lineWarnings : lineProblems).push(`${name} line ${line.line}: ${line.why}`);
  for (const line of parsed.warnings) lineWarnings.push(`${name} line ${line.line}: ${line.why}`);
  Object.assign(fileVars, parsed.values);
  readLines.push(`${name}: ${namesSummary(Object.keys(parsed.values))}${forDeploy ? ' (a deployment does not read this file; named here for the fixes)' : ''}`);
}

/** @type {Record<string, string>} */
const tomlVars = stringVars(wrangler.vars);
/** The deployment's sources: the secrets stored on Cloudflare and the ones this deploy uploads. */
const stored = forDeploy ? storedSecretNames() : { names: [], why: '' };
/** @type {Record<string, string>} */
const uploaded = {};
if (secretsFile !== undefined) {
  const parsed = readEnvFile(secretsFile);
  for (const line of parsed.malformed) lineProblems.push(`${shown(secretsFile)} line ${line.line}: ${line.why}`);
  Object.assign(uploaded, secretsToUpload(parsed.values, SECRET_NAMES));
  for (const [name, value] of Object.entries(parsed.values)) if (!Object.hasOwn(fileVars, name)) fileVars[name] = value;
}
/** Stored secrets whose value cannot be read back (stored and not replaced by this deploy): judged present, not by value. */
const storedUnread = (stored.names ?? []).filter((name) => !Object.hasOwn(uploaded, name));

/** @type {Record<string, unknown>} what the Worker will read: wrangler dev's (vars + env files), or the deployment's */
const merged = forDeploy
  ? { ...tomlVars, ...Object.fromEntries(storedUnread.map((name) => [name, STORED_PLACEHOLDER])), ...uploaded }
  : { ...tomlVars, ...fileVars };
const problems = checkVariables(merged).filter((problem) => !storedUnread.includes(problem.variable));

/** @param {{ simple?: { limit?: number, period?: number } }} limiter */
const isValidLimiter = (limiter) =>
  Number.isInteger(limiter.simple?.limit) &&
  /** @type {number} */ (limiter.simple?.limit) > 0 &&
  (limiter.simple?.period === 10 || limiter.simple?.period === 60);
/** Each rate-limit binding: its wrangler entry, whether it is valid, and a problem when it is not there or not valid. */
const limiters = RATE_LIMIT_BINDINGS.map((name) => {
  const limiter = wrangler.ratelimits.find((binding) => binding.name === name);
  const valid = limiter !== undefined && isValidLimiter(limiter);
  if (limiter && !valid) problems.push({ variable: name, reason: 'invalid' });
  else if (!limiter && !isLocalEnvironment(merged)) problems.push({ variable: name, reason: 'missing_binding' });
  return { name, limiter, valid };
});

const warnings = SECRET_NAMES.filter((name) => Object.hasOwn(wrangler.vars, name)).map(
  (name) => `${name} is a secret but is set in [vars] (stored in plain text); use \`wrangler secret put ${name}\``,
);
// What the Worker accepts but would not do as a Hub's operator expects (src/config-report.ts configWarnings).
for (const warning of configWarnings(merged)) warnings.push(`${warning.variable} ${CONFIG_WARNING_TEXT[warning.reason]}`);

const section = options.env ? `[env.${options.env}]` : 'top level';
const varsTable = options.env ? `[env.${options.env}.vars]` : '[vars]';
// ENVIRONMENT=local admits loopback origins and may run without rate limits: it is for wrangler dev
// and load runs (the load environment), and a deployment of it is refused.
const localOnly = isLocalEnvironment(tomlVars) || isLocalEnvironment(merged);
/** @type {string[]} */
const deployProblems = [];
const localOnlyText = `${options.env ? `the ${options.env} environment` : 'this configuration'} is local-only (ENVIRONMENT=local: loopback origins, rate limits may be lifted)`;
if (localOnly && forDeploy) deployProblems.push(`${localOnlyText}; it is for wrangler dev and load runs and is never deployed`);
const limiterText = limiters
  .map(({ name, limiter, valid }) =>
    !limiter ? `no ${name} binding` : valid ? `${name} ${limiter.simple?.limit} per ${limiter.simple?.period} s` : `${name} with an invalid limit or period`,
  )
  .join(', ');
const command = forDeploy ? `\`wrangler deploy --env=${options.env ?? '""'}\` would deploy` : `\`wrangler dev\`${options.env ? ` --env ${options.env}` : ''} would run`;
const out = [`check-config: what ${command}, read from`];
out.push(`  ${shown(configPath)} (${section}): [vars] ${namesSummary(Object.keys(wrangler.vars ?? {}))}; ${limiterText}`);
if (forDeploy) {
  out.push(
    stored.names === null
      ? `  secrets stored on Cloudflare: not known, ${stored.why}; judged as if none were stored`
      : `  secrets stored on Cloudflare: ${namesSummary(stored.names)}${stored.why ? ` (${stored.why})` : ''}; a stored value cannot be read back, so only its presence is judged`,
  );
  out.push(
    secretsFile === undefined
      ? '  secrets this deploy uploads: none (`npm run deploy -- --secrets-from <file>` uploads the secrets a file holds)'
      : `  secrets this deploy uploads, from ${shown(secretsFile)}: ${namesSummary(Object.keys(uploaded))}`,
  );
}
if (envFiles.files.length === 0 && !forDeploy) {
  out.push(`  no env file: ${envFiles.looked.map((file) => path.basename(file)).join(', ')} not found next to ${shown(configPath)}, so every secret is unset`);
} else {
  for (const line of readLines) out.push(`  ${line}`);
}
for (const warning of warnings) out.push(`  warning: ${warning}`);
for (const warning of lineWarnings) out.push(`  warning: ${warning}`);
for (const problem of lineProblems) out.push(`  ${problem}`);
if (localOnly && !forDeploy) out.push(`  note: ${localOnlyText}: never deploy it (npm run deploy refuses it)`);
for (const problem of deployProblems) out.push(`  not deployable: ${problem}`);
/** Values an env file holds that the deployed Worker would not have, and that no problem below already names. */
const leftBehind = forDeploy ? leftBehindNames() : [];
for (const name of leftBehind) {
  out.push(`  left behind: ${name} is set in ${whereSet(name)} but the deployed Worker would not have it`, `      fix: ${fixFor(name)}`);
}
const width = Math.max(0, ...problems.map((problem) => problem.variable.length));
if (problems.length === 0 && lineProblems.length === 0 && deployProblems.length === 0) {
  const [reads, protocol] = limiters.map(({ limiter }) => limiter);
  const limitsText =
    reads && protocol
      ? ` (per user: ${reads.simple?.limit} reads per ${reads.simple?.period} s, ${protocol.simple?.limit} protocol messages per ${protocol.simple?.period} s)`
      : ' (a rate limit unbound: local only)';
  out.push(`  valid: the ${forDeploy ? 'deployed ' : ''}Worker accepts this configuration${limitsText}.`);
} else {
  for (const problem of problems) {
    out.push(`  ${problem.variable.padEnd(width)}  ${problem.reason}: ${describeConfigProblem(problem)}`);
    const fix = forDeploy ? problemFix(problem) : undefined;
    if (fix !== undefined) out.push(`      fix: ${fix}`);
  }
  const total = problems.length + lineProblems.length + deployProblems.length;
  const consequences = [];
  if (forDeploy) consequences.push('npm run deploy refuses to deploy it');
  if (problems.length > 0) consequences.push(`the ${forDeploy ? 'deployed ' : ''}Worker would answer 503 SERVICE_UNAVAILABLE on every route but /health`);
  if (lineProblems.length > 0) {
    consequences.push(`${lineProblems.length} env-file line${lineProblems.length === 1 ? ' is' : 's are'} not read as written (wrangler ${forDeploy ? '' : 'dev '}drops or changes ${lineProblems.length === 1 ? 'it' : 'them'})`);
  }
  out.push(`${total} problem${total === 1 ? '' : 's'}: ${consequences.join('; ')}.`);
  if (!forDeploy) out.push(...NPM_START_NOTE);
}
process.stdout.write(`${out.join('\n')}\n`);
process.exit(problems.length === 0 && lineProblems.length === 0 && deployProblems.length === 0 ? 0 : 1);

/**
 * An env file's values and its unreadable lines; exits 2 when it cannot be read.
 * @param {string} file
 */
function readEnvFile(file) {
  const kept = parsedFiles.get(file);
  if (kept) return kept;
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    usageError(`could not read the env file ${shown(file)}`);
  }
  const parsed = parseEnvFile(/** @type {string} */ (text), WORKER_VARIABLES);
  parsedFiles.set(file, parsed);
  return parsed;
}

/**
 * The names of the secrets the deployed Worker already has, from `wrangler secret list` (names
 * only; a stored value cannot be read back). A Worker not deployed yet has none. When wrangler
 * cannot be asked (not logged in, no answer), `names` is null and `why` says so: the check then
 * judges as if none were stored, so it can only fail where a deployment might, never pass where
 * one would not.
 * @returns {{ names: string[] | null, why: string }}
 */
function storedSecretNames() {
  const listed = spawnSync(
    process.execPath,
    [WRANGLER_BIN, 'secret', 'list', '--format', 'json', '--config', configPath, `--env=${options.env ?? ''}`],
    {
      cwd: configDir,
      encoding: 'utf8',
      // No stdin: wrangler never opens a login page from here, it says it is not logged in.
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: SECRET_LIST_TIMEOUT_MS,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_HIDE_BANNER: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
    },
  );
  const output = `${listed.stdout ?? ''}\n${listed.stderr ?? ''}`.replace(/\u001b\[[0-9;]*m/g, '');
  if (listed.status === 0) {
    try {
      const list = JSON.parse(listed.stdout);
      if (Array.isArray(list)) return { names: list.map((entry) => entry?.name).filter((name) => typeof name === 'string'), why: '' };
    } catch {
      // Not the JSON list wrangler prints: said below.
    }
    return { names: null, why: '`wrangler secret list` printed something other than a list of names' };
  }
  if (/If this is a new Worker/.test(output)) return { names: [], why: `no Worker named ${wrangler.name} is deployed yet` };
  if (/CLOUDFLARE_API_TOKEN|not authenticated|wrangler login/i.test(output)) {
    return { names: null, why: 'wrangler is not logged in (`npx wrangler login`, or CLOUDFLARE_API_TOKEN in the environment, lets it ask)' };
  }
  if (listed.error) return { names: null, why: `\`wrangler secret list\` did not answer within ${SECRET_LIST_TIMEOUT_MS / 1000} s` };
  const firstError = output.split('\n').find((line) => /\[ERROR\]/.test(line))?.replace(/^.*\[ERROR\]\s*/, '').slice(0, 200);
  return { names: null, why: `\`wrangler secret list\` failed${firstError ? `: ${firstError}` : ` (exit ${listed.status})`}` };
}

/**
 * Which env file (or files) hold a value for `name`, as the user would type them.
 * @param {string} name
 */
function whereSet(name) {
  const files = [...envFiles.files, ...(secretsFile === undefined ? [] : [secretsFile])];
  const holding = files.filter((file, index) => files.indexOf(file) === index && Object.hasOwn(readEnvFile(file).values, name));
  return holding.map(shown).join(' and ') || 'the env file';
}

/** @param {string} name */
function isSetInFiles(name) {
  return Object.hasOwn(fileVars, name) && fileVars[name].trim() !== '';
}

/** @param {string} name */
function isDeployed(name) {
  return (Object.hasOwn(merged, name) && String(merged[name]).trim() !== '') || storedUnread.includes(name);
}

/**
 * The one command (or [vars] line) that gives the deployed Worker `name`: a var goes in [vars] of
 * wrangler.toml; a secret an env file holds is uploaded with `npm run deploy -- --secrets-from`,
 * any other secret is stored with `wrangler secret put`.
 * @param {string} name
 */
function fixFor(name) {
  const envFlag = options.env ? ` --env ${options.env}` : '';
  if (!SECRET_NAMES.includes(name)) {
    return `add \`${name} = "..."\` to ${varsTable} of ${shown(configPath)}${isSetInFiles(name) ? ` (the value ${whereSet(name)} holds)` : ''}`;
  }
  if (isSetInFiles(name)) {
    const source = secretsFile ?? envFiles.files.findLast((file) => Object.hasOwn(readEnvFile(file).values, name)) ?? '.dev.vars';
    return `npm run deploy -- ${options.env ? `--env ${options.env} ` : ''}--secrets-from ${shown(source)}`;
  }
  return `npx wrangler secret put ${name}${envFlag}`;
}

/**
 * The fix of one problem of the deployed configuration: where its value must be set, or where the
 * wrong value comes from. None for a rate-limit binding (its reason says the wrangler.toml block).
 * @param {{ variable: string, reason: string }} problem
 */
function problemFix(problem) {
  const { variable, reason } = problem;
  if ((/** @type {readonly string[]} */ (RATE_LIMIT_BINDINGS)).includes(variable)) return undefined;
  if (reason === 'no_verification_key') {
    const held = ['SESSION_SECRET', 'HUB_JWT_SECRET', 'JWT_JWKS_URL'].find(isSetInFiles);
    return fixFor(held ?? 'SESSION_SECRET');
  }
  if (reason === 'missing') return fixFor(variable);
  if (Object.hasOwn(uploaded, variable)) return `correct ${variable} in ${shown(/** @type {string} */ (secretsFile))} (this deploy uploads it)`;
  if (Object.hasOwn(tomlVars, variable)) return `correct ${variable} in ${varsTable} of ${shown(configPath)}`;
  return undefined;
}

/**
 * Worker variables an env file sets that the deployed Worker would not have, apart from the ones a
 * problem already names (a missing required value, or the verification key).
 */
function leftBehindNames() {
  const named = new Set(problems.map((problem) => problem.variable));
  const keyProblem = problems.some((problem) => problem.reason === 'no_verification_key');
  return WORKER_VARIABLES.filter(
    (name) =>
      isSetInFiles(name) &&
      !isDeployed(name) &&
      !named.has(name) &&
      !(keyProblem && ['HUB_JWT_SECRET', 'JWT_JWKS_URL'].includes(name)),
  );
}

/**
 * The env files wrangler dev reads for this configuration (src/dev/dev-vars.ts in wrangler 4):
 * the given ones; else `.dev.vars.<env>`, then `.dev.vars`; else the `.env` family, unless
 * CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV=false.
 * @param {string[] | undefined} given
 * @param {string | undefined} env
 * @returns {{ files: string[], looked: string[] }}
 */
function selectEnvFiles(given, env) {
  if (given && given.length > 0) return { files: given.map((file) => path.resolve(file)), looked: [] };
  const devVars = [...(env ? [`.dev.vars.${env}`] : []), '.dev.vars'].map((name) => path.join(configDir, name));
  const found = devVars.find((file) => existsSync(file));
  if (found) return { files: [found], looked: devVars };
  if (String(process.env.CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV ?? '').toLowerCase() === 'false') return { files: [], looked: devVars };
  const dotEnv = ['.env', '.env.local', ...(env ? [`.env.${env}`, `.env.${env}.local`] : [])].map((name) => path.join(configDir, name));
  return { files: dotEnv.filter((file) => existsSync(file)), looked: [...devVars, ...dotEnv] };
}

/**
 * "ENVIRONMENT, CANISTER_URL (2)": only names the Worker reads are printed; any other name in a
 * file could be a value pasted on its own line, so it is only counted.
 * @param {string[]} names
 */
function namesSummary(names) {
  const known = names.filter((name) => WORKER_VARIABLES.includes(/** @type {any} */ (name)));
  const others = names.length - known.length;
  if (names.length === 0) return 'none';
  const parts = known.length > 0 ? [known.join(', ')] : [];
  if (others > 0) parts.push(`${others} other name${others === 1 ? '' : 's'} the Worker does not read`);
  return parts.join(' and ');
}

/**
 * wrangler.toml vars may be numbers or booleans in TOML; the Worker sees them as given (strings here).
 * @param {Record<string, unknown>} vars
 */
function stringVars(vars) {
  return Object.fromEntries(Object.entries(vars ?? {}).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
}
