/**
 * The route table's dispatch (src/http/router.ts): a request reaches a route only by its exact
 * path, with trailing slashes allowed, and `:vault` standing for exactly one non-empty segment;
 * a known path with another method is that path's 405 (RFC 9110 section 15.5.6: with Allow); any
 * other path is the JSON 404. Paths are compared as the URL parser leaves them: case and
 * percent-escapes are never folded.
 */
import { describe, expect, it } from 'vitest';
import { buildRouter, ROUTES } from '../../src/http/router';

const dispatch = buildRouter();

async function routed(target: string, method = 'GET') {
  const request = new Request(`https://edge.example${target}`, { method, body: method === 'POST' ? '{}' : undefined });
  const { response, facts } = await dispatch({ request, url: new URL(request.url), config: null });
  return { status: response.status, op: facts.op, outcome: facts.outcome, allow: response.headers.get('Allow'), body: await response.text() };
}

const JSON_404 = JSON.stringify({ error: 'Not found', code: 'NOT_FOUND' });

describe('route dispatch', () => {
  it.each([
    ['/health', 'health'],
    ['/health/', 'health'],
    ['/health///', 'health'],
    ['/api/v1/note-outline/', 'note_outline'],
    ['/mcp/server-card', 'server_card'],
    ['/mcp/vaults/default/server-card', 'server_card'],
    ['/mcp/vaults/default/server-card/', 'server_card'],
    ['/.well-known/oauth-protected-resource/mcp/vaults/team-1', 'protected_resource'],
  ])('GET %s reaches %s', async (target, op) => {
    expect((await routed(target)).op).toBe(op);
  });

  it('every route in the table is reached by its own path and method: no other path shadows it', async () => {
    for (const route of ROUTES) {
      const answer = await routed(route.path.replace(':vault', 'default'), route.method);
      // `op` is set only once a route is reached; the route itself may still refuse (config is null here).
      expect(answer.outcome, `${route.method} ${route.path}`).not.toBe('METHOD_NOT_ALLOWED');
      expect(answer.op, `${route.method} ${route.path}`).toBe(route.op);
    }
  });

  it.each([
    '/',
    '//health',
    '/health/x',
    '/HEALTH',
    '/%68ealth',
    '/health.json',
    '/healthz',
    '/api/v1/note-outline/x',
    '/mcp/vaults',
    '/mcp/vaults/',
    '/mcp/vaults//server-card',
    '/mcp/vaults/a/b/server-card',
    '/mcp/vaults/a/b',
    '/mcp/vaultsX/a',
    '/.well-known/oauth-protected-resource/mcp/vaults/',
    '/.well-known/oauth-protected-resource/mcp/vaults/a/b',
  ])('GET %j is the JSON 404', async (target) => {
    expect(await routed(target)).toMatchObject({ status: 404, outcome: 'NOT_FOUND', body: JSON_404 });
  });

  it('POST /mcp/vaults/<id> with one segment reaches MCP; an empty or nested id is the JSON 404', async () => {
    expect((await routed('/mcp/vaults/default', 'POST')).op).toBe('mcp');
    expect((await routed('/mcp/vaults/default/', 'POST')).op).toBe('mcp');
    // The URL parser reads `%2e` as a dot segment: `/mcp/vaults/%2e` is `/mcp/vaults/`.
    for (const target of ['/mcp/vaults/a/b', '/mcp/vaults//', '/mcp/vaults/%2e']) {
      expect(await routed(target, 'POST'), target).toMatchObject({ status: 404, outcome: 'NOT_FOUND', body: JSON_404 });
    }
  });

  it('a segment that is not a vault id (an encoded slash, an encoded space) reaches the MCP route, which answers its own 404', async () => {
    for (const target of ['/mcp/vaults/a%2Fb', '/mcp/vaults/a%20b']) {
      expect(await routed(target, 'POST'), target).toMatchObject({ status: 404, op: 'mcp', outcome: 'NOT_FOUND' });
    }
  });

  it('dot segments are resolved by the URL parser before dispatch: /mcp/vaults/.. is /mcp', async () => {
    expect((await routed('/mcp/vaults/..', 'POST')).op).toBe('mcp');
    expect((await routed('/mcp/vaults/%2e%2e', 'POST')).op).toBe('mcp');
  });

  it('GET /mcp/vaults/server-card names a vault called server-card: the MCP endpoint\'s 405, not the card', async () => {
    expect(await routed('/mcp/vaults/server-card')).toMatchObject({ status: 405, op: 'mcp', outcome: 'METHOD_NOT_ALLOWED' });
  });

  it('every other method on every routed path is its 405 with Allow, HEAD included', async () => {
    for (const route of ROUTES) {
      const target = route.path.replace(':vault', 'default');
      for (const method of ['HEAD', 'PUT', 'DELETE', 'PATCH', route.method === 'GET' ? 'POST' : 'GET']) {
        const answer = await routed(target, method);
        expect(answer, `${method} ${target}`).toMatchObject({ status: 405, outcome: 'METHOD_NOT_ALLOWED', op: route.op });
        if (route.surface !== 'mcp') expect(answer.allow).toBe(`${route.method}, OPTIONS`);
      }
    }
  });
});
