import { describe, expect, it } from 'vitest';
import { buildContract, type ContractName } from '../../src/contracts';
import { canisterRequests, seedNotes, setFault, uniqueUser } from '../support/worker/canister';
import { HUB_ORIGIN, REST_ROUTES, callWorker, mintToken, restGet, testEnv } from '../support/worker/harness';
import { payloadResponse } from '../../src/http/responses';

const NOTE = {
  path: 'projects/Alpha Site/plan notes.md',
  frontmatter: { title: 'Launch plan', tags: ['Ops', 'Launch'], project: 'Alpha Site' },
  body: '# Plan\n\nKickoff text.\n\n## Risks\n\n### Budget\n\nSome numbers.\n',
};

async function setup(noteOverrides: Partial<typeof NOTE> = {}, claims: Record<string, unknown> = {}) {
  const user = uniqueUser('rest');
  const note = { ...NOTE, ...noteOverrides };
  await seedNotes(user, 'default', [note]);
  const token = await mintToken({ sub: user, role: 'viewer', ...claims });
  return { user, note, token };
}

function expectSecurityHeaders(res: Response) {
  expect(res.headers.get('Cache-Control')).toBe('private, no-store');
  expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
  expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
}

describe('REST: success', () => {
  it('serves every contract byte-identical to buildContract', async () => {
    const { note, token } = await setup();
    for (const [contract, route] of Object.entries(REST_ROUTES)) {
      const res = await restGet(route, note.path, { token });
      expect(res.status).toBe(200);
      expectSecurityHeaders(res);
      const expected = buildContract(contract as ContractName, note.path, note.frontmatter, note.body);
      expect(await res.text()).toBe(JSON.stringify(expected));
    }
  });

  it('reads exactly one note with the documented URL and headers', async () => {
    const { user, note, token } = await setup({}, { effective_canister_user_id: undefined });
    const res = await restGet(REST_ROUTES.section_source, note.path, { token, headers: { 'X-Vault-Id': ' default ' } });
    expect(res.status).toBe(200);
    const requests = await canisterRequests(user);
    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(req.method).toBe('GET');
    expect(req.url).toBe(`/api/v1/notes/${encodeURIComponent(note.path)}`);
    // MCP authorization (2025-06-18 onwards, Security Best Practices, token passthrough): the caller's credential stays here.
    expect(req.headers).not.toHaveProperty('authorization');
    expect(req.headers).not.toHaveProperty('cookie');
    expect(JSON.stringify(req.headers)).not.toContain(token.split('.')[2]);
    expect(req.headers['x-user-id']).toBe(user);
    expect(req.headers['x-actor-id']).toBe(user);
    expect(req.headers['x-vault-id']).toBe('default');
    expect(req.headers['accept']).toBe('application/json');
    expect(req.headers['x-gateway-auth']).toBe(testEnv().CANISTER_AUTH_SECRET);
  });

  it('uses effective_canister_user_id as the partition and sub as the actor', async () => {
    const owner = uniqueUser('owner');
    const actor = uniqueUser('actor');
    await seedNotes(owner, 'team', [NOTE]);
    const token = await mintToken({ sub: actor, role: 'editor', effective_canister_user_id: owner });
    const res = await restGet(REST_ROUTES.note_outline, NOTE.path, { token, headers: { 'X-Vault-Id': 'team' } });
    expect(res.status).toBe(200);
    const [req] = await canisterRequests(owner);
    expect(req.headers['x-user-id']).toBe(owner);
    expect(req.headers['x-actor-id']).toBe(actor);
    expect(req.headers['x-vault-id']).toBe('team');
  });

  it('omits X-Gateway-Auth when no canister secret is configured (and the fail-closed canister refuses)', async () => {
    const { user, note, token } = await setup();
    const res = await restGet(REST_ROUTES.note_outline, note.path, { token, env: testEnv({ CANISTER_AUTH_SECRET: undefined }) });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'Forbidden', code: 'FORBIDDEN' });
    const [req] = await canisterRequests(user);
    expect(req.headers).not.toHaveProperty('x-gateway-auth');
  });
});

describe('REST: payload bodies', () => {
  // A payload of one stream slice (64 Ki chars) or less is sent as its string, a longer one streamed: the bytes are the same.
  const STREAM_SLICE_CHARS = 64 * 1024;
  const payloadOf = (chars: number, tail: string) => ({ s: 'a'.repeat(chars - 8 - tail.length) + tail });

  for (const chars of [STREAM_SLICE_CHARS - 1, STREAM_SLICE_CHARS, STREAM_SLICE_CHARS + 1, 3 * STREAM_SLICE_CHARS + 1]) {
    it(`a payload of ${chars} JSON chars is sent as exactly its serialization`, async () => {
      // An astral char whose surrogates straddle the slice line where there is one.
      for (const tail of ['', '\u{1F600}']) {
        const payload = payloadOf(chars, tail);
        expect(JSON.stringify(payload)).toHaveLength(chars);
        const response = payloadResponse(payload);
        expect(response.headers.get('Content-Type')).toBe('application/json; charset=utf-8');
        expect(await response.text()).toBe(JSON.stringify(payload));
      }
    });
  }
});

