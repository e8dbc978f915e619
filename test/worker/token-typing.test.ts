// Explicit typing (RFC 8725 section 3.11): a token the JWK set verifies is read only as an RFC 9068
// access token (section 2.1 `typ: at+jwt`, section 4 validation) or as a token for JWT_AUDIENCE.
// Every other JWT its issuer signs with the same key (an OpenID Connect ID token, a back-channel
// logout token, a bare JWT) is 401 on the REST routes and on both MCP endpoint forms in both eras,
// before any canister read. Session tokens under the shared secret keep their rules. Tokens are
// signed with the key the JWK set stand-in publishes (test/support/node/jwks-server.ts).
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { LEGACY_REVISIONS, MODERN_REVISION } from '../../src/http/mcp-era';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { AUTHORIZATION_SERVER, MCP_HEADERS, ORIGIN, REST_ROUTES, TOOLS, callWorker, mintToken, restGet, testEnv } from '../support/worker/harness';

const NOTE = { path: 'typing/a.md', frontmatter: { title: 'A' }, body: '# Typed heading\n\ntext\n' };
const CLIENT_ID = 'connector-client-1';
const HUB_AUDIENCE = 'knowtation-edge';

let logLines: string[] = [];
beforeEach(() => {
  logLines = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logLines.push(String(line)));
});
afterEach(() => vi.restoreAllMocks());

const envWith = (overrides: Record<string, string> = {}) => testEnv({ JWT_JWKS_URL: `${inject('jwksUrl')}/good`, ...overrides });

/** A JWT signed with the key set's key, with the given header `typ` (null: none) and claims. */
async function keySetToken(typ: string | null, claims: JWTPayload): Promise<string> {
  const key = await importJWK(JSON.parse(inject('jwksPrivateJwk')) as JWK, 'ES256');
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'jwks-test', ...(typ === null ? {} : { typ }) })
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key);
}

/** The token kinds one authorization server signs with one key, as its flows hand them out. */
const KINDS = {
  /** RFC 9068 section 2: what the Worker reads. */
  access: (user: string) =>
    keySetToken('at+jwt', { iss: AUTHORIZATION_SERVER, sub: user, aud: ORIGIN, client_id: CLIENT_ID, jti: crypto.randomUUID(), scope: 'vault:read' }),
  /** OpenID Connect Core section 2: `aud` is the client, typed JWT, a nonce. */
  idToken: (user: string) => keySetToken('JWT', { iss: AUTHORIZATION_SERVER, sub: user, aud: CLIENT_ID, nonce: 'n-0S6', auth_time: 1, azp: CLIENT_ID }),
  /** The same without the markers an ID token may leave out. */
  plainIdToken: (user: string) => keySetToken('JWT', { iss: AUTHORIZATION_SERVER, sub: user, aud: CLIENT_ID }),
  /** OpenID Connect Back-Channel Logout section 2.4. */
  logoutToken: (user: string) =>
    keySetToken('logout+jwt', {
      iss: AUTHORIZATION_SERVER,
      sub: user,
      aud: CLIENT_ID,
      jti: crypto.randomUUID(),
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    }),
  /** Any JWT with `sub` and `exp`, no type, no audience. */
  bare: (user: string) => keySetToken(null, { sub: user }),
  /** An RFC 9068 access token whose `typ` header is missing: an access token only by its claims. */
  untypedAccess: (user: string) =>
    keySetToken(null, { iss: AUTHORIZATION_SERVER, sub: user, aud: ORIGIN, client_id: CLIENT_ID, jti: crypto.randomUUID(), scope: 'vault:read' }),
};

type Surface = 'rest' | 'mcp legacy' | 'mcp modern' | 'vault endpoint legacy' | 'vault endpoint modern';
const SURFACES: Surface[] = ['rest', 'mcp legacy', 'mcp modern', 'vault endpoint legacy', 'vault endpoint modern'];

async function read(surface: Surface, token: string, env: Record<string, string>): Promise<Response> {
  if (surface === 'rest') return restGet(REST_ROUTES.note_outline, NOTE.path, { token, env });
  const modern = surface.endsWith('modern');
  const params: Record<string, unknown> = { name: TOOLS.note_outline, arguments: { path: NOTE.path } };
  if (modern) {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
      'io.modelcontextprotocol/clientInfo': { name: 'test', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
  }
  const eraHeaders: Record<string, string> = modern
    ? { 'MCP-Protocol-Version': MODERN_REVISION, 'Mcp-Method': 'tools/call', 'Mcp-Name': TOOLS.note_outline }
    : { 'MCP-Protocol-Version': LEGACY_REVISIONS[0] };
  return callWorker(surface.startsWith('vault') ? '/mcp/vaults/default' : '/mcp', {
    method: 'POST',
    token,
    env,
    headers: { ...MCP_HEADERS, ...eraHeaders },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params }),
  });
}

