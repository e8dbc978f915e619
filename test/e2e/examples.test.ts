// The copy-and-run examples in examples/, run as a user runs them against the real Worker, the
// demo canister and the local authorization server: each MCP example as its own process with
// tsx, the frontend module imported and called. The test plays the browser for the OAuth one.
// Beside each example, the trap its comments name is shown to be real here.
//
// Standards: RFC 9207 section 2.4 (a client checks `iss` in the authorization response),
// RFC 6749 section 10.12 (`state` binds the callback to the request), RFC 8252 section 7.3
// (loopback redirect URI on any port), RFC 6750 section 3.1 (invalid_token is a 401).
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, IssuerMismatchError, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { buildContract } from '../../src/contracts';
import { mintViewerToken } from '../../scripts/token.mjs';
import { KnowtationApiError, fetchSectionSource, sectionKey, sectionLines } from '../../examples/frontend-fetch';
import { authorizeInUserAgent, InMemoryOAuthProvider } from '../support/node/oauth-client';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const workerUrl = inject('workerUrl');
const NOTE_PATH = 'projects/Aurora/roadmap.md';
const SIGN_IN_PROMPT = /^Open this URL in a browser to sign in:\n {2}(\S+)\n/;

interface RunningExample {
  stdout(): string;
  stderr(): string;
  exitCode: Promise<number | null>;
  kill(): void;
}

/** `npx tsx examples/<file> ...args` with only the environment given (no KNOWTATION_* from the developer's shell). */
function runExample(file: string, args: string[], env: Record<string, string> = {}): RunningExample {
  const childEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...env };
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'examples', file), ...args], {
    cwd: repoRoot,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exitCode = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { stdout: () => stdout, stderr: () => stderr, exitCode, kill: () => child.kill('SIGTERM') };
}

const running: RunningExample[] = [];
afterEach(() => {
  for (const example of running.splice(0)) example.kill();
});
function started(file: string, args: string[], env?: Record<string, string>): RunningExample {
  const example = runExample(file, args, env);
  running.push(example);
  return example;
}

async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What the MCP examples print: the title, then each heading indented by level, with its id. */
async function expectedOutline(token: string, notePath = NOTE_PATH): Promise<string> {
  const response = await fetch(`${workerUrl}/api/v1/note-outline?path=${encodeURIComponent(notePath)}`, { headers: { Authorization: `Bearer ${token}` } });
  const outline = (await response.json()) as { title: string | null; path: string; headings: Array<{ level: number; text: string; id: string }> };
  expect(outline.headings.length).toBeGreaterThan(3);
  return [outline.title ?? outline.path, ...outline.headings.map((h) => `${'  '.repeat(h.level)}${h.text}  ${h.id}`)].join('\n') + '\n';
}

const viewerToken = (): Promise<string> => mintViewerToken('demo', 600, inject('sessionSecret'));