describe('REST: refusals before any upstream call', () => {
  it('401 without a token, with the protected-resource challenge', async () => {
    const { user, note } = await setup();
    const res = await restGet(REST_ROUTES.note_outline, note.path);
    expect(res.status).toBe(401);
    expectSecurityHeaders(res);
    expect(await res.json()).toEqual({ error: 'Unauthorized', code: 'UNAUTHORIZED' });
    // RFC 6750 section 3 with RFC 9728 section 5.1's resource_metadata; no error code when no token was sent.
    expect(res.headers.get('WWW-Authenticate')).toBe(
      'Bearer resource_metadata="https://edge.example/.well-known/oauth-protected-resource", scope="vault:read"',
    );
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('401 for a token signed with another secret', async () => {
    const { user, note } = await setup();
    const token = await mintToken({ sub: user }, { secret: 'some-other-secret-that-is-long-enough-000' });
    const res = await restGet(REST_ROUTES.note_outline, note.path, { token });
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it.each([['../secret.md'], ['/etc/passwd'], ['C:/x.md'], ['a/../../b.md'], [''], ['   '], ['%2e%2e/x.md']])(
    '400 INVALID_PATH for %j without echo',
    async (bad) => {
      const { user, token } = await setup();
      const res = await restGet(REST_ROUTES.section_source, bad, { token });
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ error: 'Invalid path', code: 'INVALID_PATH' });
      expect(await canisterRequests(user)).toHaveLength(0);
    },
  );

  it('400 INVALID_PATH for a missing or repeated path', async () => {
    const { user, token } = await setup();
    for (const query of ['', '?path=a.md&path=b.md', '?other=1']) {
      const res = await callWorker(`${REST_ROUTES.note_outline}${query}`, { token });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'Invalid path', code: 'INVALID_PATH' });
    }
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('400 INVALID_VAULT for a malformed X-Vault-Id', async () => {
    const { user, note, token } = await setup();
    for (const vault of ['../x', 'a b', 'x'.repeat(65), 'vault!']) {
      const res = await restGet(REST_ROUTES.note_outline, note.path, { token, headers: { 'X-Vault-Id': vault } });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'Invalid vault', code: 'INVALID_VAULT' });
    }
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('403 when the vault is not in allowed_vault_ids', async () => {
    const { user, note } = await setup();
    const token = await mintToken({ sub: user, allowed_vault_ids: ['work'] });
    const res = await restGet(REST_ROUTES.note_outline, note.path, { token, headers: { 'X-Vault-Id': 'default' } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'Access to this vault is not allowed.', code: 'FORBIDDEN' });
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it('503 SERVICE_UNAVAILABLE when configuration is missing, without naming it', async () => {
    const { user, note, token } = await setup();
    for (const env of [testEnv({ CANISTER_URL: undefined }), testEnv({ SESSION_SECRET: undefined }), testEnv({ SESSION_SECRET: 'short' })]) {
      const res = await restGet(REST_ROUTES.document_tree, note.path, { token, env });
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body).toEqual({ error: 'Hosted DocumentTree is not configured', code: 'SERVICE_UNAVAILABLE' });
    }
    expect(await canisterRequests(user)).toHaveLength(0);
  });
});

describe('REST: upstream mapping', () => {
  it('404 NOT_FOUND for a missing note', async () => {
    const { token } = await setup();
    const res = await restGet(REST_ROUTES.note_outline, 'nope/missing.md', { token });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
  });

  it.each([
    [401, 403, { error: 'Forbidden', code: 'FORBIDDEN' }],
    [403, 403, { error: 'Forbidden', code: 'FORBIDDEN' }],
    [500, 502, { error: 'Upstream 500', code: 'BAD_GATEWAY' }],
    [429, 502, { error: 'Upstream 429', code: 'BAD_GATEWAY' }],
  ])('canister %i -> %i', async (upstream, status, body) => {
    const { user, note, token } = await setup();
    await setFault(user, 'default', note.path, { kind: 'status', status: upstream, body: '{"error":"SENTINEL-UPSTREAM-TEXT"}' });
    const res = await restGet(REST_ROUTES.section_source, note.path, { token });
    expect(res.status).toBe(status);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(body);
    expect(text).not.toContain('SENTINEL');
  });

  it('502 Invalid note response for non-JSON or non-object JSON', async () => {
    const { user, note, token } = await setup();
    for (const body of ['<html>oops</html>', '[1,2]', '"text"', '{"body":42}', '']) {
      await setFault(user, 'default', note.path, { kind: 'text', body });
      const res = await restGet(REST_ROUTES.note_outline, note.path, { token });
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: 'Invalid note response', code: 'BAD_GATEWAY' });
    }
  });

  it('504 UPSTREAM_TIMEOUT when the canister never answers', async () => {
    const { user, note, token } = await setup();
    await setFault(user, 'default', note.path, { kind: 'hang' });
    const res = await restGet(REST_ROUTES.note_outline, note.path, { token, env: testEnv({ CANISTER_TIMEOUT_MS: '300' }) });
    expect(res.status).toBe(504);
    expect(await res.json()).toEqual({ error: 'Upstream timeout', code: 'UPSTREAM_TIMEOUT' });
  });

  it('422 NOTE_TOO_LARGE over 1,000,000 characters; facets still answer', async () => {
    const { note, token } = await setup({ body: 'a'.repeat(1_000_001) });
    const res = await restGet(REST_ROUTES.note_outline, note.path, { token });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: 'Note too large', code: 'NOTE_TOO_LARGE' });
    const facets = await restGet(REST_ROUTES.metadata_facets, note.path, { token });
    expect(facets.status).toBe(200);
  });

  it('a canister answer naming another path is answered exactly like a missing note', async () => {
    const { user, note, token } = await setup();
    await seedNotes(user, 'default', [{ ...note, raw: { path: 'other-vault/secret.md', frontmatter: '{}', body: '# Hi' } }]);
    const res = await restGet(REST_ROUTES.note_outline, note.path, { token });
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text).toBe(JSON.stringify({ error: 'Not found', code: 'NOT_FOUND' }));
  });
});

