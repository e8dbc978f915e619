/**
 * `npm run check-hub -- --issuer <url> --resource <mcp url>`: checks an OAuth authorization server
 * (the Hub's, or the local one `npm start` runs) the way the MCP connectors use it, judges every
 * token it obtains with the Worker's own verification, and prints one line per requirement:
 * `pass`, `warn`, `fail` or `not checkable`, each with why. The requirements are docs/AUTH.md's
 * "What the Hub's authorization server must issue"; the checks are scripts/lib/hub-check.ts. Never
 * prints a token, code, secret or client id (the one exception: the authorization URL that
 * --interactive shows on stderr names the client).
 *
 * Exit 0: nothing failed (some may warn or be not checkable). 1: a requirement failed. 2: usage error.
 *
 *   npm run check-hub -- --issuer http://127.0.0.1:8790 --resource http://127.0.0.1:8787/mcp
 *   HUB_SECRET=... npm run check-hub -- --issuer https://hub.example.com/ --resource https://edge.example.com/mcp --secret-env HUB_SECRET --interactive
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { setGlobalDispatcher } from 'undici';
import { parseOptionsOrExit } from './cli-options.mjs';
import { checkHub, CLIENT_NAME_PREFIX, formatReport, registrationCount, type HubCheckOptions } from './lib/hub-check';
import { HubNetwork, isLoopbackHost } from './lib/hub-network';
import { resourcePathOf, SECRET_VARIABLES, type WorkerTokenSettings } from './lib/hub-token-judge';
import { loopbackSignIn } from './lib/loopback-sign-in';

const DEFAULT_REDIRECT_URI = 'http://localhost:53419/oauth/callback';
const DEFAULT_FOREIGN_RESOURCE = 'https://check-hub.invalid/mcp';
const DEFAULT_TIMEOUT_MS = 10_000;
const SIGN_IN_WAIT_MS = 5 * 60_000;
/** The Worker's token variables check-hub reads from an env file; no other is read. */
const ENV_FILE_VARIABLES = [...SECRET_VARIABLES, 'LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE', 'JWT_ISSUER', 'JWT_AUDIENCE', 'HOSTED_CONTEXT_URL'] as const;

const USAGE = `Usage: npm run check-hub -- --issuer <url> --resource <url> [options]

Checks an OAuth authorization server as the MCP connectors use it, and judges each token it
obtains with the Worker's own verification: one line per requirement (pass, warn, fail or not
checkable, and why); docs/AUTH.md says what each requires.

  --issuer <url>            the issuer identifier, exactly as the Worker's OAUTH_AUTHORIZATION_SERVER
  --resource <url>          the Worker resource the tokens are for: <origin>, <origin>/mcp or
                            <origin>/mcp/vaults/<id> (https; http only on loopback)
  --secret-env <NAME>       an environment variable holding the Hub's session secret (the Worker's
                            SESSION_SECRET), to verify HS256 tokens as the Worker does
  --env-file <file>         the Worker's env file (KEY=VALUE lines): its SESSION_SECRET, HUB_JWT_SECRET,
                            SESSION_SECRET_PREVIOUS, LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE, JWT_ISSUER,
                            JWT_AUDIENCE and HOSTED_CONTEXT_URL are read, nothing else
  --interactive             print the authorization URL and wait for the browser's redirect on the
                            redirect URI's loopback port, so a person signs in and consents
  --client-id <id>          a pre-registered public client allowed --redirect-uri, for a server
                            without dynamic registration (default: register one)
  --redirect-uri <url>      loopback redirect URI for the flows (default: ${DEFAULT_REDIRECT_URI},
                            mcp-remote's shape, so its registration serves the flows)
  --foreign-resource <url>  a resource the server must refuse (default: ${DEFAULT_FOREIGN_RESOURCE})
  --timeout <ms>            per request (default: ${DEFAULT_TIMEOUT_MS})
  -h, --help                show this help

What it does to the server: reads its metadata and key set; registers ${registrationCount(DEFAULT_REDIRECT_URI)} clients named
'${CLIENT_NAME_PREFIX} (...)' when it offers registration (each connector as it registers, three that
must be refused), and stops at the server's registration limit (HTTP 429); sends each connector's
client ID metadata document authorization request when it offers them, without completing it; runs
up to four authorization requests with PKCE, following the server's redirects like a browser and
stopping where a person would have to sign in or consent (unless --interactive); refreshes once and
replays the used refresh token. Every hop is https (http only to loopback for a loopback issuer), a
remote issuer's endpoints on loopback or private addresses are refused, nothing is redirected to
that the Worker would not follow, and every body is read within a cap. Secrets are never printed.

Exit code: 0 nothing failed, 1 a requirement failed, 2 usage error.`;

