import { describe, expect, it } from 'vitest';
import { assertMatchesOpenApi, documentedStatuses } from '../support/worker/openapi';
import { REST_ROUTES, callWorker } from '../support/worker/harness';

const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('openapi.yaml conformance hook', () => {
  it('rejects an undocumented status and a body that breaks the schema', async () => {
    await expect(assertMatchesOpenApi('GET', REST_ROUTES.note_outline, json({}, 418))).rejects.toThrow(/documents no 418/);
    await expect(assertMatchesOpenApi('GET', REST_ROUTES.note_outline, json({ error: 'x' }, 200))).rejects.toThrow(/does not match/);
    await expect(
      assertMatchesOpenApi('GET', REST_ROUTES.section_source, json({ error: 'Invalid path', code: 'NO_SUCH_CODE' }, 400)),
    ).rejects.toThrow(/does not match/);
  });

  it('documents every status the REST routes answer', async () => {
    for (const route of Object.values(REST_ROUTES)) {
      expect(documentedStatuses(route, 'GET').sort()).toEqual(
        expect.arrayContaining(['200', '400', '401', '403', '404', '422', '502', '503', '504']),
      );
    }
    const health = await callWorker('/health');
    expect(health.status).toBe(200);
  });
});
