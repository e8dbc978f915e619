import { afterEach, describe, expect, it, vi } from 'vitest';
import { seedNotes, setFault, uniqueUser } from '../support/worker/canister';
import { REST_ROUTES, TOOLS, callTool, callWorker, mintToken, restGet } from '../support/worker/harness';

const ALLOWED_KEYS = ['rid', 'surface', 'op', 'outcome', 'upstream', 'ms', 'sections', 'truncated'];

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
    expect(entries[0]).toMatchObject({ surface: 'rest', op: 'section_source', outcome: 'ok', upstream: '2xx', sections: 1, truncated: false });
    expect(entries[1]).toMatchObject({ outcome: 'BAD_GATEWAY', upstream: '5xx' });
    expect(entries[2]).toMatchObject({ outcome: 'INVALID_PATH', upstream: 'none' });
    expect(entries[3]).toMatchObject({ outcome: 'UNAUTHORIZED' });
    expect(entries[4]).toMatchObject({ surface: 'mcp', op: 'get_document_tree', outcome: 'ok', upstream: '2xx', sections: 1 });
    expect(entries[5]).toMatchObject({ surface: 'mcp', op: 'get_document_tree', outcome: 'INVALID_PATH' });
    expect(entries[6]).toMatchObject({ outcome: 'NOT_FOUND' });
  });
});