describe('REST: scope', () => {
  it('a note outside the scope answers exactly like a missing note', async () => {
    const user = uniqueUser('scope');
    await seedNotes(user, 'default', [
      { path: 'projects/alpha/in.md', frontmatter: {}, body: '# In' },
      { path: 'projects/beta/out.md', frontmatter: {}, body: '# Out' },
      { path: 'misc/tagged.md', frontmatter: { project: 'Alpha' }, body: '# Tagged' },
    ]);
    const token = await mintToken({ sub: user, scope: { folders: ['projects/alpha'], projects: ['Alpha'] } });
    const inside = await restGet(REST_ROUTES.note_outline, 'projects/alpha/in.md', { token });
    expect(inside.status).toBe(200);
    const byProject = await restGet(REST_ROUTES.note_outline, 'misc/tagged.md', { token });
    expect(byProject.status).toBe(200);
    const outside = await restGet(REST_ROUTES.note_outline, 'projects/beta/out.md', { token });
    const missing = await restGet(REST_ROUTES.note_outline, 'projects/beta/none.md', { token });
    expect(outside.status).toBe(404);
    expect(await outside.text()).toBe(await missing.text());
  });
});

describe('HTTP surface', () => {
  it('health answers without auth or upstream', async () => {
    const res = await callWorker('/health', { env: testEnv({ CANISTER_URL: 'http://127.0.0.1:1' }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('405 with Allow for other methods, JSON 404 for unknown routes', async () => {
    const res = await callWorker(REST_ROUTES.note_outline, { method: 'POST', body: '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toBe('GET, OPTIONS');
    expect(await res.json()).toEqual({ error: 'Method not allowed', code: 'METHOD_NOT_ALLOWED' });
    const missing = await callWorker('/api/v1/unknown');
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing);
    expect(await missing.json()).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
  });

  it('reflects only allowed origins, preflight needs no token', async () => {
    const { note, token } = await setup();
    const allowed = await restGet(REST_ROUTES.note_outline, note.path, { token, headers: { Origin: HUB_ORIGIN } });
    expect(allowed.headers.get('Access-Control-Allow-Origin')).toBe(HUB_ORIGIN);
    expect(allowed.headers.get('Vary')).toContain('Origin');
    const other = await restGet(REST_ROUTES.note_outline, note.path, { token, headers: { Origin: 'https://evil.example' } });
    expect(other.headers.get('Access-Control-Allow-Origin')).toBeNull();

    const preflight = await callWorker(REST_ROUTES.section_source, {
      method: 'OPTIONS',
      headers: { Origin: HUB_ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization,x-vault-id' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe(HUB_ORIGIN);
    const allowHeaders = preflight.headers.get('Access-Control-Allow-Headers') ?? '';
    for (const h of ['Authorization', 'Content-Type', 'X-Vault-Id', 'MCP-Protocol-Version']) expect(allowHeaders).toContain(h);
    const refused = await callWorker(REST_ROUTES.section_source, { method: 'OPTIONS', headers: { Origin: 'https://evil.example' } });
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(refused.headers.get('Access-Control-Allow-Headers')).toBeNull();
  });

  it('serves RFC 9728 protected-resource metadata', async () => {
    const env = testEnv({ OAUTH_AUTHORIZATION_SERVER: 'https://hub.example' });
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource', 'https://edge.example'],
      ['/.well-known/oauth-protected-resource/mcp', 'https://edge.example/mcp'],
    ]) {
      const res = await callWorker(path, { env });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource,
        authorization_servers: ['https://hub.example'],
        scopes_supported: ['vault:read'],
        bearer_methods_supported: ['header'],
        resource_name: 'Knowtation Edge',
      });
    }
  });
});
