import { afterEach, describe, expect, it, vi } from 'vitest';
import { seedNotes, setFault, uniqueUser } from '../support/worker/canister';
import { REST_ROUTES, TOOLS, callTool, callWorker, mintToken, restGet } from '../support/worker/harness';

const ALLOWED_KEYS = ['rid', 'surface', 'op', 'outcome', 'upstream', 'ms', 'sections', 'truncated', 'reason'];

afterEach(() => vi.restoreAllMocks());

describe('structured log line', () => {
  it('one allowlisted line per request, under 512 bytes, with no note text, path, token or upstream text', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const user = uniqueUser('logs');
    const path = 'secret-folder/SENTINEL-PATH.md';
    await seedNotes(user, 'default', [
      { path, frontmatter: { title: 'SENTINEL-TITLE' }, body: '# SENTINEL-HEADING\n\nSENTINEL-BODY\n' },
      { path: 'fail.md', frontmatter: {}, body: '' },
    ]);
    await setFault(user, 'default', 'fail.md', { kind: 'status', status: 500, body: 'SENTINEL-UPSTREAM' });
    const token = await mintToken({ sub: user });

    const requests: Array<() => Promise<unknown>> = [
      () => restGet(REST_ROUTES.section_source, path, { token }),
      () => restGet(REST_ROUTES.note_outline, 'fail.md', { token }),
      () => restGet(REST_ROUTES.note_outline, '../SENTINEL-REJECTED.md', { token }),
      () => restGet(REST_ROUTES.note_outline, path),
      () => callTool(TOOLS.document_tree, { path }, { token }),
      () => callTool(TOOLS.document_tree, { path: '../SENTINEL-REJECTED.md' }, { token }),
      () => callWorker('/nowhere/SENTINEL-ROUTE'),
      () => callWorker('/health'),
    ];
    for (const send of requests) await send();

    expect(lines).toHaveLength(requests.length);
    for (const line of lines) {
      expect(new TextEncoder().encode(line).byteLength).toBeLessThanOrEqual(512);
      const entry = JSON.parse(line);
      expect(Object.keys(entry)).toEqual(ALLOWED_KEYS);
      expect(line).not.toMatch(/SENTINEL|secret-folder/);
      expect(line).not.toContain(token);
    }
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries[0]).toMatchObject({ surface: 'rest', op: 'section_source', outcome: 'ok', upstream: '2xx', sections: 1, truncated: false, reason: null });
    expect(entries[1]).toMatchObject({ outcome: 'BAD_GATEWAY', upstream: '5xx' });
    expect(entries[2]).toMatchObject({ outcome: 'INVALID_PATH', upstream: 'none' });
    expect(entries[3]).toMatchObject({ outcome: 'UNAUTHORIZED', reason: 'missing' });
    expect(entries[4]).toMatchObject({ surface: 'mcp', op: 'get_document_tree', outcome: 'ok', upstream: '2xx', sections: 1 });
    expect(entries[5]).toMatchObject({ surface: 'mcp', op: 'get_document_tree', outcome: 'INVALID_PATH' });
    expect(entries[6]).toMatchObject({ outcome: 'NOT_FOUND' });
  });

  it('names why a token was refused, in the log only: the responses stay byte-identical', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const user = uniqueUser('logs-reason');
    const expired = await mintToken({ sub: user, exp: Math.floor(Date.now() / 1000) - 3600 }, { expiresIn: null });
    const wrongKey = await mintToken({ sub: user }, { secret: 'another-secret-that-is-long-enough-0123456789' });
    const bodies: string[] = [];
    const challenges: Array<string | null> = [];
    for (const token of [expired, wrongKey]) {
      const rest = await restGet(REST_ROUTES.note_outline, 'x.md', { token });
      expect(rest.status).toBe(401);
      bodies.push(await rest.text());
      challenges.push(rest.headers.get('WWW-Authenticate'));
    }
    expect(bodies[0]).toBe(bodies[1]);
    expect(challenges[0]).toBe(challenges[1]);
    expect(lines.map((line) => JSON.parse(line).reason)).toEqual(['expired', 'bad_signature']);
    expect(lines.map((line) => JSON.parse(line).outcome)).toEqual(['UNAUTHORIZED', 'UNAUTHORIZED']);
  });
});
