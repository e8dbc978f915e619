#!/usr/bin/env node
// @ts-check
/**
 * Mints an HS256 JWT with the claims the Hub issues, for local testing of the Worker.
 *
 *   npm run -s token -- --sub demo --role viewer            # prints only the token
 *   TOKEN=$(npm run -s token -- --sub demo --role viewer)
 *
 * Signing key: --secret, else env SESSION_SECRET, else the published dev secret. Any key that is
 * not a published dev secret is refused (exit 2, nothing on stdout) unless
 * --allow-production-secret is given, so a real key is never used by accident. A key the Worker
 * itself would refuse (shorter than MIN_HMAC_SECRET_CHARS) is refused too unless
 * --allow-weak-secret is given, so a minted token is one the Worker can verify.
 */
import { SignJWT } from 'jose';
import { DEMO_USER, DEV_SESSION_SECRET, isDevSecret } from './dev-config.mjs';
import { parseOptions } from './cli-options.mjs';
import { isEntryPoint } from './lib/cli.mjs';

export const TOKEN_TYPES = /** @type {const} */ (['session', 'mcp_access', 'agent_access']);
export const KNOWN_ROLES = /** @type {const} */ (['viewer', 'editor', 'evaluator', 'admin']);
const TTL_UNIT_SECONDS = /** @type {const} */ ({ s: 1, m: 60, h: 3600, d: 86400 });
/**
 * Shortest HMAC secret the Worker accepts (src/config.ts MIN_HMAC_SECRET_CHARS, counted in UTF-16
 * code units like String.length); test/scripts/token-script.test.ts checks the two agree.
 */
export const MIN_HMAC_SECRET_CHARS = 32;

export const USAGE = `Usage: npm run -s token -- [options]

Mints an HS256 JWT for the local Worker and prints only the token on stdout.

Options:
  --sub <id>                  subject (default: ${DEMO_USER})
  --role <role>               viewer | editor | evaluator | admin (default: viewer)
  --type <type>               session | mcp_access | agent_access (default: session)
  --vault <id>                adds allowed_vault_ids: [id] (agent_access: also vault_ids)
  --canister-user <id>        adds effective_canister_user_id
  --scope-folder <folder>     adds to scope.folders (repeatable)
  --scope-project <project>   adds to scope.projects (repeatable)
  --scopes <a,b>              OAuth scopes claim, e.g. vault:read,vault:write
                              (mcp_access / agent_access tokens need these to be accepted)
  --ttl <n[s|m|h|d]>          lifetime (default: 1h; a bare number is seconds)
  --secret <key>              signing key (default: env SESSION_SECRET, else the dev secret)
  --allow-production-secret   allow a key that is not the published dev secret
  --allow-weak-secret         allow a key shorter than ${MIN_HMAC_SECRET_CHARS} characters (the Worker
                              refuses such a SESSION_SECRET, so its tokens only suit other verifiers)
  -h, --help                  show this help

Example:
  TOKEN=$(npm run -s token -- --sub demo --role viewer --ttl 12h)
  curl -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:8787/api/v1/note-outline?path=..."
`;

/** A command-line problem: reported on stderr with exit code 2, and no token is printed. */
export class TokenUsageError extends Error {}

/**
 * Lifetime in seconds from `30s`, `15m`, `12h`, `7d` or a bare number of seconds; must be positive.
 * @param {string} text
 * @returns {number}
 */
export function parseTtl(text) {
  const match = /^([0-9]+)([smhd])?$/.exec(text.trim());
  if (!match) throw new TokenUsageError(`invalid --ttl '${text}' (use e.g. 30s, 15m, 12h, 7d)`);
  const unit = /** @type {keyof typeof TTL_UNIT_SECONDS} */ (match[2] ?? 's');
  const seconds = Number(match[1]) * TTL_UNIT_SECONDS[unit];
  if (!Number.isSafeInteger(seconds) || seconds <= 0) throw new TokenUsageError(`invalid --ttl '${text}' (must be positive)`);
  return seconds;
}

/**
 * @typedef {object} TokenOptions
 * @property {string} sub
 * @property {string} role
 * @property {'session' | 'mcp_access' | 'agent_access'} type
 * @property {string} [vault]
 * @property {string} [canisterUser]
 * @property {string[]} [scopeFolders]
 * @property {string[]} [scopeProjects]
 * @property {string[]} [scopes]
 * @property {number} ttlSeconds
 * @property {number} [now] issue time in seconds since the epoch (default: now)
 */

/**
 * The JWT payload for these options, with exactly the claims the Hub would mint.
 * @param {TokenOptions} options
 * @returns {Record<string, unknown>}
 */
export function buildClaims(options) {
  const iat = options.now ?? Math.floor(Date.now() / 1000);
  /** @type {Record<string, unknown>} */
  const claims = { sub: options.sub, role: options.role, type: options.type, iat, exp: iat + options.ttlSeconds };
  if (options.vault !== undefined) claims.allowed_vault_ids = [options.vault];
  if (options.canisterUser !== undefined) claims.effective_canister_user_id = options.canisterUser;
  const folders = options.scopeFolders ?? [];
  const projects = options.scopeProjects ?? [];
  if (folders.length > 0 || projects.length > 0) claims.scope = { projects, folders };
  if (options.scopes !== undefined) claims.scopes = options.scopes;
  if (options.type === 'agent_access') {
    claims.aud = 'knowtation-hub-rest';
    claims.typ = 'kt_agent_access';
    claims.vault_ids = [options.vault ?? 'default'];
  }
  return claims;
}

