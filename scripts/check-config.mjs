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
 * With `--deploy` it checks a deployment (what `npm run deploy` runs first): a local-only
 * environment (ENVIRONMENT=local, such as `--env load`) is then refused.
 *
 * Exit 0: valid. 1: invalid (each problem listed). 2: usage error or unreadable file.
 *
 *   npm run check-config
 *   npm run check-config -- --env-file ./secrets.env
 *   npm run check-config -- --env staging --env-file ./staging.env
 *   npm run check-config -- --deploy
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CONFIG_VARIABLES,
  CONFIG_WARNING_TEXT,
  RATE_LIMIT_BINDINGS,
  SECRET_VARIABLES,
  checkVariables,
  configWarnings,
  describeConfigProblem,
  isLocalEnvironment,
} from '../src/config.ts';
import { parseOptionsOrExit } from './cli-options.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** @type {readonly string[]} */
const SECRET_NAMES = SECRET_VARIABLES;
/** The names the Worker reads from vars and secrets (the bindings are not variables). */
const WORKER_VARIABLES = CONFIG_VARIABLES.filter((name) => !(/** @type {readonly string[]} */ (RATE_LIMIT_BINDINGS)).includes(name));
const USAGE = `Usage: npm run check-config -- [--config wrangler.toml] [--env <name>] [--env-file <file>]... [--deploy]
  --config    wrangler configuration file (default: wrangler.toml in the repository)
  --env       a wrangler environment ([env.<name>]); default: the top level
  --env-file  secrets and overrides, KEY=VALUE lines; may be repeated, later files win
              (default: what wrangler dev reads next to the config: .dev.vars.<env> or .dev.vars,
              else .env, .env.local, .env.<env>, .env.<env>.local)
  --deploy    check a deployment (npm run deploy runs this first): a local-only environment
              (ENVIRONMENT=local, such as --env load) is refused
Validates with the Worker's own schema, says which files it read, names each failing variable
and why, and each env-file line that is not read as written, by number. Never prints a value.
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

/** @type {{ config?: string, env?: string, 'env-file'?: string[], deploy?: boolean }} */
const options = parseOptionsOrExit(
  process.argv.slice(2),
  { config: { type: 'string' }, env: { type: 'string' }, 'env-file': { type: 'string', multiple: true }, deploy: { type: 'boolean' } },
  USAGE,
  (values) => /** @type {any} */ (values),
);

const configPath = path.resolve(options.config ?? path.join(REPO_ROOT, 'wrangler.toml'));
if (!existsSync(configPath)) usageError(`no such configuration file: ${shown(configPath)}`);
const configDir = path.dirname(configPath);

// Wrangler's own reader: the same inheritance rules (vars and bindings per environment) as deploy and dev.
const { unstable_readConfig } = await import('wrangler');
/** @type {{ vars: Record<string, unknown>, ratelimits: Array<{ name: string, simple?: { limit?: unknown, period?: unknown } }> }} */
let wrangler;
try {
  wrangler = /** @type {any} */ (unstable_readConfig({ config: configPath, env: options.env }));
} catch {
  usageError(`could not read ${shown(configPath)}${options.env ? ` for --env ${options.env}` : ''}`);
}

const envFiles = selectEnvFiles(options['env-file'], options.env);

/** @type {Record<string, string>} */
const fileVars = {};
/** @type {string[]} */
const lineProblems = [];
/** @type {string[]} */
const lineWarnings = [];
/** @type {string[]} */
const readLines = [];
for (const file of envFiles.files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    usageError(`could not read the env file ${shown(file)}`);
  }
  const parsed = parseDotenv(/** @type {string} */ (text));
  const name = shown(file);
  for (const line of parsed.malformed) lineProblems.push(`${name} line ${line.line}: ${line.why}`);
  for (const line of parsed.warnings) lineWarnings.push(`${name} line ${line.line}: ${line.why}`);
  Object.assign(fileVars, parsed.values);
  readLines.push(`${name}: ${namesSummary(Object.keys(parsed.values))}`);
}

/** @type {Record<string, unknown>} */
const merged = { ...stringVars(wrangler.vars), ...fileVars };
const problems = checkVariables(merged);

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
// What the Worker accepts but would not do as a Hub's operator expects (src/config.ts configWarnings).
for (const warning of configWarnings(merged)) warnings.push(`${warning.variable} ${CONFIG_WARNING_TEXT[warning.reason]}`);

const section = options.env ? `[env.${options.env}]` : 'top level';
const forDeploy = options.deploy === true;
// ENVIRONMENT=local admits loopback origins and may run without rate limits: it is for wrangler dev
// and load runs (the load environment), and a deployment of it is refused.
const localOnly = isLocalEnvironment(stringVars(wrangler.vars)) || isLocalEnvironment(merged);
/** @type {string[]} */
const deployProblems = [];
const localOnlyText = `${options.env ? `the ${options.env} environment` : 'this configuration'} is local-only (ENVIRONMENT=local: loopback origins, rate limits may be lifted)`;
if (localOnly && forDeploy) deployProblems.push(`${localOnlyText}; it is for wrangler dev and load runs and is never deployed`);
/** Vars the env file alone sets: a deployment reads vars from [vars] of wrangler.toml, not from this file. */
const fileOnlyVars = Object.keys(fileVars).filter(
  (name) =>
    WORKER_VARIABLES.includes(/** @type {any} */ (name)) &&
    !SECRET_NAMES.includes(name) &&
    fileVars[name].trim() !== '' &&
    !Object.hasOwn(wrangler.vars ?? {}, name),
);
const limiterText = limiters
  .map(({ name, limiter, valid }) =>
    !limiter ? `no ${name} binding` : valid ? `${name} ${limiter.simple?.limit} per ${limiter.simple?.period} s` : `${name} with an invalid limit or period`,
  )
  .join(', ');
const command = forDeploy ? `\`wrangler deploy --env=${options.env ?? '""'}\` would deploy` : `\`wrangler dev\`${options.env ? ` --env ${options.env}` : ''} would run`;
const out = [`check-config: what ${command}, read from`];
out.push(`  ${shown(configPath)} (${section}): [vars] ${namesSummary(Object.keys(wrangler.vars ?? {}))}; ${limiterText}`);
if (envFiles.files.length === 0) {
  out.push(`  no env file: ${envFiles.looked.map((file) => path.basename(file)).join(', ')} not found next to ${shown(configPath)}, so every secret is unset`);
} else {
  for (const line of readLines) out.push(`  ${line}`);
}
for (const warning of warnings) out.push(`  warning: ${warning}`);
for (const warning of lineWarnings) out.push(`  warning: ${warning}`);
for (const problem of lineProblems) out.push(`  ${problem}`);
if (localOnly && !forDeploy) out.push(`  note: ${localOnlyText}: never deploy it (npm run deploy refuses it)`);
if (forDeploy && fileOnlyVars.length > 0) {
  out.push(`  note: ${fileOnlyVars.join(', ')} set only in the env file: a deployment reads them from [vars] of ${shown(configPath)} (or \`wrangler secret put\`)`);
}
for (const problem of deployProblems) out.push(`  not deployable: ${problem}`);
const width = Math.max(0, ...problems.map((problem) => problem.variable.length));
if (problems.length === 0 && lineProblems.length === 0 && deployProblems.length === 0) {
  const [reads, protocol] = limiters.map(({ limiter }) => limiter);
  const limitsText =
    reads && protocol
      ? ` (per user: ${reads.simple?.limit} reads per ${reads.simple?.period} s, ${protocol.simple?.limit} protocol messages per ${protocol.simple?.period} s)`
      : ' (a rate limit unbound: local only)';
  out.push(`  valid: the Worker accepts this configuration${limitsText}.`);
} else {
  for (const problem of problems) {
    out.push(`  ${problem.variable.padEnd(width)}  ${problem.reason}: ${describeConfigProblem(problem)}`);
  }
  const total = problems.length + lineProblems.length + deployProblems.length;
  const consequences = [];
  if (deployProblems.length > 0) consequences.push('npm run deploy refuses to deploy it');
  if (problems.length > 0) consequences.push('the Worker would answer 503 SERVICE_UNAVAILABLE on every route but /health');
  if (lineProblems.length > 0) {
    consequences.push(`${lineProblems.length} env-file line${lineProblems.length === 1 ? ' is' : 's are'} not read as written (wrangler dev drops or changes ${lineProblems.length === 1 ? 'it' : 'them'})`);
  }
  out.push(`${total} problem${total === 1 ? '' : 's'}: ${consequences.join('; ')}.`);
  if (!forDeploy) out.push(...NPM_START_NOTE);
}
process.stdout.write(`${out.join('\n')}\n`);
process.exit(problems.length === 0 && lineProblems.length === 0 && deployProblems.length === 0 ? 0 : 1);

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
 * dotenv's parse (the version wrangler bundles), plus what it silently does with lines it cannot
 * read: every line it skips that is not blank or a `#` comment, and every value whose quotes it
 * could not pair, is reported by line number. Values are returned for the check, never printed.
 * @param {string} source
 * @returns {{ values: Record<string, string>, malformed: Array<{ line: number, why: string }>, warnings: Array<{ line: number, why: string }> }}
 */