/** An absolute http(s) URL without a fragment (and, for an issuer, without a query: RFC 8414 section 2). */
function urlOption(value: unknown, name: string, UsageError: new (message: string) => Error, { query }: { query: boolean }): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  const url = URL.parse(value);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new UsageError(`--${name} must be an absolute http(s) URL`);
  if (value.includes('#')) throw new UsageError(`--${name} must not have a fragment`);
  if (!query && url.search) throw new UsageError(`--${name} must not have a query`);
  return value;
}

/** The Worker's token settings from an env file and a secret variable; values stay out of every message. */
function workerSettings(envFile: unknown, secretEnv: unknown, UsageError: new (message: string) => Error): WorkerTokenSettings | undefined {
  if (envFile === undefined && secretEnv === undefined) return undefined;
  const settings: WorkerTokenSettings = { secrets: {}, origin: '' };
  const origins: string[] = [];
  if (typeof envFile === 'string') {
    let values: Record<string, string>;
    try {
      values = parseEnv(readFileSync(envFile, 'utf8')) as Record<string, string>;
    } catch {
      throw new UsageError(`--env-file ${path.basename(envFile)} cannot be read`);
    }
    const read = (name: (typeof ENV_FILE_VARIABLES)[number]) => (typeof values[name] === 'string' && values[name].trim() !== '' ? values[name] : undefined);
    for (const name of SECRET_VARIABLES) if (read(name)) settings.secrets[name] = read(name);
    settings.legacyTokensWithoutAudience = read('LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE');
    settings.JWT_ISSUER = read('JWT_ISSUER');
    settings.JWT_AUDIENCE = read('JWT_AUDIENCE');
    settings.hostedContextUrl = read('HOSTED_CONTEXT_URL');
    origins.push(path.basename(envFile));
  }
  if (secretEnv !== undefined) {
    if (typeof secretEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretEnv)) throw new UsageError('--secret-env must name an environment variable');
    const value = process.env[secretEnv];
    if (value === undefined || value.trim() === '') throw new UsageError(`--secret-env: ${secretEnv} is not set`);
    settings.secrets.SESSION_SECRET = value;
    origins.push(`$${secretEnv}`);
  }
  settings.origin = origins.join(' and ');
  return settings;
}

const options = parseOptionsOrExit<HubCheckOptions>(
  process.argv.slice(2),
  {
    issuer: { type: 'string' },
    resource: { type: 'string' },
    'client-id': { type: 'string' },
    'redirect-uri': { type: 'string' },
    'foreign-resource': { type: 'string' },
    timeout: { type: 'string' },
    'secret-env': { type: 'string' },
    'env-file': { type: 'string' },
    interactive: { type: 'boolean' },
  },
  USAGE,
  (values, UsageError) => {
    const issuer = urlOption(values.issuer, 'issuer', UsageError, { query: false });
    const resource = urlOption(values.resource, 'resource', UsageError, { query: false });
    const resourceUrl = new URL(resource);
    if (resourcePathOf(resource) === null) throw new UsageError('--resource must be <origin>, <origin>/mcp or <origin>/mcp/vaults/<id>');
    if (resourceUrl.protocol === 'http:' && !isLoopbackHost(resourceUrl.hostname)) throw new UsageError('--resource must be https (http only on loopback)');
    const redirectUri = urlOption(values['redirect-uri'] ?? DEFAULT_REDIRECT_URI, 'redirect-uri', UsageError, { query: false });
    const redirectUrl = new URL(redirectUri);
    if (redirectUrl.protocol !== 'http:' || !isLoopbackHost(redirectUrl.hostname)) throw new UsageError('--redirect-uri must be an http loopback URL');
    const timeoutMs = values.timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(values.timeout);
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError('--timeout must be a positive integer (ms)');
    const clientId = values['client-id'];
    if (clientId !== undefined && (typeof clientId !== 'string' || clientId.trim() === '')) throw new UsageError('--client-id must not be empty');
    const worker = workerSettings(values['env-file'], values['secret-env'], UsageError);
    return {
      issuer,
      resource,
      foreignResource: urlOption(values['foreign-resource'] ?? DEFAULT_FOREIGN_RESOURCE, 'foreign-resource', UsageError, { query: true }),
      redirectUri,
      ...(typeof clientId === 'string' ? { clientId } : {}),
      timeoutMs,
      ...(worker ? { worker } : {}),
      ...(values.interactive ? { signIn: loopbackSignIn({ waitMs: SIGN_IN_WAIT_MS, write: (text) => process.stderr.write(text) }) } : {}),
    };
  },
);

// Every fetch in this process, the Worker's own key-set fetch included, connects only where check-hub's rules allow.
setGlobalDispatcher(new HubNetwork({ issuer: options.issuer, timeoutMs: options.timeoutMs }).guardedDispatcher());
const results = await checkHub(options);
process.stdout.write(formatReport(options, results));
process.exit(results.some((result) => result.status === 'fail') ? 1 : 0);
