// Discovery before connecting: the MCP Server Card extension (SEP-2127, draft docs/discovery.md of
// modelcontextprotocol/experimental-ext-server-card), the AI Catalog that lists the card, and the
// icons serverInfo names. Every card the Worker can produce is validated against the extension's
// schema, and compared with what the live Worker says once a client connects.
import { Validator, type Schema } from '@cfworker/json-schema';
import { afterEach, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index';
import { LEGACY_REVISIONS, MODERN_REVISION } from '../../src/http/mcp-era';
import packageJson from '../../package.json';
import serverCardSchema from '../fixtures/discovery/server-card.schema.json';
import { canisterRequests, uniqueUser } from '../support/worker/canister';
import { PROTOCOL_LIMIT, inOneWindow, realLimiter } from '../support/worker/budget';
import { HUB_ORIGIN, MCP_HEADERS, ORIGIN, callWorker, mintToken, rateLimitBinding, testEnv } from '../support/worker/harness';

const CARD_TYPE = 'application/mcp-server-card+json';
const CATALOG_PATHS = ['/.well-known/ai-catalog.json', '/.well-known/mcp/catalog.json'];
const ICON_PATHS = ['/icons/light.svg', '/icons/dark.svg'];
const CARD_PATHS = ['/mcp/server-card', '/mcp/vaults/alpha/server-card'];
const PUBLIC_PATHS = [...CARD_PATHS, ...CATALOG_PATHS, ...ICON_PATHS];
const OPTIONAL_CONFIG = { SERVER_CARD_NAME: 'com.example.notes/knowtation', SERVER_WEBSITE_URL: 'https://notes.example.com/about' };

/** The extension's own schema, `$defs/ServerCard`, as published (test/fixtures/discovery/README.md). */
const cardValidator = new Validator({ ...(serverCardSchema as object), $ref: '#/$defs/ServerCard' } as Schema, '2020-12', false);

function schemaErrors(card: unknown): string[] {
  return cardValidator.validate(card).errors.map((error) => `${error.instanceLocation}: ${error.error}`);
}

const poolBindings = () => ({ RATE_LIMITER: rateLimitBinding('TEST_RATE_LIMITER'), PROTOCOL_RATE_LIMITER: rateLimitBinding('TEST_RATE_LIMITER') });

async function cardAt(path: string, env?: Record<string, string>): Promise<any> {
  const res = await callWorker(path, { env });
  expect(res.status).toBe(200);
  return res.json();
}

function modernHeaders(method: string): Record<string, string> {
  return { ...MCP_HEADERS, 'MCP-Protocol-Version': MODERN_REVISION, 'Mcp-Method': method };
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** What the live endpoint says about itself: initialize in a 2025 revision, server/discover in 2026-07-28. */
async function liveIdentity(endpoint: string, token: string, env?: Record<string, string>, revision = LEGACY_REVISIONS[0]) {
  const initialize = await callWorker(endpoint, {
    method: 'POST',
    token,
    env,
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'test', version: '0' } } }),
  });
  expect(initialize.status).toBe(200);
  const discover = await callWorker(endpoint, {
    method: 'POST',
    token,
    env,
    headers: modernHeaders('server/discover'),
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: MODERN_META } }),
  });
  expect(discover.status).toBe(200);
  return { initialize: (await initialize.json<any>()).result, discover: (await discover.json<any>()).result };
}

