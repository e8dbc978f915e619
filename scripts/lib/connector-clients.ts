/**
 * How the MCP clients the Hub must serve register with an authorization server (RFC 7591): the
 * redirect URIs each one sends, as it sends them. `npm run check-hub` registers each of these and
 * the local authorization server's tests do too, so a server that refuses one is caught before a
 * user meets the refusal.
 *
 * Sources (each a public account of what the client sends; vendors change these, so re-check them
 * when a connector stops registering):
 *  - Claude: claude.com/docs/connectors/building/authentication names the callback
 *    `https://claude.ai/api/mcp/auth_callback`; servers are told to allow the claude.com form too
 *    (connector guides, e.g. sunpeak.ai's Claude connector OAuth guide, Zuora's redirect URI table).
 *    Claude Code registers a loopback `http://localhost:<port>/callback` (Zuora's table).
 *  - ChatGPT: a per-connector `https://chatgpt.com/connector/oauth/<callback id>` and the older
 *    `https://chatgpt.com/connector_platform_oauth_redirect` (makeplane/plane-mcp-server pull 165;
 *    gitlab-org/gitlab issue 579061 shows the older one in a live request).
 *  - Cursor: one registration with `cursor://anysphere.cursor-mcp/oauth/callback`,
 *    `https://www.cursor.com/agents/mcp/oauth/callback` and a loopback callback, without
 *    `application_type` (erp-mafia/accounted pull 2225, bytebase/bytebase issue 20510,
 *    better-auth/better-auth pull 10956; Cursor's own docs name the `cursor://` callback).
 *  - VS Code: `https://insiders.vscode.dev/redirect`, `https://vscode.dev/redirect`,
 *    `http://127.0.0.1/` and `http://127.0.0.1:33418/` (microsoft/vscode issue 278512); at request
 *    time it may use another loopback port.
 *  - mcp-remote (and MCP SDK clients like it): `http://<localhost, or 127.0.0.1 on Windows>:<port>/oauth/callback`
 *    (mcp-remote 0.15.1, node_modules/mcp-remote/dist).
 *  - MCP Inspector 0.16.8: `<its origin>/oauth/callback` and `/oauth/callback/debug`, registered
 *    from the browser (@modelcontextprotocol/inspector-client 0.16.8).
 */

export interface ConnectorClient {
  /** Who registers. */
  readonly name: string;
  /** What it sends as `redirect_uris`, in its order. */
  readonly redirectUris: readonly string[];
  /** Other metadata it is known to send. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export const CONNECTOR_CLIENTS: readonly ConnectorClient[] = Object.freeze([
  { name: 'Claude (claude.ai)', redirectUris: ['https://claude.ai/api/mcp/auth_callback'] },
  { name: 'Claude (claude.com)', redirectUris: ['https://claude.com/api/mcp/auth_callback'] },
  { name: 'Claude Code', redirectUris: ['http://localhost:53682/callback'] },
  // The callback id is ChatGPT's own, one per connector; this one has its shape, not a real id.
  { name: 'ChatGPT (per-connector callback)', redirectUris: ['https://chatgpt.com/connector/oauth/c_0123456789abcdef'] },
  { name: 'ChatGPT (older callback)', redirectUris: ['https://chatgpt.com/connector_platform_oauth_redirect'] },
  {
    name: 'Cursor (native, web and loopback callbacks, no application_type)',
    redirectUris: [
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'https://www.cursor.com/agents/mcp/oauth/callback',
      'http://localhost:8787/callback',
    ],
  },
  {
    name: 'VS Code',
    redirectUris: ['https://insiders.vscode.dev/redirect', 'https://vscode.dev/redirect', 'http://127.0.0.1/', 'http://127.0.0.1:33418/'],
  },
  { name: 'mcp-remote', redirectUris: ['http://127.0.0.1:12631/oauth/callback'] },
  {
    name: 'MCP Inspector 0.16.8',
    redirectUris: ['http://localhost:6274/oauth/callback', 'http://localhost:6274/oauth/callback/debug'],
    extra: { client_uri: 'https://github.com/modelcontextprotocol/inspector', scope: '' },
  },
].map((client: ConnectorClient) => Object.freeze(client)));

/**
 * The registration request a connector sends (RFC 7591 section 2): a public client for the code
 * flow with refresh, named after the connector so it is recognisable on a real server.
 */
export function connectorRegistration(client: ConnectorClient, namePrefix: string): Record<string, unknown> {
  return {
    client_name: `${namePrefix} (${client.name})`,
    redirect_uris: [...client.redirectUris],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...client.extra,
  };
}
