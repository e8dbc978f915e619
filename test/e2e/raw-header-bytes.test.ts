// MCP 2026-07-28 standard headers holding raw non-ASCII bytes, as a client that writes UTF-8 into
// a header sends them over HTTP. A plain header value is printable ASCII; anything else travels as
// Base64 in the `=?base64?...?=` form, so these are refused as invalid, with the request's id and
// before any canister read. Sent from Node over HTTP, each byte as it is (a Fetch header value is a
// byte sequence: a string of chars up to U+00FF is sent one byte per char), because a test inside
// workerd can only build such a header from text, which workerd re-encodes with a warning.
import { describe, expect, inject, it } from 'vitest';
import { toolCallRequest } from '../../scripts/lib/worker-api';
import { mintViewerToken } from '../../scripts/token.mjs';

const workerUrl = inject('workerUrl');
const NOTE_PATH = 'projects/Aurora/roadmap.md';

/** Every request the demo canister received for `user` (its control API). */
async function canisterRequests(user: string): Promise<unknown[]> {
  const response = await fetch(`${inject('canisterUrl')}/__control/requests?user=${encodeURIComponent(user)}`, {
    headers: { 'X-Gateway-Auth': inject('canisterSecret') },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as unknown[];
}

/** The UTF-8 bytes of `text` as a header value: one char per byte, so each is sent as it is. */
const utf8Bytes = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

/** The 2026-07-28 tools/call of the note's outline as the scripts send it, its standard headers overridden by `headers`. */
function toolCall(token: string, headers: Record<string, string>): Promise<Response> {
  const request = toolCallRequest(new URL(workerUrl), token, '2026-07-28', NOTE_PATH);
  for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
  return fetch(request);
}

describe('MCP 2026-07-28 standard headers as raw non-ASCII bytes', () => {
  it.each([
    ['Mcp-Name raw non-ASCII', 'Mcp-Name', `get_note_outlin\u00e9`, 'Invalid Mcp-Name header'],
    ['Mcp-Name raw non-ASCII that would equal a non-ASCII name', 'Mcp-Name', '\u00ff', 'Invalid Mcp-Name header'],
    ['Mcp-Method raw non-ASCII', 'Mcp-Method', 'tools/call\u00a0', 'Invalid Mcp-Method header'],
  ])("%s: 400 -32020, fixed text, the request's id, no canister read", async (_label, header, value, message) => {
    const user = `raw-header-${crypto.randomUUID()}`;
    const token = await mintViewerToken(user, 600, inject('sessionSecret'));
    const answer = await toolCall(token, { [header]: utf8Bytes(value) });
    expect(answer.status).toBe(400);
    // JSON-RPC 2.0 section 5: the id could be read, so the error answer carries it.
    expect(await answer.json()).toEqual({ jsonrpc: '2.0', error: { code: -32020, message }, id: 1 });
    expect(await canisterRequests(user)).toHaveLength(0);
  });

  it("serves the same call with every header ASCII (the control, as the demo vault's user)", async () => {
    const token = await mintViewerToken('demo', 600, inject('sessionSecret'));
    const answer = await toolCall(token, {});
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { id: string; result: { isError?: boolean; structuredContent: { path: string } } };
    expect(body.result.isError).toBeUndefined();
    expect(body).toMatchObject({ id: 1, result: { structuredContent: { path: NOTE_PATH } } });
  });
});
