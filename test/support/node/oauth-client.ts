/**
 * What an OAuth-only MCP client does, with the MCP SDK v2 client's own OAuth machinery: an
 * OAuthClientProvider that keeps its registration, PKCE verifier and tokens in memory, and a
 * "user agent" that follows the authorization redirects (the local authorization server approves
 * the demo user automatically) to the client's redirect URI and hands the code back to the SDK.
 * Nothing here builds a token or a protocol message itself.
 */
import {
  Client,
  StreamableHTTPClientTransport,
  type ClientOptions,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/** Never listened on: the user agent stops at this URL and reads the code from it. */
const REDIRECT_URL = 'http://127.0.0.1:1/oauth/callback';
const MAX_REDIRECTS = 10;

/** A public client's registration (RFC 7591): code + PKCE, refresh, no client secret. */
export function publicClientMetadata(clientName: string, redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: clientName,
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

export interface InMemoryOAuthProviderOptions {
  /**
   * Tokens the client already holds (a refresh or a refusal is then what the test meets first),
   * stamped with the issuer that minted them as the SDK stamps every token it saves (SEP-2352);
   * an unstamped token would read as pre-upgrade storage, which the SDK warns about on every read.
   */
  tokens?: StoredOAuthTokens & { issuer: string };
  redirectUrl?: string;
  /** Registration metadata; publicClientMetadata for the redirect URL when absent. */
  metadata?: OAuthClientMetadata;
}

export class InMemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private information: StoredOAuthClientInformation | undefined;
  private stored: StoredOAuthTokens | undefined;
  private verifier = '';
  private discovery: OAuthDiscoveryState | undefined;
  readonly redirectUrl: string;
  readonly clientMetadata: OAuthClientMetadata;

  constructor({ tokens, redirectUrl = REDIRECT_URL, metadata }: InMemoryOAuthProviderOptions = {}) {
    this.stored = tokens;
    this.redirectUrl = redirectUrl;
    this.clientMetadata = metadata ?? publicClientMetadata('knowtation-edge e2e', redirectUrl);
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

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  /** Kept with the code verifier, so the SDK can bind the callback to the server it authorized at (SEP-2352). */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
}

/**
 * The browser's part: GET the authorization URL and follow redirects (carrying cookies, as a
 * browser does) until one points at the redirect URI; its query is the authorization response.
 */
export async function authorizeInUserAgent(authorizationUrl: URL, redirectUrl: string): Promise<URLSearchParams> {
  const cookies = new Map<string, string>();
  let url = authorizationUrl.href;
  for (let hop = 0; hop < MAX_REDIRECTS; hop += 1) {
    const response = await fetch(url, {
      redirect: 'manual',
      headers: { Cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1));
    }
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (!location) throw new Error(`authorization stopped at HTTP ${response.status} without a redirect`);
    const next = new URL(location, url);
    if (next.href.startsWith(redirectUrl)) return next.searchParams;
    url = next.href;
  }
  throw new Error('authorization did not reach the redirect URI');
}

export interface RecordedExchange {
  status: number;
  url: string;
  wwwAuthenticate: string | null;
}

/** A fetch that records every answer's status and challenge, for asserting what the Worker refused. */
export function recordingFetch(log: RecordedExchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    log.push({ status: response.status, url, wwwAuthenticate: response.headers.get('www-authenticate') });
    return response;
  };
}

export interface OAuthConnection {
  client: Client;
  provider: InMemoryOAuthProvider;
  /** Every HTTP answer the client saw, in order. */
  exchanges: RecordedExchange[];
}

/**
 * Connects as an OAuth-only client does: the first attempt meets the 401, the SDK discovers the
 * authorization server from it and registers (RFC 7591), the user agent authorizes with PKCE,
 * finishAuth redeems the code, and a second transport connects with the token.
 */
export async function connectWithOAuth(
  endpoint: URL,
  versionNegotiation: ClientOptions['versionNegotiation'],
  provider = new InMemoryOAuthProvider(),
): Promise<OAuthConnection> {
  const exchanges: RecordedExchange[] = [];
  const transportOptions = { authProvider: provider, fetch: recordingFetch(exchanges) };
  const client = new Client({ name: 'knowtation-edge-e2e-oauth', version: '0.0.0' }, { versionNegotiation });
  try {
    await client.connect(new StreamableHTTPClientTransport(endpoint, transportOptions));
    return { client, provider, exchanges };
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !provider.authorizationUrl) throw error;
  }
  const callback = await authorizeInUserAgent(provider.authorizationUrl, provider.redirectUrl);
  const transport = new StreamableHTTPClientTransport(endpoint, transportOptions);
  await transport.finishAuth(callback);
  await client.connect(transport);
  return { client, provider, exchanges };
}
