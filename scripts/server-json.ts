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
import { EnvSchema } from '../src/config';
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

/** One value through the Worker's own rule for the variable it stands for; a refusal names the option. */
function checked(option: string, variable: 'PUBLIC_ORIGIN' | 'SERVER_CARD_NAME' | 'SERVER_WEBSITE_URL', value: string | undefined): string | undefined {
  const parsed = EnvSchema.shape[variable].safeParse(value);
  if (!parsed.success) throw new UsageError(`${option} is not valid: it must follow ${variable}'s rule (npm run check-config names it)`);
  return parsed.data;
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
