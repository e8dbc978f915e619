/**
 * How the MCP clients the Hub must serve become OAuth clients of an authorization server: the
 * dynamic registration each one sends (RFC 7591), as it sends it, and the client ID metadata
 * document it presents instead where the server offers them (SEP-991, MCP 2026-07-28
 * authorization, client registration). `npm run check-hub` registers each of these and sends each
 * metadata-document authorization request; the local authorization server's tests register them
 * too. docs/AUTH.md ("Each connector registers") states this same table.
 *
 * Each row names the public document or source it was read from and when: vendors change these,
 * so re-read the source when a connector stops connecting. `{port}` is a loopback port the client
 * picks at run time (check-hub fills in one of its own).
 */

/** Dynamic registration as a connector sends it (RFC 7591 section 2). */
export interface ConnectorRegistration {
  /** `redirect_uris`, in its order. */
  readonly redirectUris: readonly string[];
  /** `token_endpoint_auth_method`. */
  readonly tokenEndpointAuthMethod: 'none' | 'client_secret_post';
  /** `application_type` (OpenID Connect Registration section 2), when it sends one. */
  readonly applicationType?: 'native' | 'web';
  /** `grant_types`. */
  readonly grantTypes: readonly string[];
  /** It sends only those of grantTypes that the server's grant_types_supported lists (when listed). */
  readonly grantTypesFilteredByServer?: boolean;
  /** Other metadata it sends. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** A client ID metadata document (draft-ietf-oauth-client-id-metadata-document): its URL is the client_id. */
export interface MetadataDocumentClient {
  readonly clientId: string;
  /** The redirect URI the connector authorizes with under that client_id. */
  readonly redirectUri: string;
}

export interface ConnectorClient {
  /** Who connects, and with which callback where it has several. */
  readonly name: string;
  /** The product (one product may register in several ways). */
  readonly product: string;
  /** The public documents or sources this row was read from, with their dates. */
  readonly source: string;
  /** Its dynamic registration; null for a client that never registers dynamically. */
  readonly registration: ConnectorRegistration | null;
  /** Its client ID metadata document, used when the server advertises client_id_metadata_document_supported. */
  readonly metadataDocument?: MetadataDocumentClient;
  /** What else a server must know about it. */
  readonly note?: string;
  /** Why its callback needs RFC 9207 iss on the authorization response, when it does. */
  readonly needsIss?: string;
}

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const CODE_AND_REFRESH = ['authorization_code', 'refresh_token'] as const;

/** A ChatGPT callback id of the shape seen in public (12 ASCII letters and digits); not a real one. */
export const CHATGPT_CALLBACK_ID = 'Kq7ZtR2mWx9B';
export const CHATGPT_STABLE_CALLBACK = 'https://chatgpt.com/connector_platform_oauth_redirect';

const CLIENTS: ConnectorClient[] = [
  {
    name: 'Claude (claude.ai)',
    product: 'Claude',
    source:
      'claude.com/docs/connectors/building/authentication (stored copy read 2026-12-07): dynamic registration and client ID metadata documents both ' +
      'supported, the document used when the server lists client_id_metadata_document_supported and none; registration with client_secret_post ' +
      '(issue 41, from the same docs); the document URL as published and fetched in a public survey (2026-08-27)',
    registration: {
      redirectUris: ['https://claude.ai/api/mcp/auth_callback'],
      tokenEndpointAuthMethod: 'client_secret_post',
      grantTypes: CODE_AND_REFRESH,
    },
    metadataDocument: { clientId: 'https://claude.ai/oauth/mcp-oauth-client-metadata', redirectUri: 'https://claude.ai/api/mcp/auth_callback' },
    note: 'Claude Desktop, mobile and Cowork use the same callback',
  },
  {
    name: 'Claude (claude.com)',
    product: 'Claude',
    source: 'claude.com/docs/connectors/building/authentication (stored copy read 2026-12-07) and public server allowlists (2026): the claude.com callback beside the claude.ai one',
    registration: {
      redirectUris: ['https://claude.com/api/mcp/auth_callback'],
      tokenEndpointAuthMethod: 'client_secret_post',
      grantTypes: CODE_AND_REFRESH,
    },
  },
  {
    name: 'Claude Code',
    product: 'Claude Code',
    source:
      'code.claude.com/docs/en/mcp and anthropics/claude-code CHANGELOG 2.1.81 (client ID metadata documents), as quoted in a public survey (2026-08-27); ' +
      'its document lists port-less loopback callbacks; native registration (issue 41)',
    registration: {
      redirectUris: ['http://localhost:{port}/callback'],
      tokenEndpointAuthMethod: 'none',
      applicationType: 'native',
      grantTypes: CODE_AND_REFRESH,
    },
    metadataDocument: { clientId: 'https://claude.ai/oauth/claude-code-client-metadata', redirectUri: 'http://localhost:{port}/callback' },
    note: 'authorizes on any loopback port, so the server must ignore the port (RFC 8252 section 7.3)',
  },
  {
    name: 'ChatGPT (per-connector callback)',
    product: 'ChatGPT',
    source:
      'https://chatgpt.com/connector/oauth/{callback_id}, one per connector, as OpenAI\'s app docs are quoted in public server guides (2026); ' +
      'ids seen in public deployment notes are 12 letters and digits (2026-03); token_endpoint_auth_method not documented, sent as none',
    registration: {
      redirectUris: [`https://chatgpt.com/connector/oauth/${CHATGPT_CALLBACK_ID}`],
      tokenEndpointAuthMethod: 'none',
      grantTypes: CODE_AND_REFRESH,
    },
    note: 'used when the server does not send RFC 9207 iss',
  },
  {
    name: 'ChatGPT (stable callback)',
    product: 'ChatGPT',
    source:
      'OpenAI\'s app docs as quoted in public server READMEs (2026): new connections use this stable callback when the server implements and advertises ' +
      'RFC 9207 iss; community.openai.com thread 1366784 shows it in a live registration (2025-11); ' +
      'its client ID metadata document https://chatgpt.com/oauth/client.json names the same callback (public survey, 2026-08-27)',
    registration: {
      redirectUris: [CHATGPT_STABLE_CALLBACK],
      tokenEndpointAuthMethod: 'none',
      grantTypes: CODE_AND_REFRESH,
    },
    metadataDocument: { clientId: 'https://chatgpt.com/oauth/client.json', redirectUri: CHATGPT_STABLE_CALLBACK },
    needsIss: 'used only when the server sends iss; without it ChatGPT uses its per-connector callback',
  },
  {
    name: 'Cursor',
    product: 'Cursor',
    source:
      'erp-mafia/accounted pull 2225, bytebase/bytebase issue 20510, better-auth/better-auth pull 10956 (2025); Cursor docs name the cursor:// callback; ' +
      'forum.cursor.com thread 148096, as quoted in a public survey: dynamic registration only, no client ID metadata documents (2026-08)',
    registration: {
      redirectUris: ['cursor://anysphere.cursor-mcp/oauth/callback', 'https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:{port}/callback'],
      tokenEndpointAuthMethod: 'none',
      grantTypes: CODE_AND_REFRESH,
    },
    note: 'sends no application_type although its callbacks are a native app\'s (RFC 8252)',
  },
  {
    name: 'VS Code',
    product: 'VS Code',
    source:
      'microsoft/vscode src/vs/base/common/oauth.ts fetchDynamicRegistration (commit 05f882b, read 2026-12-07); ' +
      'microsoft/vscode pull 271403 "Use CIMD if supported" (merged 2025-10-14) and its document https://vscode.dev/oauth/client-metadata.json',
    registration: {
      redirectUris: ['https://insiders.vscode.dev/redirect', 'https://vscode.dev/redirect', 'http://127.0.0.1/', 'http://127.0.0.1:33418/'],
      tokenEndpointAuthMethod: 'none',
      applicationType: 'native',
      grantTypes: [...CODE_AND_REFRESH, DEVICE_CODE_GRANT],
      grantTypesFilteredByServer: true,
      extra: { client_uri: 'https://code.visualstudio.com' },
    },
    metadataDocument: { clientId: 'https://vscode.dev/oauth/client-metadata.json', redirectUri: 'http://127.0.0.1:33418/' },
    note: 'moves off port 33418 when it is taken (RFC 8252 section 7.3)',
  },
  {
    name: 'mcp-remote',
    product: 'mcp-remote',
    source:
      'mcp-remote 0.15.1 (node_modules/mcp-remote/dist, 2026): callback http://localhost:{port}/oauth/callback (127.0.0.1 on Windows); ' +
      'none when the server lists it; application_type derived from the callback (native); offline_access asked only when scopes_supported lists it',
    registration: {
      redirectUris: ['http://localhost:{port}/oauth/callback'],
      tokenEndpointAuthMethod: 'none',
      applicationType: 'native',
      grantTypes: CODE_AND_REFRESH,
      extra: { response_types: ['code'] },
    },
    note: 'the MCP TypeScript SDK clients register the same way',
  },
  {
    name: 'MCP Inspector 2.12.0',
    product: 'MCP Inspector',
    source:
      '@modelcontextprotocol/inspector 2.12.0 (npm, read 2026-12-07): clientMetadata in clients/cli/build/index.js (BaseOAuthClientProvider, ' +
      'shared by every client) and clients/web/dist/assets/index-qtX15-Bz.js, callback {the web page origin}/oauth/callback, the page on ' +
      'http://127.0.0.1:6274 by default (clients/web/build/index.js); the web UI sends discovery, registration and token requests from its ' +
      "backend (/api/fetch), not the browser; scope as @modelcontextprotocol/client 2.3.1's determineScope picks it, empty when nothing names one",
    registration: {
      redirectUris: ['http://127.0.0.1:6274/oauth/callback'],
      tokenEndpointAuthMethod: 'none',
      applicationType: 'native',
      grantTypes: CODE_AND_REFRESH,
      extra: { client_uri: 'https://github.com/modelcontextprotocol/inspector', scope: '' },
    },
    note:
      'a client ID metadata document only when the user configures its URL (there is no default one); the CLI and TUI register the same ' +
      'with http://127.0.0.1:6276/oauth/callback',
  },
];

export const CONNECTOR_CLIENTS: readonly ConnectorClient[] = Object.freeze(CLIENTS.map((client) => Object.freeze(client)));

/** The redirect URIs with `{port}` filled in. */
export function withPort(uris: readonly string[], port: number): string[] {
  return uris.map((uri) => uri.replace('{port}', String(port)));
}

/**
 * The registration request a connector sends (RFC 7591 section 2), named after it so it is
 * recognisable on a real server; `grantTypesSupported` is the server's, which VS Code filters by.
 */
export function connectorRegistration(
  client: ConnectorClient,
  namePrefix: string,
  { port = 53682, grantTypesSupported }: { port?: number; grantTypesSupported?: unknown } = {},
): Record<string, unknown> {
  const registration = client.registration;
  if (!registration) throw new TypeError(`${client.name} does not register dynamically`);
  const grantTypes =
    registration.grantTypesFilteredByServer && Array.isArray(grantTypesSupported)
      ? registration.grantTypes.filter((grant) => grantTypesSupported.includes(grant))
      : [...registration.grantTypes];
  return {
    client_name: `${namePrefix} (${client.name})`,
    redirect_uris: withPort(registration.redirectUris, port),
    grant_types: grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: registration.tokenEndpointAuthMethod,
    ...(registration.applicationType ? { application_type: registration.applicationType } : {}),
    ...registration.extra,
  };
}

/** The products that can become a client only by dynamic registration (no metadata document in any of their rows). */
export function registrationOnlyProducts(): string[] {
  const withDocument = new Set(CONNECTOR_CLIENTS.filter((client) => client.metadataDocument).map((client) => client.product));
  return [...new Set(CONNECTOR_CLIENTS.map((client) => client.product))].filter((product) => !withDocument.has(product));
}

/** The products that use a client ID metadata document when the server offers them. */
export function metadataDocumentProducts(): string[] {
  return [...new Set(CONNECTOR_CLIENTS.filter((client) => client.metadataDocument).map((client) => client.product))];
}
