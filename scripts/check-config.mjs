#!/usr/bin/env node
// @ts-check
/**
 * `npm run check-config`: validates the Worker's configuration offline, with the Worker's own
 * schema (src/config.ts, so the two never disagree): the `[vars]` of wrangler.toml (top level or
 * `--env <name>`) overlaid by an env file of secrets and overrides (`--env-file F`, default
 * `.dev.vars` when it exists, as `wrangler dev` does), plus the RATE_LIMITER binding. It names
 * each failing variable and why, from a fixed vocabulary, and never prints a value.
 *
 * Exit 0: valid. 1: invalid (each problem listed). 2: usage error or unreadable file.
 *
 *   npm run check-config
 *   npm run check-config -- --env-file ./secrets.env
 *   npm run check-config -- --env staging --env-file ./staging.env
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, parseEnv } from 'node:util';
import {
  CONFIG_REASON_TEXT,
  RATE_LIMITER_BINDING,
  checkVariables,
  isLocalEnvironment,
} from '../src/config.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECRET_NAMES = ['SESSION_SECRET', 'SESSION_SECRET_PREVIOUS', 'HUB_JWT_SECRET', 'CANISTER_AUTH_SECRET', 'SCOOLING_SMOKE_TOKEN'];
const USAGE = `Usage: npm run check-config -- [--config wrangler.toml] [--env <name>] [--env-file <file>]
  --config    wrangler configuration file (default: wrangler.toml in the repository)
  --env       a wrangler environment ([env.<name>]); default: the top level
  --env-file  secrets and overrides, KEY=VALUE lines (default: .dev.vars next to the config, if present)
Validates with the Worker's own schema, names each failing variable and why, never prints a value.
Exit 0 when valid, 1 when invalid, 2 on a usage error.`;

/** @param {string} message */
function usageError(message) {
  process.stderr.write(`check-config: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      config: { type: 'string' },
      env: { type: 'string' },
      'env-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }));
} catch {
  usageError('unknown or incomplete option');
}
if (options.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const configPath = path.resolve(options.config ?? path.join(REPO_ROOT, 'wrangler.toml'));
if (!existsSync(configPath)) usageError(`no such configuration file: ${path.relative(process.cwd(), configPath) || configPath}`);

// Wrangler's own reader: the same inheritance rules (vars and bindings per environment) as deploy and dev.
const { unstable_readConfig } = await import('wrangler');
/** @type {{ vars: Record<string, unknown>, ratelimits: Array<{ name: string, simple?: { limit?: unknown, period?: unknown } }> }} */
let wrangler;
try {
  wrangler = /** @type {any} */ (unstable_readConfig({ config: configPath, env: options.env }));
} catch {
  usageError(`could not read ${path.basename(configPath)}${options.env ? ` for --env ${options.env}` : ''}`);
}

const defaultEnvFile = path.join(path.dirname(configPath), '.dev.vars');
const envFile = options['env-file'] ? path.resolve(options['env-file']) : existsSync(defaultEnvFile) ? defaultEnvFile : null;
/** @type {Record<string, string>} */
let fileVars = {};
if (envFile) {
  let text;
  try {
    text = readFileSync(envFile, 'utf8');
  } catch {
    usageError(`could not read the env file ${path.relative(process.cwd(), envFile) || envFile}`);
  }
  fileVars = /** @type {Record<string, string>} */ (parseEnv(/** @type {string} */ (text)));
}

/** @type {Record<string, unknown>} */
const merged = { ...stringVars(wrangler.vars), ...fileVars };
const problems = checkVariables(merged);

const limiter = wrangler.ratelimits.find((binding) => binding.name === RATE_LIMITER_BINDING);
const limiterValid =
  limiter !== undefined &&
  Number.isInteger(limiter.simple?.limit) &&
  /** @type {number} */ (limiter.simple?.limit) > 0 &&
  (limiter.simple?.period === 10 || limiter.simple?.period === 60);
if (limiter && !limiterValid) problems.push({ variable: RATE_LIMITER_BINDING, reason: 'invalid' });
else if (!limiter && !isLocalEnvironment(merged)) problems.push({ variable: RATE_LIMITER_BINDING, reason: 'missing_binding' });

const warnings = SECRET_NAMES.filter((name) => Object.hasOwn(wrangler.vars, name)).map(
  (name) => `${name} is a secret but is set in [vars] (stored in plain text); use \`wrangler secret put ${name}\``,
);

const source = `${path.basename(configPath)} ${options.env ? `[env.${options.env}]` : '(top level)'}${envFile ? ` + ${path.relative(process.cwd(), envFile) || envFile}` : ' (no env file: secrets unset)'}`;
const width = Math.max(0, ...problems.map((problem) => problem.variable.length));
const out = [`check-config: ${source}`];
for (const warning of warnings) out.push(`  warning: ${warning}`);
if (problems.length === 0) {
  out.push(`  valid: the Worker accepts this configuration${limiter ? ` (rate limit ${limiter.simple?.limit} per ${limiter.simple?.period} s)` : ' (no rate limit: local only)'}.`);
} else {
  for (const { variable, reason } of problems) {
    out.push(`  ${variable.padEnd(width)}  ${reason}: ${CONFIG_REASON_TEXT[reason]}`);
  }
  out.push(`${problems.length} problem${problems.length === 1 ? '' : 's'}: the Worker would answer 503 SERVICE_UNAVAILABLE on every route but /health.`);
}
process.stdout.write(`${out.join('\n')}\n`);
process.exit(problems.length === 0 ? 0 : 1);

/**
 * wrangler.toml vars may be numbers or booleans in TOML; the Worker sees them as given (strings here).
 * @param {Record<string, unknown>} vars
 */
function stringVars(vars) {
  return Object.fromEntries(Object.entries(vars ?? {}).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
}
