/**
 * Memory and size limits, through the whole request in
 * workerd: canister read, JSON decode, Markdown analysis, payload, MCP
 * envelope. The body cap is 1,000,000 UTF-16 code units (MAX_NOTE_INPUT_CHARS)
 * and the wire cap 8 MiB (MAX_NOTE_RESPONSE_BYTES). A note at the cap is
 * served by every contract; one code unit more is refused with 422
 * NOTE_TOO_LARGE by the three body-reading contracts, while metadata facets
 * (which never read the body) still answer. Whatever the note's shape, the
 * answer is a payload or a clean refusal, never a 500.
 */
import { describe, expect, it } from 'vitest';
import { MAX_NOTE_HEADINGS, MAX_NOTE_INPUT_CHARS, buildContract } from '../../src/contracts';
import { seedNotes, uniqueUser } from '../support/worker/canister';
import { MCP_HEADERS, REST_ROUTES, TOOLS, callWorker, mintToken, restGet } from '../support/worker/harness';

const CONTRACTS = Object.keys(REST_ROUTES) as Array<keyof typeof REST_ROUTES>;
const BODY_READING = CONTRACTS.filter((c) => c !== 'metadata_facets');
const TOO_LARGE_REST = JSON.stringify({ error: 'Note too large', code: 'NOTE_TOO_LARGE' });
const TOO_LARGE_TOOL = JSON.stringify({ error: 'Note too large', code: 'UPSTREAM_ERROR' });

/** Exactly `length` code units of sections: an h2 heading and a paragraph each, so thousands of headings. */
function sectionedBody(length: number): { body: string; headings: number } {
  const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ';
  const parts: string[] = [];
  let size = 0;
  let headings = 0;
  while (size < length) {
    const section = `## Section ${headings + 1}\n\n${paragraph}${paragraph}\n\n`;
    parts.push(section);
    size += section.length;
    headings += 1;
  }
  const body = parts.join('');
  // Trim into the last paragraph; the heading count is unchanged.
  return { body: body.slice(0, length), headings };
}

async function seedOne(body: string, frontmatter: Record<string, unknown> = { title: 'Big note', tags: ['size'] }) {
  const user = uniqueUser('mem');
  const path = 'size/big note.md';
  await seedNotes(user, 'default', [{ path, frontmatter, body }]);
  const token = await mintToken({ sub: user });
  return { path, token };
}

async function callToolRaw(tool: string, path: string, token: string): Promise<{ status: number; rpc: any }> {
  const res = await callWorker('/mcp', {
    method: 'POST',
    token,
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: tool, arguments: { path } } }),
  });
  return { status: res.status, rpc: await res.json() };
}

describe('note size at the cap', () => {
  it(`a ${MAX_NOTE_INPUT_CHARS.toLocaleString('en')}-character note with thousands of headings is served by every contract`, async () => {
    const { body, headings } = sectionedBody(MAX_NOTE_INPUT_CHARS);
    expect(body).toHaveLength(MAX_NOTE_INPUT_CHARS);
    expect(headings).toBeGreaterThan(MAX_NOTE_HEADINGS);
    const { path, token } = await seedOne(body);

    for (const contract of CONTRACTS) {
      const rest = await restGet(REST_ROUTES[contract], path, { token });
      expect(rest.status, contract).toBe(200);
      const payload = await rest.json<any>();
      expect(payload.path).toBe(path);
      if (contract === 'note_outline') {
        expect(payload.headings).toHaveLength(MAX_NOTE_HEADINGS);
        expect(payload.truncated).toBe(true);
        expect(payload.headings[0].text).toBe('Section 1');
      }
      if (contract === 'section_source') expect(payload.sections.length).toBeGreaterThan(0);

      const mcp = await callToolRaw(TOOLS[contract], path, token);
      expect(mcp.status, contract).toBe(200);
      expect(mcp.rpc.result.isError, contract).toBeUndefined();
      expect(mcp.rpc.result.structuredContent).toEqual(payload);
    }
  }, 120_000);

  it(`${(MAX_NOTE_INPUT_CHARS + 1).toLocaleString('en')} characters: 422 NOTE_TOO_LARGE on the body-reading contracts, facets still answer`, async () => {
    const { body } = sectionedBody(MAX_NOTE_INPUT_CHARS + 1);
    expect(body).toHaveLength(MAX_NOTE_INPUT_CHARS + 1);
    const { path, token } = await seedOne(body);

    for (const contract of BODY_READING) {
      const rest = await restGet(REST_ROUTES[contract], path, { token });
      expect(rest.status, contract).toBe(422);
      expect(await rest.text()).toBe(TOO_LARGE_REST);
      const mcp = await callToolRaw(TOOLS[contract], path, token);
      expect(mcp.rpc.result.isError).toBe(true);
      expect(mcp.rpc.result.content).toEqual([{ type: 'text', text: TOO_LARGE_TOOL }]);
    }
    const facets = await restGet(REST_ROUTES.metadata_facets, path, { token });
    expect(facets.status).toBe(200);
    expect((await facets.json<any>()).facets.tags).toEqual(['size']);
    const facetsTool = await callToolRaw(TOOLS.metadata_facets, path, token);
    expect(facetsTool.rpc.result.isError).toBeUndefined();
  }, 60_000);

  it('the cap counts UTF-16 code units: 500,000 astral characters are at the cap and served', async () => {
    const body = '\u{1F600}'.repeat(MAX_NOTE_INPUT_CHARS / 2);
    expect(body).toHaveLength(MAX_NOTE_INPUT_CHARS);
    const { path, token } = await seedOne(`${body}`);
    const rest = await restGet(REST_ROUTES.section_source, path, { token });
    expect(rest.status).toBe(200);
    const over = await seedOne(`${body}x`);
    const refused = await restGet(REST_ROUTES.section_source, over.path, { token: over.token });
    expect(refused.status).toBe(422);
  }, 60_000);

  it('the largest wire form of a note at the cap (control characters escaped to 6 bytes each, ~6 MB) is still under the 8 MiB wire cap', async () => {
    const body = `# Control\n\n${'\u0001'.repeat(MAX_NOTE_INPUT_CHARS - 11)}`;
    expect(body).toHaveLength(MAX_NOTE_INPUT_CHARS);
    expect(JSON.stringify(body).length).toBeGreaterThan(5_900_000);
    const { path, token } = await seedOne(body);
    for (const contract of CONTRACTS) {
      const rest = await restGet(REST_ROUTES[contract], path, { token });
      expect(rest.status, contract).toBe(200);
    }
    const outline = await restGet(REST_ROUTES.note_outline, path, { token });
    expect((await outline.json<any>()).headings.map((h: any) => h.text)).toEqual(['Control']);
  }, 60_000);
});

