/**
 * `npm run server-json -- --origin https://mcp.example.com`: prints the server.json an operator
 * publishes to the MCP Registry for a Worker deployed at that public origin. Built from the same
 * identity and endpoint list as the Worker's own server card (src/http/server-identity.ts,
 * src/http/discovery.ts), so the registry entry, the card and serverInfo agree: streamable-http
 * remotes `<origin>/mcp` and `<origin>/mcp/vaults/{vault_id}` (a URL variable), no packages.
 *
 *   npm run server-json -- --origin https://mcp.example.com [--name com.example/notes] [--website-url https://example.com]
 *
 * --origin follows PUBLIC_ORIGIN's rule (an exact https origin; http only on a loopback host);
 * --name and --website-url default to SERVER_CARD_NAME and SERVER_WEBSITE_URL from the environment,
 * and are checked as the Worker checks those. Exit 0 and the JSON on stdout; 2 on a usage error.
 */
import { EnvSchema, LOOPBACK_HOSTS } from '../src/config';
import { describeConfigProblem } from '../src/config-report';
import { endpointRemotes, type Remote } from '../src/http/discovery';
import { SERVER_DESCRIPTION, SERVER_TITLE, SERVER_VERSION, defaultCardName, serverIcons, type Icon } from '../src/http/server-identity';
import { errorMessage, isEntryPoint, parseCommandLine } from './lib/cli.mjs';

/** The registry's server.json schema this output follows (test/fixtures/discovery/README.md). */
export const SERVER_JSON_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

export interface ServerJsonOptions {
  origin: string;
  name?: string;
  websiteUrl?: string;
}

export interface ServerJson {
  $schema: typeof SERVER_JSON_SCHEMA_URL;
  name: string;
  title: string;
  description: string;
  version: string;
  websiteUrl?: string;
  icons: Icon[];
  remotes: Remote[];
}

export class UsageError extends Error {}

const USAGE = `Usage: npm run server-json -- --origin <https origin> [--name <namespace/name>] [--website-url <https url>]
  --origin       the Worker's public origin, as PUBLIC_ORIGIN (https; http only on a loopback host)
  --name         the reverse-DNS server name (default: SERVER_CARD_NAME, else the origin's host reversed + /knowtation-edge)
  --website-url  the server's web page (default: SERVER_WEBSITE_URL, else none)
Prints the MCP Registry server.json for that deployment.`;

/**
 * Which part of PUBLIC_ORIGIN's rule (one exact origin, https, http only on a loopback host) a
 * value breaks, in words; null when the Worker's schema is refusing it for no reason named here.
 */
export function originRuleBroken(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'it is not a URL: give scheme://host[:port], e.g. https://mcp.example.com';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `its scheme is ${url.protocol.slice(0, -1)}: it must be https (http only on a loopback host)`;
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return 'it is http on a host that is not loopback: it must be https (http only on 127.0.0.1, localhost or [::1])';
  }
  if (url.username !== '' || url.password !== '') return 'it has user information before the host: give scheme://host[:port] only';
  if (url.search !== '' || value.includes('?')) return 'it has a query: give the origin alone, no ?...';
  if (url.hash !== '' || value.includes('#')) return 'it has a fragment: give the origin alone, no #...';
  if (url.pathname !== '/') return 'it has a path: give the origin alone, without /mcp or any other path';
  if (value.endsWith('/')) return 'it ends with /: give the origin without a trailing slash';
  if (url.origin !== value) return `it is not written as the origin is (lower-case scheme and host, no default port): use ${url.origin}`;
  return null;
}

/** What each checked option must be, where its variable's own rule is not spelled out by originRuleBroken. */
const RULE_OF: Record<'SERVER_CARD_NAME' | 'SERVER_WEBSITE_URL', string> = {
  SERVER_CARD_NAME: describeConfigProblem({ variable: 'SERVER_CARD_NAME', reason: 'invalid' }),
  SERVER_WEBSITE_URL: describeConfigProblem({ variable: 'SERVER_WEBSITE_URL', reason: 'not_a_url' }),
};

/** One value through the Worker's own rule for the variable it stands for; a refusal names the option and the rule it breaks. */
function checked(option: string, variable: 'PUBLIC_ORIGIN' | 'SERVER_CARD_NAME' | 'SERVER_WEBSITE_URL', value: string | undefined): string | undefined {
  const parsed = EnvSchema.shape[variable].safeParse(value);
  if (parsed.success) return parsed.data;
  const rule = variable === 'PUBLIC_ORIGIN' ? (originRuleBroken(value ?? '') ?? 'it is not one exact origin') : `it ${RULE_OF[variable]}`;
  throw new UsageError(`${option} is not valid (${variable}'s rule): ${rule}`);
}

/** The server.json for a deployment at `origin`. */
export function serverJson(options: ServerJsonOptions): ServerJson {
  const origin = checked('--origin', 'PUBLIC_ORIGIN', options.origin);
  if (origin === undefined) throw new UsageError('--origin is required');
  const name = checked('--name', 'SERVER_CARD_NAME', options.name) ?? defaultCardName(origin);
  const websiteUrl = checked('--website-url', 'SERVER_WEBSITE_URL', options.websiteUrl);
  return {
    $schema: SERVER_JSON_SCHEMA_URL,
    name,
    title: SERVER_TITLE,
    description: SERVER_DESCRIPTION,
    version: SERVER_VERSION,
    ...(websiteUrl === undefined ? {} : { websiteUrl }),
    icons: serverIcons(origin),
    remotes: endpointRemotes(origin),
  };
}

function main(argv: string[]): void {
  try {
    const values = parseCommandLine(argv, { strings: ['origin', 'name', 'website-url'] }, UsageError);
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    const document = serverJson({
      origin: values.origin ?? '',
      name: values.name ?? process.env.SERVER_CARD_NAME,
      websiteUrl: values['website-url'] ?? process.env.SERVER_WEBSITE_URL,
    });
    process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`server-json: ${errorMessage(error)}\n${USAGE}\n`);
    process.exitCode = 2;
  }
}

if (isEntryPoint(import.meta.url)) main(process.argv.slice(2));