describe('examples/mcp-oauth-client.ts', () => {
  it('defaults to the Worker npm start runs', async () => {
    const { WORKER_PORT } = await import(pathToFileURL(path.join(repoRoot, 'scripts', 'dev-config.mjs')).href);
    for (const file of ['mcp-oauth-client.ts', 'mcp-bearer-client.ts']) {
      expect(await readFile(path.join(repoRoot, 'examples', file), 'utf8')).toContain(`?? 'http://127.0.0.1:${WORKER_PORT}'`);
    }
  });

  it('signs in through the browser, ignores a callback without its state, and prints the outline without an SDK warning', async () => {
    const example = started('mcp-oauth-client.ts', [workerUrl]);
    const authorizationUrl = new URL(await waitFor(() => SIGN_IN_PROMPT.exec(example.stderr())?.[1], 'the sign-in prompt'));
    const redirectUri = authorizationUrl.searchParams.get('redirect_uri') ?? '';
    expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\/callback$/);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${workerUrl}/mcp`);

    // A link that looks like the callback but was not started by this client is refused.
    for (const forged of ['?code=forged&state=someone-else', '?code=forged', '/../other?code=x']) {
      const response = await fetch(`${redirectUri}${forged}`);
      expect(response.status, forged).toBe(400);
      await response.body?.cancel();
    }

    // The browser: the local authorization server approves the loopback client without its page.
    const callback = await authorizeInUserAgent(authorizationUrl, redirectUri);
    expect(callback.get('state')).toBe(authorizationUrl.searchParams.get('state'));
    expect(callback.get('iss')).toBe(inject('authServerUrl'));
    const landing = await fetch(`${redirectUri}?${callback}`);
    expect(landing.status).toBe(200);
    expect(await landing.text()).toBe('Signed in. You can close this tab.');

    expect(await example.exitCode).toBe(0);
    expect(example.stdout()).toBe(await expectedOutline(await viewerToken()));
    // Nothing but the prompt: no SEP-2352 warning, no other SDK line.
    expect(example.stderr()).toBe(`Open this URL in a browser to sign in:\n  ${authorizationUrl.href}\n`);
  });
});

describe('the OAuth traps the example avoids are real against this stack', () => {
  const endpoint = (): URL => new URL('/mcp', workerUrl);

  /** Up to the authorization response: the first connect's 401, registration, and the browser. */
  async function authorized(provider: InMemoryOAuthProvider): Promise<{ client: Client; transport: StreamableHTTPClientTransport; callback: URLSearchParams }> {
    const client = new Client({ name: 'knowtation-edge-e2e-traps', version: '0.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(endpoint(), { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    const callback = await authorizeInUserAgent(provider.authorizationUrl!, provider.redirectUrl);
    return { client, transport: new StreamableHTTPClientTransport(endpoint(), { authProvider: provider }), callback };
  }

  it('finishAuth with the code alone is refused (IssuerMismatchError): the server sends iss (RFC 9207)', async () => {
    const { client, transport, callback } = await authorized(new InMemoryOAuthProvider());
    await expect(transport.finishAuth(callback.get('code')!)).rejects.toBeInstanceOf(IssuerMismatchError);
    await client.close().catch(() => {});
  });

  it('a provider without discovery state makes the SDK warn (SEP-2352); the same flow with it does not', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const withoutState = Object.assign(new InMemoryOAuthProvider(), { saveDiscoveryState: undefined, discoveryState: undefined });
      const first = await authorized(withoutState as unknown as InMemoryOAuthProvider);
      await first.transport.finishAuth(first.callback);
      expect(warn.mock.calls.flat().join('\n')).toMatch(/SEP-2352/);
      await first.client.close().catch(() => {});

      warn.mockClear();
      const second = await authorized(new InMemoryOAuthProvider());
      await second.transport.finishAuth(second.callback);
      await second.client.connect(second.transport);
      expect(warn).not.toHaveBeenCalled();
      await second.client.close();
    } finally {
      warn.mockRestore();
    }
  });
});

describe('examples/mcp-bearer-client.ts', () => {
  it('prints the outline with a token minted as npm run token does, the base URL from KNOWTATION_URL', async () => {
    const token = await viewerToken();
    const example = started('mcp-bearer-client.ts', [], { KNOWTATION_TOKEN: token, KNOWTATION_URL: workerUrl });
    expect(await example.exitCode).toBe(0);
    expect(example.stdout()).toBe(await expectedOutline(token));
    expect(example.stderr()).toBe('');
  });

  it('without a token it says how to get one (exit 2), and a token signed with another key is a 401 (exit 1) not echoed', async () => {
    const none = started('mcp-bearer-client.ts', [workerUrl]);
    expect(await none.exitCode).toBe(2);
    expect(none.stderr()).toMatch(/Set KNOWTATION_TOKEN/);

    const foreign = await mintViewerToken('demo', 600, 'a-key-that-is-not-this-workers-session-secret');
    const refused = started('mcp-bearer-client.ts', [workerUrl], { KNOWTATION_TOKEN: foreign });
    expect(await refused.exitCode).toBe(1);
    expect(refused.stderr()).toBe('The Worker refused the token (401): mint a fresh one with npm run -s token.\n');
    expect(refused.stdout()).toBe('');
  });

  it('a path without .md names another note: the tool error Upstream 404 (exit 1)', async () => {
    const example = started('mcp-bearer-client.ts', [workerUrl, 'projects/Aurora/roadmap'], { KNOWTATION_TOKEN: await viewerToken() });
    expect(await example.exitCode).toBe(1);
    expect(example.stderr()).toContain('Upstream 404');
    expect(example.stdout()).toBe('');
  });
});

describe('examples/frontend-fetch.ts', () => {
  it('answers the REST body, typed, for a path that needs encoding', async () => {
    const token = await viewerToken();
    for (const notePath of [NOTE_PATH, 'projects/Tidal Garden/planting plan.md']) {
      const source = await fetchSectionSource(workerUrl, token, notePath);
      const rest = await fetch(`${workerUrl}/api/v1/section-source?path=${encodeURIComponent(notePath)}`, { headers: { Authorization: `Bearer ${token}` } });
      expect(source).toEqual(await rest.json());
      expect(source.path).toBe(notePath);
      expect(sectionLines(source)).toHaveLength(source.sections.length);
    }
    const roadmap = await fetchSectionSource(workerUrl, token, NOTE_PATH, { vaultId: 'default' });
    const [first] = roadmap.sections;
    expect(sectionLines(roadmap)[0]).toBe(first.heading_text);
    const firstChild = roadmap.sections.find((section) => section.section_id === first.child_section_ids[0]);
    expect(sectionLines(roadmap)[1]).toBe(`  ${firstChild?.heading_text}`);
  });

  it.each([
    ['a path without .md', NOTE_PATH.replace(/\.md$/, ''), {}, 404, 'NOT_FOUND'],
    ['a traversal', '../x.md', {}, 400, 'INVALID_PATH'],
    ['a vault id that is not one', NOTE_PATH, { vaultId: 'no such vault!' }, 400, 'INVALID_VAULT'],
  ] as const)('%s is a KnowtationApiError with the documented status and code', async (_label, notePath, options, status, code) => {
    const error = await fetchSectionSource(workerUrl, await viewerToken(), notePath, options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KnowtationApiError);
    expect(error).toMatchObject({ status, code, message: `Knowtation Edge answered ${status} ${code}` });
  });

  it('a refused token is 401 UNAUTHORIZED', async () => {
    const error = await fetchSectionSource(workerUrl, 'not-a-token', NOTE_PATH).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('npm run example:frontend prints the note\'s sections nested; a refused token is its status and code, nothing echoed', async () => {
    const pkg = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['example:frontend']).toBe('node --import tsx examples/run-frontend-fetch.ts');
    const token = await viewerToken();
    const example = started('run-frontend-fetch.ts', [workerUrl, NOTE_PATH], { KNOWTATION_TOKEN: token });
    expect(await example.exitCode).toBe(0);
    const source = await fetchSectionSource(workerUrl, token, NOTE_PATH);
    expect(example.stdout()).toBe(`${[source.title ?? source.path, ...sectionLines(source)].join('\n')}\n`);
    expect(example.stderr()).toBe('');

    const foreign = await mintViewerToken('demo', 600, 'a-key-that-is-not-this-workers-session-secret');
    const refused = started('run-frontend-fetch.ts', [workerUrl], { KNOWTATION_TOKEN: foreign });
    expect(await refused.exitCode).toBe(1);
    expect(refused.stderr()).toBe('Knowtation Edge answered 401 UNAUTHORIZED\n');
    expect(refused.stdout()).toBe('');
  });

  it('sectionKey tells apart the sections that share a section_id across notes', () => {
    const a = buildContract('section_source', 'zh/笔记.md', {}, '## 标题\n');
    const b = buildContract('section_source', 'zh/日记.md', {}, '## 标题\n');
    expect(a.sections[0].section_id).toBe(b.sections[0].section_id);
    expect(sectionKey(a, a.sections[0])).not.toBe(sectionKey(b, b.sections[0]));
  });
});