function parseDotenv(source) {
  const LINE =
    /(?:^|^)\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?(?:$|$)/gm;
  const text = source.replace(/\r\n?/g, '\n');
  const lineStarts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineStarts.push(at + 1);
  /** @param {number} offset 1-based line of a character offset */
  const lineOf = (offset) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
  /** @type {Record<string, string>} */
  const values = {};
  /** @type {Array<{ line: number, why: string }>} */
  const malformed = [];
  /** @type {Array<{ line: number, why: string }>} */
  const warnings = [];
  const covered = new Set();
  /** @type {Map<string, number>} */
  const firstLine = new Map();
  let match;
  while ((match = LINE.exec(text)) !== null) {
    const [whole, key, rawValue = ''] = match;
    const start = match.index + (whole.length - whole.trimStart().length);
    const keyLine = lineOf(start);
    // The value's own lines: a quoted value may run on; trailing blank and comment lines the
    // pattern swallows are harmless and also counted as read.
    const valueStart = match.index + whole.indexOf(rawValue, whole.indexOf(key) + key.length);
    const valueEndLine = lineOf(valueStart + Math.max(0, rawValue.length - 1));
    for (let line = keyLine; line <= lineOf(match.index + Math.max(0, whole.length - 1)); line++) covered.add(line);

    let value = rawValue.trim();
    const quote = value[0];
    const unquoted = value.replace(/^(['"`])([\s\S]*)\1$/gm, '$2');
    const paired = unquoted !== value;
    value = unquoted;
    if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\r/g, '\r');
    values[key] = value;

    const known = WORKER_VARIABLES.includes(/** @type {any} */ (key));
    const who = known ? `${key}'s value` : 'the value';
    if ((quote === '"' || quote === "'" || quote === '`') && !paired) {
      const rest = rawValue.trim().slice(1);
      malformed.push({
        line: keyLine,
        why: rest.includes(quote)
          ? `${who} has text after its closing ${quote}, so wrangler dev keeps both quotes as part of the value`
          : `${who} opens a ${quote} quote that is never closed, so wrangler dev keeps the quote as part of the value`,
      });
    } else if (paired && valueEndLine > keyLine) {
      malformed.push({
        line: keyLine,
        why: `${who} is a quoted value that runs on to line ${valueEndLine} (a missing closing quote?); no Worker variable spans lines`,
      });
    }
    if (known && firstLine.has(key)) {
      warnings.push({ line: keyLine, why: `${key} is set again (line ${firstLine.get(key)} is overridden)` });
    } else if (!known) {
      const guess = closestVariable(key);
      warnings.push({
        line: keyLine,
        why: `a name the Worker does not read${guess ? `; did you mean ${guess}?` : ''}`,
      });
    }
    if (!firstLine.has(key)) firstLine.set(key, keyLine);
  }
  const lines = text.split('\n');
  lines.forEach((content, index) => {
    const line = index + 1;
    const trimmed = content.trim();
    if (covered.has(line) || trimmed === '' || trimmed.startsWith('#')) return;
    malformed.push({
      line,
      why: content.includes('=')
        ? 'the text before "=" is not a variable name (letters, digits, _ . - only), so wrangler dev ignores this line'
        : 'no "=" (a KEY=VALUE line), so wrangler dev ignores this line',
    });
  });
  malformed.sort((a, b) => a.line - b.line);
  return { values, malformed, warnings };
}

/**
 * The Worker variable a mistyped name most likely meant (case, or at most two edits), else null.
 * Only a known name is ever printed, never the file's own text.
 * @param {string} name
 */
function closestVariable(name) {
  if (name.length > 64) return null;
  const upper = name.toUpperCase();
  let best = null;
  let bestDistance = 3;
  for (const candidate of WORKER_VARIABLES) {
    const distance = candidate === upper ? 0 : editDistance(upper, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * @param {string} a
 * @param {string} b
 */
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * wrangler.toml vars may be numbers or booleans in TOML; the Worker sees them as given (strings here).
 * @param {Record<string, unknown>} vars
 */
function stringVars(vars) {
  return Object.fromEntries(Object.entries(vars ?? {}).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
}