async function seededUser(): Promise<string> {
  const user = uniqueUser('typing');
  await seedNotes(user, 'default', [NOTE]);
  return user;
}

async function expectRead(response: Response, surface: Surface): Promise<void> {
  expect(response.status, surface).toBe(200);
  const body = await response.json<any>();
  const outline = surface === 'rest' ? body : body.result.structuredContent;
  expect(outline.headings[0].text).toBe('Typed heading');
}

async function expectRefused(response: Response, surface: Surface): Promise<void> {
  expect(response.status, surface).toBe(401);
  expect(response.headers.get('WWW-Authenticate'), surface).toMatch(/^Bearer error="invalid_token", resource_metadata="/);
  await response.body?.cancel();
}

describe('RFC 8725 section 3.11: key-set tokens are read only as what they were issued for', () => {
  it.each(SURFACES)('%s: the access token reads; the ID token, logout token and bare JWT from the same key are 401 wrong_type', async (surface) => {
    const user = await seededUser();
    await expectRead(await read(surface, await KINDS.access(user), envWith()), surface);
    expect(await canisterRequests(user)).toHaveLength(1);
    logLines = [];
    for (const kind of ['idToken', 'plainIdToken', 'logoutToken', 'bare'] as const) {
      await expectRefused(await read(surface, await KINDS[kind](user), envWith()), surface);
    }
    expect(logLines.map((line) => JSON.parse(line).reason)).toEqual(['wrong_type', 'wrong_type', 'wrong_type', 'wrong_type']);
    expect(await canisterRequests(user)).toHaveLength(1);
  });

  it('an access token without its typ header is not an access token (RFC 9068 section 4: typ is checked)', async () => {
    const user = await seededUser();
    for (const surface of SURFACES) await expectRefused(await read(surface, await KINDS.untypedAccess(user), envWith()), surface);
    expect(await canisterRequests(user)).toEqual([]);
  });

  it('with JWT_AUDIENCE, a plain JWT for it reads; ID and logout tokens for it, and JWTs for other audiences, do not', async () => {
    const user = await seededUser();
    const env = envWith({ JWT_AUDIENCE: HUB_AUDIENCE });
    const forHub = (typ: string | null, claims: JWTPayload) => keySetToken(typ, { sub: user, aud: HUB_AUDIENCE, ...claims });
    for (const surface of SURFACES) {
      await expectRead(await read(surface, await forHub('JWT', {}), env), surface);
      await expectRead(await read(surface, await forHub(null, { aud: ['other', HUB_AUDIENCE] }), env), surface);
    }
    logLines = [];
    const refused: Array<[string, Promise<string>]> = [
      ['wrong_type', forHub('JWT', { nonce: 'n' })],
      ['wrong_type', forHub('JWT', { at_hash: 'h' })],
      ['wrong_type', forHub('logout+jwt', { events: { 'http://schemas.openid.net/event/backchannel-logout': {} } })],
      ['wrong_type', forHub('JWT', { events: {} })],
      ['wrong_type', forHub('dpop+jwt', {})],
      ['bad_audience', forHub('JWT', { aud: CLIENT_ID })],
      ['bad_audience', forHub('JWT', { aud: `${HUB_AUDIENCE}x` })],
      ['bad_audience', forHub(null, { aud: undefined })],
    ];
    for (const [, token] of refused) await expectRefused(await read('rest', await token, env), 'rest');
    expect(logLines.map((line) => JSON.parse(line).reason)).toEqual(refused.map(([reason]) => reason));
    expect(await canisterRequests(user)).toHaveLength(2 * SURFACES.length);
  });

  it('session tokens under the shared secret keep their rules: no aud needed, whatever the key set says', async () => {
    const user = await seededUser();
    for (const surface of SURFACES) await expectRead(await read(surface, await mintToken({ sub: user, type: 'session' }), envWith()), surface);
  });

  it('an ID token is refused outside local mode too, with the key set configured as DEPLOY.md shows', async () => {
    const user = await seededUser();
    const env = envWith({ ENVIRONMENT: 'staging', JWT_AUDIENCE: '' });
    for (const surface of SURFACES) await expectRefused(await read(surface, await KINDS.idToken(user), env), surface);
    expect(await canisterRequests(user)).toEqual([]);
  });
});
