/**
 * Isolation. Two users and two vaults give four canister
 * partitions holding a note at the same path whose heading names its
 * partition. Every token/vault/surface combination must either be refused
 * (before any canister call) or read its own partition; nothing a client
 * sends besides a signed claim can choose the partition. A scoped token
 * must not learn whether an out-of-scope note exists: the answer equals the
 * one for a missing note, and both cost one canister read.
 */
import { describe, expect, it } from 'vitest';
import { buildContract, type ContractName } from '../../src/contracts';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { MCP_HEADERS, REST_ROUTES, TOOLS, callWorker, mintToken, restGet } from '../support/worker/harness';

const VAULTS = ['alpha', 'beta'] as const;
const SHARED_PATH = 'shared/same-path.md';
const CONTRACTS = Object.keys(REST_ROUTES) as Array<keyof typeof REST_ROUTES>;
const VAULT_FORBIDDEN_REST = JSON.stringify({ error: 'Access to this vault is not allowed.', code: 'FORBIDDEN' });
/** Refused after the message was read, the answer carries its id (mcpBody's 5; JSON-RPC 2.0 section 5). */
const VAULT_FORBIDDEN_RPC = JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: 'Access to this vault is not allowed.' }, id: 5 });

const headingFor = (owner: string, vault: string) => `Partition ${owner} ${vault}`;
/** The note at SHARED_PATH in one partition. */
const noteFor = (owner: string, vault: string) => ({
  path: SHARED_PATH,
  frontmatter: { title: `T ${owner} ${vault}` },
  body: `# ${headingFor(owner, vault)}\n\nprivate\n`,
});
/** One contract's payload for the note of one partition. */
const payloadFor = (contract: ContractName, owner: string, vault: string) => {
  const note = noteFor(owner, vault);
  return buildContract(contract, note.path, note.frontmatter, note.body);
};

async function seedPartitions() {
  const users = { A: uniqueUser('iso-a'), B: uniqueUser('iso-b') };
  for (const [owner, user] of Object.entries(users)) {
    for (const vault of VAULTS) await seedNotes(user, vault, [noteFor(owner, vault)]);
  }
  return users;
}

function mcpBody(tool: string, path: string) {
  return JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: tool, arguments: { path } } });
}

/** The heading an answer carries, whatever the contract. */
function headingOf(payload: any): string {
  if (payload.headings) return payload.headings[0].text;
  if (payload.root) return payload.root.children[0].text;
  if (payload.sections) return payload.sections[0].heading_text;
  throw new Error('payload without headings');
}

interface TokenSpec {
  name: string;
  owner: 'A' | 'B';
  claims: (users: Record<'A' | 'B', string>) => Record<string, unknown>;
  /** Vaults this token may read; null = any well-formed vault. */
  vaults: readonly string[] | null;
}

const TOKENS: TokenSpec[] = [
  { name: 'session A', owner: 'A', claims: (u) => ({ sub: u.A }), vaults: null },
  { name: 'session B', owner: 'B', claims: (u) => ({ sub: u.B }), vaults: null },
  { name: 'session A, allowlist alpha', owner: 'A', claims: (u) => ({ sub: u.A, allowed_vault_ids: ['alpha'] }), vaults: ['alpha'] },
  { name: 'session B, allowlist beta', owner: 'B', claims: (u) => ({ sub: u.B, allowed_vault_ids: ['beta'] }), vaults: ['beta'] },
  { name: 'session A, empty allowlist', owner: 'A', claims: (u) => ({ sub: u.A, allowed_vault_ids: [] }), vaults: [] },
  {
    name: 'mcp_access B, allowlist alpha',
    owner: 'B',
    claims: (u) => ({ sub: u.B, type: 'mcp_access', aud: 'https://edge.example', scopes: ['vault:read'], allowed_vault_ids: ['alpha'] }),
    vaults: ['alpha'],
  },
  {
    name: 'agent_access A, bound to beta',
    owner: 'A',
    claims: (u) => ({ sub: u.A, type: 'agent_access', aud: 'knowtation-hub-rest', typ: 'kt_agent_access', vault_ids: ['beta'], scopes: ['vault:read'] }),
    vaults: ['beta'],
  },
];

