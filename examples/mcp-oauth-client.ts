/**
 * An MCP client that signs in with OAuth (no token to copy), with the MCP SDK v2 client
 * (@modelcontextprotocol/client), then calls get_note_outline and prints the outline.
 *
 *   npm start                                        # in another terminal
 *   npx tsx examples/mcp-oauth-client.ts [base-url] [note-path]
 *
 * base-url: the argument, else KNOWTATION_URL, else http://127.0.0.1:8787 (`npm start`).
 * It prints an authorization URL: open it in a browser and approve. The authorization server
 * sends the browser back to a one-shot listener on 127.0.0.1, and the client connects.
 * Everything (registration, PKCE verifier, tokens) lives in memory and ends with the process.
 *
 * What a real app keeps instead, and where (the provider's save and read methods are the seams):
 *  - the registration (clientInformation: the client_id from dynamic registration), once per
 *    install, with the app's own settings, and reused, not registered again on every start;
 *    its redirect URI then stays the same too (a fixed loopback port or path);
 *  - the tokens (saveTokens): the refresh token is the user's long-lived credential. Keep it
 *    in the OS keychain or an encrypted store (a server: its session store), never in a plain
 *    file, localStorage or a URL; save every new pair the SDK hands over, since a refresh may
 *    replace the refresh token. The access token is short-lived and may stay in memory;
 *  - the PKCE verifier and discovery state for one sign-in only, dropped once it completes.
 * Never log a token, the authorization code, the verifier or the callback's query.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { components } from './generated/openapi';

type NoteOutline = components['schemas']['NoteOutline'];

const baseUrl = process.argv[2] ?? process.env.KNOWTATION_URL ?? 'http://127.0.0.1:8787';
const notePath = process.argv[3] ?? 'projects/Aurora/roadmap.md';
const mcpUrl = new URL('/mcp', baseUrl);
const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/** The SDK's OAuth state for one run, in memory. */
class InMemoryOAuthProvider implements OAuthClientProvider {
  /** Sent as `state` and required back on the callback: the SDK does not check it (RFC 6749 section 10.12). */
  readonly expectedState = randomBytes(16).toString('base64url');
  private information: StoredOAuthClientInformation | undefined;
  private stored: StoredOAuthTokens | undefined;
  private verifier = '';
  private discovery: OAuthDiscoveryState | undefined;

  constructor(readonly redirectUrl: string) {}

  get clientMetadata(): OAuthClientMetadata {
    // A public client (no secret): authorization code with PKCE, and refresh.
    return {
      client_name: 'Knowtation Edge example',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.expectedState;
  }
  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.information;
  }
  saveClientInformation(information: StoredOAuthClientInformation): void {
    this.information = information;
  }
  tokens(): StoredOAuthTokens | undefined {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this.stored = tokens;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  // Kept like the code verifier: it binds the callback to the authorization server the user
  // was sent to. Without these two methods the SDK cannot check that, and warns on every run.
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
  redirectToAuthorization(authorizationUrl: URL): void {
    console.error(`Open this URL in a browser to sign in:\n  ${authorizationUrl.href}`);
  }
}

/** Listens on 127.0.0.1 at a free port; a loopback redirect URI may use any port (RFC 8252 section 7.3). */
async function listenOnLoopback(): Promise<{ server: Server; redirectUrl: string }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return { server, redirectUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback` };
}

/**
 * The query of the first callback whose `state` is ours: the authorization response.
 * A request without our state (another page, a forged link) is answered 400 and ignored.
 */
function authorizationResponse(server: Server, expectedState: string): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no sign-in within 5 minutes')), SIGN_IN_TIMEOUT_MS).unref();
    server.on('request', (request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback' || url.searchParams.get('state') !== expectedState) {
        response.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not the sign-in this client started.');
        return;
      }
      response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Signed in. You can close this tab.');
      clearTimeout(timer);
      resolve(url.searchParams);
    });
  });
}

/** Heading text is the note author's: control characters are replaced so it cannot drive the terminal. */
const printable = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '\uFFFD');

const { server, redirectUrl } = await listenOnLoopback();
try {
  const provider = new InMemoryOAuthProvider(redirectUrl);
  const callback = authorizationResponse(server, provider.expectedState);
  const client = new Client({ name: 'knowtation-edge-example-oauth', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  } catch (error) {
    // The first connect meets the 401: the SDK has discovered the authorization server,
    // registered this client and called redirectToAuthorization. Anything else is a real failure.
    if (!(error instanceof UnauthorizedError)) throw error;
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    // The whole callback query, not just `code`: the authorization server also sends `iss`
    // (RFC 9207), and finishAuth(code) alone is refused with IssuerMismatchError.
    await transport.finishAuth(await callback);
    await client.connect(transport);
  }

  const result = await client.callTool({ name: 'get_note_outline', arguments: { path: notePath } });
  if (result.isError) {
    // A tool error's text is a fixed {"error","code"} message, e.g. "Upstream 404" for a missing note.
    console.error(`get_note_outline failed: ${JSON.stringify(result.content)}`);
    process.exitCode = 1;
  } else {
    const outline = result.structuredContent as NoteOutline;
    console.log(printable(outline.title ?? outline.path));
    for (const heading of outline.headings) console.log(`${'  '.repeat(heading.level)}${printable(heading.text)}  ${heading.id}`);
  }
  await client.close();
} finally {
  server.close();
}
