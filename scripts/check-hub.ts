/**
 * `npm run check-hub -- --issuer <url> --resource <mcp url>`: checks an OAuth authorization server
 * (the Hub's, or the local one `npm start` runs) the way the hosted MCP connectors use it, and
 * prints one line per requirement: `pass`, `fail` or `not checkable`, each with why. The
 * requirements are docs/AUTH.md's "What the Hub's authorization server must issue"; the checks
 * are scripts/lib/hub-check.ts. Never prints a token, code or secret.
 *
 * Exit 0: nothing failed (some may be not checkable). 1: a requirement failed. 2: usage error.
 *
 *   npm run check-hub -- --issuer http://127.0.0.1:8790 --resource http://127.0.0.1:8787/mcp
 *   npm run check-hub -- --issuer https://hub.example.com --resource https://edge.example.com/mcp
 */
import { parseOptionsOrExit } from './cli-options.mjs';
import { checkHub, CLIENT_NAME_PREFIX, formatReport, type HubCheckOptions } from './lib/hub-check';
import { CONNECTOR_CLIENTS } from './lib/connector-clients';

const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:33418/check-hub/callback';
const DEFAULT_FOREIGN_RESOURCE = 'https://check-hub.invalid/mcp';
const DEFAULT_TIMEOUT_MS = 10_000;

const USAGE = `Usage: npm run check-hub -- --issuer <url> --resource <url> [options]

Checks an OAuth authorization server as the hosted MCP connectors use it, one line per
requirement (pass, fail or not checkable, and why); docs/AUTH.md says what each requires.

  --issuer <url>            the issuer identifier, exactly as the Worker's OAUTH_AUTHORIZATION_SERVER
  --resource <url>          the MCP endpoint the tokens are for, e.g. https://edge.example.com/mcp
  --client-id <id>          a pre-registered public client allowed --redirect-uri, for a server
                            without dynamic registration (default: register one)
  --redirect-uri <url>      loopback redirect URI for the flows, never contacted
                            (default: ${DEFAULT_REDIRECT_URI})
  --foreign-resource <url>  a resource the server must refuse (default: ${DEFAULT_FOREIGN_RESOURCE})
  --timeout <ms>            per request (default: ${DEFAULT_TIMEOUT_MS})
  -h, --help                show this help

What it does to the server: reads its metadata and JWK set; registers ${CONNECTOR_CLIENTS.length + 4} clients named
'${CLIENT_NAME_PREFIX} (...)' when it offers registration (one per known connector, three that must be
refused, one for the flows); runs up to three authorization-code flows with PKCE, following the
server's redirects like a browser, and stops where a person would have to sign in or consent
(those checks are then 'not checkable'). It never prints a token, code or secret.

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

const options = parseOptionsOrExit<HubCheckOptions>(
  process.argv.slice(2),
  {
    issuer: { type: 'string' },
    resource: { type: 'string' },
    'client-id': { type: 'string' },
    'redirect-uri': { type: 'string' },
    'foreign-resource': { type: 'string' },
    timeout: { type: 'string' },
  },
  USAGE,
  (values, UsageError) => {
    const redirectUri = urlOption(values['redirect-uri'] ?? DEFAULT_REDIRECT_URI, 'redirect-uri', UsageError, { query: false });
    const timeoutMs = values.timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(values.timeout);
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError('--timeout must be a positive integer (ms)');
    const clientId = values['client-id'];
    if (clientId !== undefined && (typeof clientId !== 'string' || clientId.trim() === '')) throw new UsageError('--client-id must not be empty');
    return {
      issuer: urlOption(values.issuer, 'issuer', UsageError, { query: false }),
      resource: urlOption(values.resource, 'resource', UsageError, { query: true }),
      foreignResource: urlOption(values['foreign-resource'] ?? DEFAULT_FOREIGN_RESOURCE, 'foreign-resource', UsageError, { query: true }),
      redirectUri,
      ...(typeof clientId === 'string' ? { clientId } : {}),
      timeoutMs,
    };
  },
);

const results = await checkHub(options);
process.stdout.write(formatReport(options, results));
process.exit(results.some((result) => result.status === 'fail') ? 1 : 0);