/**
 * Signs the claims for these options with HS256.
 * @param {TokenOptions & { secret: string }} options
 * @returns {Promise<string>}
 */
export async function mintToken(options) {
  if (options.secret === '') throw new TokenUsageError('the signing secret is empty');
  return new SignJWT(buildClaims(options))
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(options.secret));
}

/**
 * A viewer session token, the one the local tools (npm start, smoke, load) and the tests send:
 * signed with the published dev secret unless another key is given.
 * @param {string} sub
 * @param {number} ttlSeconds
 * @param {string} [secret]
 * @returns {Promise<string>}
 */
export function mintViewerToken(sub, ttlSeconds, secret = DEV_SESSION_SECRET) {
  return mintToken({ sub, role: 'viewer', type: 'session', ttlSeconds, secret });
}

/**
 * Parses the command line into token options plus the chosen secret; throws TokenUsageError.
 * @param {string[]} argv
 * @param {Record<string, string | undefined>} env
 * @returns {{ help: true } | { help: false, options: TokenOptions & { secret: string }, warnings: string[] }}
 */
export function parseTokenArgs(argv, env) {
  const values = parseOptions(
    argv,
    {
      sub: { type: 'string' },
      role: { type: 'string' },
      type: { type: 'string' },
      vault: { type: 'string' },
      'canister-user': { type: 'string' },
      'scope-folder': { type: 'string', multiple: true },
      'scope-project': { type: 'string', multiple: true },
      scopes: { type: 'string' },
      ttl: { type: 'string' },
      secret: { type: 'string' },
      'allow-production-secret': { type: 'boolean' },
      'allow-weak-secret': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    TokenUsageError,
  );
  if (values.help) return { help: true };

  const sub = values.sub ?? DEMO_USER;
  if (sub.trim() === '') throw new TokenUsageError('--sub must be a non-empty string');
  const role = values.role ?? 'viewer';
  if (role === '') throw new TokenUsageError('--role must be a non-empty string');
  const type = values.type ?? 'session';
  if (!(/** @type {readonly string[]} */ (TOKEN_TYPES)).includes(type)) {
    throw new TokenUsageError(`--type must be one of ${TOKEN_TYPES.join(', ')}`);
  }
  const scopes =
    values.scopes === undefined
      ? undefined
      : values.scopes
          .split(',')
          .map((scope) => scope.trim())
          .filter((scope) => scope !== '');

  const secret = values.secret ?? env.SESSION_SECRET ?? DEV_SESSION_SECRET;
  if (secret.trim() === '') throw new TokenUsageError('the signing secret is empty');
  if (secret.length < MIN_HMAC_SECRET_CHARS && !values['allow-weak-secret']) {
    throw new TokenUsageError(
      `refusing to sign with a ${secret.length}-character secret (from --secret or SESSION_SECRET): the Worker ` +
        `refuses HMAC secrets shorter than ${MIN_HMAC_SECRET_CHARS} characters, so it would answer 503 and never ` +
        'accept this token. Use a longer secret, or pass --allow-weak-secret if you really mean it.',
    );
  }
  if (!isDevSecret(secret) && !values['allow-production-secret']) {
    throw new TokenUsageError(
      'refusing to sign with a secret that is not the local dev secret (from --secret or SESSION_SECRET). ' +
        'Pass --allow-production-secret if you really mean to mint a token for a real deployment.',
    );
  }

  /** @type {string[]} */
  const warnings = [];
  if (!(/** @type {readonly string[]} */ (KNOWN_ROLES)).includes(role)) {
    warnings.push(`role '${role}' is not one of ${KNOWN_ROLES.join(', ')}; the Hub treats it as viewer`);
  }
  if (type !== 'session' && scopes === undefined) {
    warnings.push(`${type} tokens carry no scopes; add --scopes vault:read (or similar) for them to be accepted`);
  }

  return {
    help: false,
    warnings,
    options: {
      sub,
      role,
      type: /** @type {TokenOptions['type']} */ (type),
      vault: values.vault,
      canisterUser: values['canister-user'],
      scopeFolders: values['scope-folder'],
      scopeProjects: values['scope-project'],
      scopes,
      ttlSeconds: parseTtl(values.ttl ?? '1h'),
      secret,
    },
  };
}

/**
 * CLI entry: the token alone on stdout; usage errors on stderr with exit code 2.
 * @param {string[]} argv
 */
async function main(argv) {
  try {
    const parsed = parseTokenArgs(argv, process.env);
    if (parsed.help) {
      process.stdout.write(USAGE);
      return;
    }
    for (const warning of parsed.warnings) process.stderr.write(`token: warning: ${warning}\n`);
    process.stdout.write(`${await mintToken(parsed.options)}\n`);
  } catch (error) {
    if (error instanceof TokenUsageError) {
      process.stderr.write(`token: ${error.message}\nRun with --help for usage.\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}

if (isEntryPoint(import.meta.url)) await main(process.argv.slice(2));