describe('note shape: a payload or a clean refusal, never a 500', () => {
  // Deep container nesting drives recursive tree walks; a stack overflow must not become a 500.
  const NESTED: Array<[string, string]> = [
    ['5,000 nested blockquotes', `${'>'.repeat(5_000)} text`],
    ['5,000 nested blockquotes around a heading', `${'>'.repeat(5_000)} # Deep heading`],
    ['20,000 nested blockquotes', `${'>'.repeat(20_000)} text`],
    ['2,000 nested ordered lists', `${'1. '.repeat(2_000)}# Deep heading`],
  ];

  it.each(NESTED)('%s', async (_name, body) => {
    const { path, token } = await seedOne(body);
    for (const contract of CONTRACTS) {
      const rest = await restGet(REST_ROUTES[contract], path, { token });
      const text = await rest.text();
      expect([200, 422], `${contract}: ${rest.status} ${text}`).toContain(rest.status);
      if (rest.status === 422) expect(text).toBe(TOO_LARGE_REST);
      const mcp = await callToolRaw(TOOLS[contract], path, token);
      expect(mcp.status).toBe(200);
      if (mcp.rpc.result.isError) expect(mcp.rpc.result.content).toEqual([{ type: 'text', text: TOO_LARGE_TOOL }]);
    }
  }, 60_000);

  it(`a ${MAX_NOTE_INPUT_CHARS.toLocaleString('en')}-character single paragraph is served`, async () => {
    const { path, token } = await seedOne('word '.repeat(MAX_NOTE_INPUT_CHARS / 5));
    for (const contract of CONTRACTS) {
      const rest = await restGet(REST_ROUTES[contract], path, { token });
      expect(rest.status, contract).toBe(200);
    }
  }, 60_000);
});

describe('output bound: no answer over 4 MiB', () => {
  const TOO_COMPLEX_REST = JSON.stringify({ error: 'Note structure too large', code: 'NOTE_TOO_COMPLEX' });
  const TOO_COMPLEX_TOOL = JSON.stringify({ error: 'Note structure too large', code: 'UPSTREAM_ERROR' });
  // One 80 KB H1 and 499 `## a`: SectionSource would repeat the H1 in all 500 heading_paths (~37 MiB).
  const amplified = `# ${'x'.repeat(80_000)}\n\n${Array.from({ length: 499 }, () => '## a').join('\n\n')}\n`;

  it('SectionSource amplification answers a typed 422 on REST and the tool error on MCP', async () => {
    const { path, token } = await seedOne(amplified);
    const rest = await restGet(REST_ROUTES.section_source, path, { token });
    expect(rest.status).toBe(422);
    expect(await rest.text()).toBe(TOO_COMPLEX_REST);

    const mcp = await callToolRaw(TOOLS.section_source, path, token);
    expect(mcp.status).toBe(200);
    expect(mcp.rpc.result.isError).toBe(true);
    expect(mcp.rpc.result.content[0].text).toBe(TOO_COMPLEX_TOOL);
    expect(mcp.rpc.result.structuredContent).toBeUndefined();
  });

  it('the other contracts of that note are served (each far under the bound)', async () => {
    const { path, token } = await seedOne(amplified);
    for (const contract of BODY_READING.filter((c) => c !== 'section_source')) {
      const rest = await restGet(REST_ROUTES[contract], path, { token });
      expect(rest.status, contract).toBe(200);
      expect((await rest.arrayBuffer()).byteLength).toBeLessThanOrEqual(4 * 1024 * 1024);
    }
  });

  it('a SectionSource just under 4 MiB is served whole; one heading character more is refused', async () => {
    // 40 sections under one H1 of n characters: the H1 text is in 41 heading_paths plus its heading_text.
    const note = (n: number) => `# ${'y'.repeat(n)}\n\n${Array.from({ length: 40 }, () => '## b\n\ntext').join('\n\n')}\n`;
    const sizeOf = async (n: number) => {
      const { path, token } = await seedOne(note(n), {});
      const rest = await restGet(REST_ROUTES.section_source, path, { token });
      const text = await rest.text();
      return { status: rest.status, text, bytes: new TextEncoder().encode(text).byteLength, path };
    };
    const one = await sizeOf(1);
    const perChar = (await sizeOf(2)).bytes - one.bytes;
    const under = 1 + Math.floor((4 * 1024 * 1024 - one.bytes) / perChar);
    const served = await sizeOf(under);
    expect(served.status).toBe(200);
    expect(served.bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(served.bytes).toBeGreaterThan(4 * 1024 * 1024 - perChar);
    expect(served.text).toBe(JSON.stringify(buildContract('section_source', served.path, {}, note(under))));
    const over = await sizeOf(under + 1);
    expect(over.status).toBe(422);
  }, 120_000);
});