describe('partitions: two users x two vaults', () => {
  it('the partitions\' notes give four different payloads of some contract, so an answer tells its partition', () => {
    const telling = CONTRACTS.filter((contract) => {
      const payloads = (['A', 'B'] as const).flatMap((owner) => VAULTS.map((vault) => JSON.stringify(payloadFor(contract, owner, vault))));
      return new Set(payloads).size === payloads.length;
    });
    expect(telling).toContain('note_outline');
  });

  it.each(TOKENS)('$name reads only its own partition, and only allowed vaults', async (spec) => {
    const users = await seedPartitions();
    const token = await mintToken(spec.claims(users));
    const own = users[spec.owner];
    const other = users[spec.owner === 'A' ? 'B' : 'A'];
    let expectedReads = 0;

    for (const vault of VAULTS) {
      const allowed = spec.vaults === null || spec.vaults.includes(vault);
      for (const contract of CONTRACTS) {
        const rest = await restGet(REST_ROUTES[contract], SHARED_PATH, { token, headers: { 'X-Vault-Id': vault } });
        const restText = await rest.text();
        const mcp = await callWorker('/mcp', { method: 'POST', token, headers: { ...MCP_HEADERS, 'X-Vault-Id': vault }, body: mcpBody(TOOLS[contract], SHARED_PATH) });
        const mcpText = await mcp.text();
        if (allowed) {
          expectedReads += 2;
          // Exactly its own partition's payload. A payload that is the same in every partition (one without
          // heading text or title) cannot tell them apart; the canister reads below still do.
          const expected = payloadFor(contract, spec.owner, vault);
          expect(rest.status).toBe(200);
          expect(restText, contract).toBe(JSON.stringify(expected));
          expect(JSON.parse(mcpText).result.structuredContent, contract).toEqual(expected);
        } else {
          expect(rest.status).toBe(403);
          expect(restText).toBe(VAULT_FORBIDDEN_REST);
          expect(mcp.status).toBe(403);
          expect(mcpText).toBe(VAULT_FORBIDDEN_RPC);
        }
      }
    }

    const ownRequests = await canisterRequests(own);
    expect(ownRequests).toHaveLength(expectedReads);
    for (const request of ownRequests) {
      expect(spec.vaults === null || spec.vaults.includes(String(request.headers['x-vault-id']))).toBe(true);
    }
    expect(await canisterRequests(other)).toEqual([]);
  });

  it('client-supplied identity headers and query parameters cannot choose the partition', async () => {
    const users = await seedPartitions();
    const token = await mintToken({ sub: users.A });
    const attempts: Array<{ query: string; headers: Record<string, string> }> = [
      { query: '', headers: { 'X-User-Id': users.B, 'X-Vault-Id': 'alpha' } },
      { query: '', headers: { 'X-Actor-Id': users.B, 'X-Effective-User-Id': users.B, 'X-Vault-Id': 'alpha' } },
      { query: '', headers: { 'X-Gateway-Auth': 'forged', 'X-Vault-Id': 'alpha' } },
      { query: `&user=${encodeURIComponent(users.B)}&vault=beta&user_id=${encodeURIComponent(users.B)}`, headers: { 'X-Vault-Id': 'alpha' } },
      { query: `&effective_canister_user_id=${encodeURIComponent(users.B)}`, headers: { 'X-Vault-Id': 'alpha' } },
    ];
    for (const { query, headers } of attempts) {
      const res = await callWorker(`${REST_ROUTES.note_outline}?path=${encodeURIComponent(SHARED_PATH)}${query}`, { token, headers });
      expect(res.status).toBe(200);
      expect(headingOf(await res.json())).toBe(headingFor('A', 'alpha'));
      const mcp = await callWorker(`/mcp?${query.slice(1)}`, { method: 'POST', token, headers: { ...MCP_HEADERS, ...headers }, body: mcpBody(TOOLS.section_source, SHARED_PATH) });
      expect(headingOf((await mcp.json<any>()).result.structuredContent)).toBe(headingFor('A', 'alpha'));
    }
    const received = await canisterRequests(users.A);
    expect(received).toHaveLength(attempts.length * 2);
    for (const request of received) {
      expect(request.headers['x-user-id']).toBe(users.A);
      expect(request.headers['x-actor-id']).toBe(users.A);
      expect(request.headers['x-vault-id']).toBe('alpha');
      expect(request.headers['x-gateway-auth']).not.toBe('forged');
    }
    expect(await canisterRequests(users.B)).toEqual([]);
  });

  it('a path naming the other user or vault stays inside the own partition', async () => {
    const users = await seedPartitions();
    const token = await mintToken({ sub: users.A });
    for (const path of [`${users.B}/${SHARED_PATH}`, `beta/${SHARED_PATH}`, `alpha/../beta/${SHARED_PATH}`]) {
      const res = await restGet(REST_ROUTES.note_outline, path, { token, headers: { 'X-Vault-Id': 'alpha' } });
      expect([400, 404]).toContain(res.status);
    }
    expect(await canisterRequests(users.B)).toEqual([]);
  });

  it('two X-Vault-Id headers are refused, not merged or picked', async () => {
    const users = await seedPartitions();
    const token = await mintToken({ sub: users.A, allowed_vault_ids: ['alpha', 'beta'] });
    const headers = new Headers({ Authorization: `Bearer ${token}` });
    headers.append('X-Vault-Id', 'alpha');
    headers.append('X-Vault-Id', 'beta');
    const res = await callWorker(`${REST_ROUTES.note_outline}?path=${encodeURIComponent(SHARED_PATH)}`, { headers: Object.fromEntries(headers) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Invalid vault', code: 'INVALID_VAULT' });
    expect(await canisterRequests(users.A)).toEqual([]);
  });

  it('only a Hub-signed effective_canister_user_id selects another partition, and the actor stays the subject', async () => {
    const users = await seedPartitions();
    const token = await mintToken({ sub: users.A, effective_canister_user_id: users.B });
    const res = await restGet(REST_ROUTES.note_outline, SHARED_PATH, { token, headers: { 'X-Vault-Id': 'beta' } });
    expect(headingOf(await res.json())).toBe(headingFor('B', 'beta'));
    const [request] = await canisterRequests(users.B);
    expect(request.headers['x-user-id']).toBe(users.B);
    expect(request.headers['x-actor-id']).toBe(users.A);
  });
});

// ---------------------------------------------------------------- scope: out of scope == missing

const SCOPE = { folders: ['projects/alpha'], projects: ['Alpha'] };
const IN_SCOPE = [
  { path: 'projects/alpha/plan.md', frontmatter: {} },
  { path: 'projects/alpha/deep/er/plan.md', frontmatter: {} },
  { path: 'misc/tagged.md', frontmatter: { project: 'Alpha' } },
];
const OUT_OF_SCOPE = [
  { path: 'projects/beta/secret.md', frontmatter: {} },
  { path: 'projects/alpha-evil/secret.md', frontmatter: {} },
  { path: 'projects/alphabet.md', frontmatter: {} },
  { path: 'projects/secret.md', frontmatter: {} },
  { path: 'secret.md', frontmatter: {} },
  { path: 'misc/other-project.md', frontmatter: { project: 'Beta' } },
  { path: 'misc/case-project.md', frontmatter: { project: 'alpha' } },
  { path: 'misc/list-project.md', frontmatter: { project: ['Alpha'] } },
  { path: 'projects/Alpha/case.md', frontmatter: {} },
];

/** A path guaranteed missing, in the same folder as `path`. */
const missingTwin = (path: string) => path.replace(/[^/]+$/, 'missing-twin-note.md');

function withoutRequestId(res: Response): Array<[string, string]> {
  return [...res.headers].filter(([name]) => name !== 'x-request-id');
}

describe('scope: an out-of-scope note answers exactly like a missing one', () => {
  async function scopedSetup(extraNotes: Array<{ path: string; frontmatter?: unknown; body?: string }> = []) {
    const user = uniqueUser('scope');
    await seedNotes(user, 'default', [
      ...[...IN_SCOPE, ...OUT_OF_SCOPE].map((n) => ({ ...n, body: `# Heading of ${n.path}\n\nsecret body\n` })),
      ...extraNotes,
    ]);
    const token = await mintToken({ sub: user, scope: SCOPE });
    return { user, token };
  }

  it('in-scope notes are served (the scope is not a blanket refusal)', async () => {
    const { token } = await scopedSetup();
    for (const note of IN_SCOPE) {
      const res = await restGet(REST_ROUTES.note_outline, note.path, { token });
      expect(res.status).toBe(200);
      expect(headingOf(await res.json())).toBe(`Heading of ${note.path}`);
    }
  });

  it.each(OUT_OF_SCOPE.map((n) => [n.path]))('%s: same REST status, body and headers as a missing note', async (path) => {
    const { user, token } = await scopedSetup();
    for (const contract of CONTRACTS) {
      const before = (await canisterRequests(user)).length;
      const outside = await restGet(REST_ROUTES[contract], path, { token });
      const afterOutside = (await canisterRequests(user)).length;
      const missing = await restGet(REST_ROUTES[contract], missingTwin(path), { token });
      const afterMissing = (await canisterRequests(user)).length;

      expect(outside.status).toBe(404);
      expect(missing.status).toBe(404);
      const outsideText = await outside.text();
      expect(outsideText).toBe(await missing.text());
      expect(outsideText).toBe(JSON.stringify({ error: 'Not found', code: 'NOT_FOUND' }));
      expect(withoutRequestId(outside)).toEqual(withoutRequestId(missing));
      // Same work class: one canister read each, no short cut for either.
      expect(afterOutside - before).toBe(1);
      expect(afterMissing - afterOutside).toBe(1);
    }
  });

  it.each(OUT_OF_SCOPE.map((n) => [n.path]))('%s: same MCP answer as a missing note', async (path) => {
    const { token } = await scopedSetup();
    for (const contract of CONTRACTS) {
      const outside = await callWorker('/mcp', { method: 'POST', token, headers: MCP_HEADERS, body: mcpBody(TOOLS[contract], path) });
      const missing = await callWorker('/mcp', { method: 'POST', token, headers: MCP_HEADERS, body: mcpBody(TOOLS[contract], missingTwin(path)) });
      expect(outside.status).toBe(missing.status);
      const outsideText = await outside.text();
      expect(outsideText).toBe(await missing.text());
      expect(JSON.parse(outsideText).result.content[0].text).toBe(JSON.stringify({ error: 'Upstream 404', code: 'UPSTREAM_ERROR' }));
      expect(withoutRequestId(outside)).toEqual(withoutRequestId(missing));
    }
  });

  it('an out-of-scope note over the 1,000,000-character body cap still answers as missing', async () => {
    const path = 'projects/beta/big.md';
    const { token } = await scopedSetup([{ path, frontmatter: {}, body: `# Big\n\n${'x'.repeat(1_000_001)}` }]);
    for (const contract of CONTRACTS) {
      const outside = await restGet(REST_ROUTES[contract], path, { token });
      const missing = await restGet(REST_ROUTES[contract], missingTwin(path), { token });
      expect(outside.status).toBe(404);
      expect(await outside.text()).toBe(await missing.text());
    }
  });

  it('an out-of-scope note over the 8 MiB wire cap still answers as missing', async () => {
    const path = 'projects/beta/huge.md';
    const { token } = await scopedSetup([{ path, frontmatter: {}, body: `# Huge\n\n${'y'.repeat(9 * 1024 * 1024)}` }]);
    for (const contract of CONTRACTS) {
      const outside = await restGet(REST_ROUTES[contract], path, { token });
      const missing = await restGet(REST_ROUTES[contract], missingTwin(path), { token });
      expect(outside.status, contract).toBe(missing.status);
      expect(await outside.text(), contract).toBe(await missing.text());
    }
  });
});

describe('scope of folders only: decided before any read', () => {
  const FOLDERS_ONLY = { folders: ['projects/alpha'] };

  it('a note outside the folders answers as missing with no canister read, so its size cannot show in the time', async () => {
    const user = uniqueUser('scope-folders');
    const big = 'projects/beta/big.md';
    await seedNotes(user, 'default', [
      { path: big, frontmatter: { project: 'Alpha' }, body: `# Big\n\n${'z'.repeat(1_000_000)}` },
      { path: 'projects/alpha/plan.md', frontmatter: {}, body: '# Plan\n' },
    ]);
    const token = await mintToken({ sub: user, scope: FOLDERS_ONLY });
    for (const contract of CONTRACTS) {
      const outside = await restGet(REST_ROUTES[contract], big, { token });
      const missing = await restGet(REST_ROUTES[contract], missingTwin(big), { token });
      expect(outside.status).toBe(404);
      expect(await outside.text()).toBe(await missing.text());
      const tool = await callWorker('/mcp', { method: 'POST', token, headers: MCP_HEADERS, body: mcpBody(TOOLS[contract], big) });
      expect(JSON.parse(await tool.text()).result.content[0].text).toBe(JSON.stringify({ error: 'Upstream 404', code: 'UPSTREAM_ERROR' }));
    }
    expect(await canisterRequests(user)).toEqual([]);
    // Inside the folders the note is read as before.
    const inside = await restGet(REST_ROUTES.note_outline, 'projects/alpha/plan.md', { token });
    expect(inside.status).toBe(200);
    expect(await canisterRequests(user)).toHaveLength(1);
  });
});

// ---------------------------------------------------------------- scope: no way out through a lenient spelling

const INVALID_PATH_REST = JSON.stringify({ error: 'Invalid path', code: 'INVALID_PATH' });
const INVALID_PATH_TOOL = JSON.stringify({ error: 'Invalid path', code: 'UPSTREAM_ERROR' });

/**
 * Spellings of '..' (and '.') that a store which trims whitespace, strips
 * default-ignorable code points or cuts a ';' suffix would resolve, so `proj/<seg>/secret/x.md`
 * would read `secret/x.md`. The scope check sees the folder `proj/<seg>/secret`, inside `proj`,
 * so only the path rule can stop them. Each is stored literally, to prove the refusal is not
 * just a canister 404.
 */
const LENIENT_ESCAPES = [
  'proj/..\u200B/secret/x.md',
  'proj/.. /secret/x.md',
  'proj/..;x/secret/x.md',
  'proj/..\t/secret/x.md',
  'proj/..\u00AD/secret/x.md',
  'proj/..\u00A0/secret/x.md',
  'proj/\u00A0..\u3000/secret/x.md',
  'proj/.\u2060./secret/x.md',
  'proj/..\uFEFF/secret/x.md',
  'proj/..\u{E0020}/secret/x.md',
  'proj/..%20/secret/x.md',
  'proj/..%E2%80%8B/secret/x.md',
  'proj/./secret/../../secret/x.md',
  'projects/./alpha/dot.md',
];

describe('scope: a lenient spelling of ".." never reaches outside the folder', () => {
  it.each(LENIENT_ESCAPES.map((path, i) => [i, JSON.stringify(path).replace(/[^\x20-\x7e]/g, '?'), path]))(
    'escape #%i %s is an invalid path for a proj/-scoped token, before any fetch',
    async (_i, _title, path) => {
      const user = uniqueUser('scope-escape');
      await seedNotes(user, 'default', [
        { path: 'secret/x.md', frontmatter: {}, body: '# Secret outside the scope\n' },
        { path: path as string, frontmatter: {}, body: '# Stored under the literal spelling\n' },
      ]);
      const token = await mintToken({ sub: user, scope: { folders: ['proj'], projects: [] } });
      for (const contract of CONTRACTS) {
        const rest = await restGet(REST_ROUTES[contract], path as string, { token });
        expect(rest.status).toBe(400);
        expect(await rest.text()).toBe(INVALID_PATH_REST);
        const mcp = await callWorker('/mcp', { method: 'POST', token, headers: MCP_HEADERS, body: mcpBody(TOOLS[contract], path as string) });
        expect(JSON.parse(await mcp.text()).result.content[0].text).toBe(INVALID_PATH_TOOL);
      }
      expect(await canisterRequests(user)).toEqual([]);
    },
  );

  it('the same token still reads its own folder (the rule is not a blanket refusal)', async () => {
    const user = uniqueUser('scope-escape-ok');
    await seedNotes(user, 'default', [{ path: 'proj/.. notes/x.md', frontmatter: {}, body: '# Inside\n' }]);
    const token = await mintToken({ sub: user, scope: { folders: ['proj'], projects: [] } });
    const res = await restGet(REST_ROUTES.note_outline, 'proj/.. notes/x.md', { token });
    expect(res.status).toBe(200);
    expect(headingOf(await res.json())).toBe('Inside');
  });
});

// ---------------------------------------------------------------- scope: the store answers for the note asked for

describe('scope: a canister answer for another stored path is a missing note', () => {
  /**
   * The canister looks a path up percent-decoded first, then by its raw
   * remainder, so for `proj/leak.md` (sent as `proj%2Fleak.md`) it serves the ROOT note stored
   * literally as `proj%2Fleak.md`, which a proj/-scoped token must not read.
   */
  async function leakSetup() {
    const user = uniqueUser('scope-leak');
    await seedNotes(user, 'default', [
      { path: 'proj%2Fleak.md', frontmatter: { title: 'LEAK-TITLE' }, body: '# LEAK-HEADING outside the scope\n\nLEAK-BODY\n' },
    ]);
    const token = await mintToken({ sub: user, scope: { folders: ['proj'], projects: [] } });
    return { user, token };
  }

  it('REST: identical bytes and headers to a missing note, one canister read each, no echo of the stored path', async () => {
    const { user, token } = await leakSetup();
    for (const contract of CONTRACTS) {
      const before = (await canisterRequests(user)).length;
      const leak = await restGet(REST_ROUTES[contract], 'proj/leak.md', { token });
      const missing = await restGet(REST_ROUTES[contract], 'proj/missing-twin-note.md', { token });
      expect(leak.status).toBe(404);
      const text = await leak.text();
      expect(text).toBe(await missing.text());
      expect(text).toBe(JSON.stringify({ error: 'Not found', code: 'NOT_FOUND' }));
      expect(withoutRequestId(leak)).toEqual(withoutRequestId(missing));
      expect(text).not.toMatch(/LEAK|%2F/);
      expect((await canisterRequests(user)).length - before).toBe(2);
    }
    // The canister did answer 200 for it: only the Worker's path check stands in between.
    const requests = await canisterRequests(user);
    expect(requests[0].url).toBe('/api/v1/notes/proj%2Fleak.md');
  });

  it('MCP: identical answer to a missing note (Upstream 404)', async () => {
    const { token } = await leakSetup();
    for (const contract of CONTRACTS) {
      const leak = await callWorker('/mcp', { method: 'POST', token, headers: MCP_HEADERS, body: mcpBody(TOOLS[contract], 'proj/leak.md') });
      const missing = await callWorker('/mcp', { method: 'POST', token, headers: MCP_HEADERS, body: mcpBody(TOOLS[contract], 'proj/missing-twin-note.md') });
      const text = await leak.text();
      expect(text).toBe(await missing.text());
      expect(JSON.parse(text).result.content[0].text).toBe(JSON.stringify({ error: 'Upstream 404', code: 'UPSTREAM_ERROR' }));
      expect(withoutRequestId(leak)).toEqual(withoutRequestId(missing));
    }
  });

  it('an unscoped token gets the same missing-note answer: the store answered for another note', async () => {
    const { user } = await leakSetup();
    const token = await mintToken({ sub: user });
    const res = await restGet(REST_ROUTES.note_outline, 'proj/leak.md', { token });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(JSON.stringify({ error: 'Not found', code: 'NOT_FOUND' }));
  });
});