describe('MCP Server Card (discovery.md, MCP Server Cards; Hosted Server Card Location)', () => {
  it.each([
    ['/mcp', undefined],
    ['/mcp', OPTIONAL_CONFIG],
    ['/mcp/vaults/alpha', undefined],
    ['/mcp/vaults/alpha', OPTIONAL_CONFIG],
    ['/mcp/vaults/A_b-9', undefined],
  ])('GET %s/server-card (config %o) is a card valid against the published schema', async (endpoint, optional) => {
    const env = testEnv(optional);
    const card = await cardAt(`${endpoint}/server-card`, env);
    expect(schemaErrors(card)).toEqual([]);
    expect(card.$schema).toBe('https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json');
    // The default reverse-DNS name is the public host reversed (edge.example), configurable.
    expect(card.name).toBe(optional ? OPTIONAL_CONFIG.SERVER_CARD_NAME : 'example.edge/knowtation-edge');
    if (optional) expect(card.websiteUrl).toBe(OPTIONAL_CONFIG.SERVER_WEBSITE_URL);
    else expect(card).not.toHaveProperty('websiteUrl');
    // The card names its own endpoint first; the /mcp card adds the one-vault form as a URL template.
    expect(card.remotes[0].url).toBe(`${ORIGIN}${endpoint}`);
    expect(card.remotes.map((remote: any) => remote.type)).toEqual(card.remotes.map(() => 'streamable-http'));
    if (endpoint === '/mcp') {
      expect(card.remotes[1].url).toBe(`${ORIGIN}/mcp/vaults/{vault_id}`);
      expect(card.remotes[1].variables.vault_id).toMatchObject({ isRequired: true });
      expect(card.remotes).toHaveLength(2);
    } else {
      expect(card.remotes).toHaveLength(1);
    }
  });

  it('the schema refuses what looks like a card but is not one, so the validation above can fail', () => {
    const valid = { $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json', name: 'a.b/c', version: '1', description: 'd' };
    expect(schemaErrors(valid)).toEqual([]);
    expect(schemaErrors({ ...valid, name: 'knowtation-hosted' })).not.toEqual([]);
    expect(schemaErrors({ ...valid, $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json' })).not.toEqual([]);
    expect(schemaErrors({ ...valid, description: 'x'.repeat(101) })).not.toEqual([]);
    expect(schemaErrors({ ...valid, remotes: [{ type: 'stdio', url: 'https://a.example/mcp' }] })).not.toEqual([]);
  });

  it('answers with the card media type, CORS open to any origin, cacheable an hour, with an ETag (CORS Requirements; Caching)', async () => {
    for (const origin of [undefined, HUB_ORIGIN, 'https://elsewhere.example']) {
      const res = await callWorker('/mcp/server-card', { headers: origin ? { Origin: origin } : {} });
      expect(res.headers.get('Content-Type')).toBe(CARD_TYPE);
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(res.headers.get('Access-Control-Expose-Headers')).toBe('ETag');
      expect(res.headers.get('Cache-Control')).toBe('public, max-age=3600');
      expect(res.headers.get('ETag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
      await res.body?.cancel();
    }
  });

  it('a request asking for the card media type gets it (Hosted Server Card Location: Accept)', async () => {
    const res = await callWorker('/mcp/server-card', { headers: { Accept: CARD_TYPE } });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe(CARD_TYPE);
    await res.body?.cancel();
  });

  it('revalidates with If-None-Match: 304 without a body for the current tag, 200 for any other (Caching; RFC 9110 section 13.1.2)', async () => {
    for (const path of PUBLIC_PATHS) {
      const first = await callWorker(path);
      const tag = first.headers.get('ETag')!;
      const body = await first.text();
      for (const match of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
        const again = await callWorker(path, { headers: { 'If-None-Match': match } });
        expect(again.status, `${path} ${match}`).toBe(304);
        expect(await again.text()).toBe('');
        expect(again.headers.get('ETag')).toBe(tag);
        expect(again.headers.get('Cache-Control')).toBe('public, max-age=3600');
        expect(again.headers.get('Content-Type')).toBeNull();
      }
      for (const miss of ['"other"', tag.slice(0, -2) + '"', tag.slice(1, -1)]) {
        const fresh = await callWorker(path, { headers: { 'If-None-Match': miss } });
        expect(fresh.status, `${path} ${miss}`).toBe(200);
        expect(await fresh.text()).toBe(body);
      }
    }
  });

  it('a preflight from any origin may GET with If-None-Match; the MCP endpoint keeps its allow-list', async () => {
    const preflight = (path: string) =>
      worker.fetch(
        new Request(`${ORIGIN}${path}`, {
          method: 'OPTIONS',
          headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'if-none-match' },
        }),
        { ...poolBindings(), ...testEnv() },
      );
    for (const path of PUBLIC_PATHS) {
      const res = await preflight(path);
      expect(res.status).toBe(204);
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(res.headers.get('Access-Control-Allow-Methods')).toBe('GET');
      expect(res.headers.get('Access-Control-Allow-Headers')).toBe('Content-Type, If-None-Match');
    }
    for (const path of ['/mcp', '/mcp/vaults/alpha', '/mcp/vaults/a.b/server-card', '/api/v1/note-outline']) {
      expect((await preflight(path)).headers.get('Access-Control-Allow-Origin'), path).toBeNull();
    }
  });

  it('never varies with the Host header: outside local mode the origin is PUBLIC_ORIGIN', async () => {
    const expected = await (await callWorker('/mcp/server-card')).text();
    for (const path of ['/mcp/server-card', ...CATALOG_PATHS]) {
      const viaOther = await worker.fetch(new Request(`https://attacker.example${path}`, { headers: { Host: 'attacker.example', 'X-Forwarded-Host': 'attacker.example' } }), {
        ...poolBindings(),
        ...testEnv(),
      });
      const text = await viaOther.text();
      expect(text).not.toContain('attacker');
      if (path === '/mcp/server-card') expect(text).toBe(expected);
    }
  });

  it('in local mode without PUBLIC_ORIGIN, the request origin names the endpoints, as the RFC 9728 metadata does', async () => {
    const env = testEnv({ ENVIRONMENT: 'local', PUBLIC_ORIGIN: undefined });
    const res = await worker.fetch(new Request('http://127.0.0.1:8787/mcp/server-card'), env);
    const card = await res.json<any>();
    expect(schemaErrors(card)).toEqual([]);
    expect(card.remotes[0].url).toBe('http://127.0.0.1:8787/mcp');
    // A loopback address is not a domain to reverse: the local stack's card is named as local.
    expect(card.name).toBe('localhost/knowtation-edge');
  });

  it('needs no token, ignores one that is sent, and never calls the canister', async () => {
    const user = uniqueUser('card');
    const token = await mintToken({ sub: user });
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const anonymous = new Map<string, string>();
    for (const path of PUBLIC_PATHS) anonymous.set(path, await (await callWorker(path)).text());
    for (const authorization of [`Bearer ${token}`, 'Bearer not-a-token', 'Basic Zm9vOmJhcg==']) {
      for (const path of PUBLIC_PATHS) {
        const res = await callWorker(path, { headers: { Authorization: authorization } });
        expect(res.status, path).toBe(200);
        expect(res.headers.get('WWW-Authenticate')).toBeNull();
        expect(await res.text()).toBe(anonymous.get(path));
      }
    }
    expect(fetchSpy).not.toHaveBeenCalled();
    fetchSpy.mockRestore();
    expect(await canisterRequests(user)).toEqual([]);
  });
});

describe('the card agrees with the live Worker (discovery.md, Consistency with Runtime Behavior)', () => {
  it.each([
    ['/mcp', undefined],
    ['/mcp', OPTIONAL_CONFIG],
    ['/mcp/vaults/alpha', undefined],
  ])('%s (config %o): serverInfo on both eras, the revisions served and the RFC 9728 metadata', async (endpoint, optional) => {
    const env = testEnv(optional);
    const user = uniqueUser('consistency');
    const token = await mintToken({ sub: user, allowed_vault_ids: ['alpha', 'default'] });
    const card = await cardAt(`${endpoint}/server-card`, env);
    const { initialize, discover } = await liveIdentity(endpoint, token, env);

    // serverInfo (2025 initialize) and the 2026-07-28 result's serverInfo are one identity, the card's.
    const info = initialize.serverInfo;
    expect(discover._meta['io.modelcontextprotocol/serverInfo']).toEqual(info);
    expect(info.name).toBe('knowtation-hosted');
    expect(info.version).toBe(packageJson.version);
    expect(card.version).toBe(info.version);
    expect(card.title).toBe(info.title);
    expect(card.description).toBe(info.description);
    expect(card.icons).toEqual(info.icons);
    expect(card.websiteUrl).toBe(info.websiteUrl);
    if (!optional) expect(info).not.toHaveProperty('websiteUrl');

    // Every revision the card lists is one the endpoint serves; server/discover's are among them.
    const revisions: string[] = card.remotes[0].supportedProtocolVersions;
    expect(revisions[0]).toBe(MODERN_REVISION);
    expect(discover.supportedVersions.every((version: string) => revisions.includes(version))).toBe(true);
    for (const revision of revisions.filter((r) => r !== MODERN_REVISION)) {
      expect((await liveIdentity(endpoint, token, env, revision)).initialize.protocolVersion).toBe(revision);
    }
    expect(card.remotes.every((remote: any) => JSON.stringify(remote.supportedProtocolVersions) === JSON.stringify(revisions))).toBe(true);

    // The authorization hint names the endpoint's own RFC 9728 metadata, its scope and its bearer method.
    const unauthenticated = await callWorker(endpoint, { method: 'POST', env, headers: MCP_HEADERS, body: '{}' });
    expect(unauthenticated.status).toBe(401);
    const challenge = unauthenticated.headers.get('WWW-Authenticate')!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1];
    const metadata = await (await callWorker(new URL(metadataUrl).pathname, { env })).json<any>();
    expect(metadata.resource).toBe(card.remotes[0].url);
    expect(metadata.bearer_methods_supported).toEqual(['header']);
    const [header] = card.remotes[0].headers;
    expect(header).toMatchObject({ name: 'Authorization', isRequired: true, isSecret: true });
    expect(header.description).toContain(metadataUrl);
    for (const scope of metadata.scopes_supported) expect(header.description).toContain(scope);
    expect(header.description).toContain('Bearer');

    // The icons it names are served by the Worker from its own origin, and are SVG.
    for (const icon of info.icons) {
      expect(icon.src.startsWith(`${ORIGIN}/`)).toBe(true);
      const res = await callWorker(new URL(icon.src).pathname, { env });
      expect(res.headers.get('Content-Type')).toBe(icon.mimeType);
      // An SVG opened on its own runs nothing: the Worker's CSP holds for the icons too.
      expect(res.headers.get('Content-Security-Policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/);
    }
    expect(info.icons.map((icon: any) => icon.theme).sort()).toEqual(['dark', 'light']);
  });

  it('the template remote, filled in, is the vault card\'s endpoint', async () => {
    const template = (await cardAt('/mcp/server-card')).remotes[1];
    const vaultCard = await cardAt('/mcp/vaults/alpha/server-card');
    expect(template.url.replace('{vault_id}', 'alpha')).toBe(vaultCard.remotes[0].url);
    expect(template.headers[0].description.replace('{vault_id}', 'alpha')).toBe(vaultCard.remotes[0].headers[0].description);
  });
});

describe('AI Catalog (discovery.md, AI Catalog; Server Card Entries)', () => {
  it.each(CATALOG_PATHS)('%s lists the /mcp card by URL, with a domain-anchored identifier', async (path) => {
    const res = await callWorker(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/ai-catalog+json');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=3600');
    const catalog = await res.json<any>();
    expect(catalog).toEqual({
      specVersion: '1.0',
      entries: [{ identifier: 'urn:air:edge.example:mcp:knowtation-edge', type: CARD_TYPE, url: `${ORIGIN}/mcp/server-card` }],
    });
    // Client Discovery Flow, step 3: the entry's URL is the card.
    const card = await cardAt(new URL(catalog.entries[0].url).pathname);
    expect(card.remotes[0].url).toBe(`${ORIGIN}/mcp`);
  });

  it('with SERVER_CARD_NAME the identifier follows the configured name', async () => {
    const catalog = await cardAt('/.well-known/ai-catalog.json', testEnv(OPTIONAL_CONFIG));
    expect(catalog.entries[0].identifier).toBe('urn:air:notes.example.com:mcp:knowtation');
  });

  it('both locations serve the same bytes', async () => {
    const [a, b] = await Promise.all(CATALOG_PATHS.map(async (path) => (await callWorker(path)).text()));
    expect(a).toBe(b);
  });
});

describe('what looks like a discovery document and is not one', () => {
  it.each(PUBLIC_PATHS)('%s: another method is 405 with Allow: GET, OPTIONS', async (path) => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await callWorker(path, { method, body: method === 'DELETE' ? undefined : '{}' });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('Allow')).toBe('GET, OPTIONS');
      expect(await res.json()).toEqual({ error: 'Method not allowed', code: 'METHOD_NOT_ALLOWED' });
    }
  });

  it.each(['a.b', 'x'.repeat(65), '%61', 'a%2Fb', '', 'alpha/beta'])('a vault segment that is not a vault id (%s) is the JSON 404', async (segment) => {
    const res = await callWorker(`/mcp/vaults/${segment}/server-card`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
  });

  it.each([
    '/mcp/server-cards',
    '/mcp/vaults/alpha/server-card/x',
    '/.well-known/mcp/server-card',
    '/.well-known/ai-catalogXjson',
    '/.well-known/mcp/catalogXjson',
    '/icons/lightXsvg',
    '/icons/blue.svg',
    '/server-card',
  ])('%s names nothing: 404', async (path) => {
    const res = await worker.fetch(new Request(`${ORIGIN}${path}`), { ...poolBindings(), ...testEnv() });
    expect(res.status).toBe(404);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('a POST to the vault endpoint is still MCP, and a GET on it still the MCP 405', async () => {
    const res = await callWorker('/mcp/vaults/alpha', { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toBe('POST, OPTIONS');
    await res.body?.cancel();
  });

  it('an invalid configuration is the 503 every other route gives, never a card with a guessed origin', async () => {
    const env = testEnv({ PUBLIC_ORIGIN: undefined });
    for (const path of PUBLIC_PATHS) {
      const res = await callWorker(path, { env });
      expect(res.status, path).toBe(503);
      expect(res.headers.get('Cache-Control')).toBe('private, no-store');
      expect(await res.text()).not.toContain('server-card');
    }
  });

  it.each([
    ['SERVER_CARD_NAME', 'knowtation-hosted'],
    ['SERVER_CARD_NAME', 'com.example/a/b'],
    ['SERVER_CARD_NAME', 'com example/x'],
    ['SERVER_WEBSITE_URL', 'http://notes.example.com'],
    ['SERVER_WEBSITE_URL', 'not a url'],
  ])('%s=%s is refused with the rest of the configuration (503)', async (name, value) => {
    const res = await callWorker('/mcp/server-card', { env: testEnv({ [name]: value }) });
    expect(res.status).toBe(503);
    await res.body?.cancel();
  });
});

describe('rate limit per client address (discovery.md, Denial of Service)', () => {
  afterEach(() => vi.restoreAllMocks());

  it(`an address is stopped after ${PROTOCOL_LIMIT} documents on PROTOCOL_RATE_LIMITER; another address and the users' budgets are not`, async () => {
    const refused = await inOneWindow(
      async () => `198.51.100.${Math.floor(Math.random() * 250)}-${crypto.randomUUID()}`,
      async (address) => {
        for (let i = 0; i < PROTOCOL_LIMIT; i += 1) {
          const res = await callWorker(PUBLIC_PATHS[i % PUBLIC_PATHS.length], { headers: { 'CF-Connecting-IP': address }, ...realLimiter() });
          if (res.status !== 200) return res;
          await res.body?.cancel();
        }
        return callWorker('/mcp/server-card', { headers: { 'CF-Connecting-IP': address }, ...realLimiter() });
      },
    );
    expect(refused.status).toBe(429);
    expect(refused.headers.get('Retry-After')).toBe('60');
    expect(refused.headers.get('Cache-Control')).toBe('private, no-store');
    expect(await refused.json()).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMITED' });

    const other = await callWorker('/mcp/server-card', { headers: { 'CF-Connecting-IP': `203.0.113.7-${crypto.randomUUID()}` }, ...realLimiter() });
    expect(other.status).toBe(200);
    await other.body?.cancel();
  });
});
