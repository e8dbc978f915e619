// `npm start -- --vault <dir>` as a new user runs it: scripts/start.mjs as a child process on free
// ports with a scratch folder of notes (one of them not UTF-8), until its banner is printed; then
// the commands it printed are followed (the REST route with the printed token, the explorer page's
// session) and Ctrl-C (SIGINT) stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { freePort } from '../support/node/local-worker';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWithOAuth } from '../support/node/oauth-client';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BANNER_END = 'Press Ctrl-C to stop.';


describe('npm start -- --vault <folder>', () => {
  let vaultDir: string;
  let child: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;
  const ports = { worker: 0, canister: 0, explorer: 0, auth: 0, hub: 0 };

  beforeAll(async () => {
    vaultDir = await mkdtemp(path.join(tmpdir(), 'start-own-notes-'));
    await mkdir(path.join(vaultDir, 'work', 'Q3 plans'), { recursive: true });
    await writeFile(path.join(vaultDir, 'work', 'Q3 plans', 'launch.md'), '---\ntitle: Launch\ntags: [q3, launch]\n---\n# Launch\n## Risks\n### Supply\n## Dates\n');
    await writeFile(path.join(vaultDir, 'inbox.md'), '# Inbox\n');
    await writeFile(path.join(vaultDir, 'legacy-latin1.md'), Buffer.from([0x23, 0x20, 0x43, 0x61, 0x66, 0xe9, 0x0a]));
    ports.worker = await freePort();
    ports.canister = await freePort();
    ports.explorer = await freePort();
    ports.auth = await freePort();
    ports.hub = await freePort();
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(repoRoot, 'scripts', 'start.mjs'),
        '--vault', vaultDir,
        '--port', String(ports.worker),
        '--canister-port', String(ports.canister),
        '--explorer-port', String(ports.explorer),
        '--auth-port', String(ports.auth),
        '--hub-port', String(ports.hub),
        // The consent page is for people; the banner's OAuth recipe is followed here by a scripted client.
        '--auto-approve',
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        if (output.includes(BANNER_END)) {
          clearInterval(check);
          resolve();
        } else if (child.exitCode !== null) {
          clearInterval(check);
          reject(new Error(`npm start exited early:\n${output}`));
        }
      }, 100);
    });
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGINT');
      await exited;
    }
    await rm(vaultDir, { recursive: true, force: true });
  });

  it('names the skipped file, lists the vault paths and prints the explorer URL', () => {
    expect(output).toContain('legacy-latin1.md: not valid UTF-8');
    expect(output).toContain('with 2 notes');
    expect(output).toMatch(/Some note paths:\n {2}inbox\.md\n {2}work\/Q3 plans\/launch\.md\n/);
    expect(output).toContain(`Explorer page:   http://127.0.0.1:${ports.explorer}/`);
    expect(output).toMatch(/Waiting for the Worker at /);
  });

  it('the printed REST command works with the printed token', async () => {
    // The token is printed once; every command reads it from $TOKEN.
    const token = /\n {2}export TOKEN=(\S+)\n/.exec(output)?.[1];
    expect(output.split(token ?? 'no token printed').length - 1).toBe(1);
    expect(output).not.toMatch(/\.\.\/tmp\/|\/tmp\/knowtation/);
    expect(token).toBeDefined();
    const line = output.split('\n').find((text) => text.includes('/api/v1/note-outline?path='));
    const url = /"(http:\/\/[^"]+)"/.exec(line ?? '')?.[1];
    expect(url).toBe(`http://127.0.0.1:${ports.worker}/api/v1/note-outline?path=inbox.md`);
    const response = await fetch(`http://127.0.0.1:${ports.worker}/api/v1/note-outline?path=${encodeURIComponent('work/Q3 plans/launch.md')}`, {
      headers: { Authorization: `Bearer ${token}`, Origin: `http://127.0.0.1:${ports.explorer}` },
    });
    expect(response.status).toBe(200);
    // ENVIRONMENT=local grants loopback origins, so the explorer page may call the Worker.
    expect(response.headers.get('access-control-allow-origin')).toBe(`http://127.0.0.1:${ports.explorer}`);
    const outline = (await response.json()) as { title: string; headings: Array<{ level: number; text: string }> };
    expect(outline.title).toBe('Launch');
    expect(outline.headings.map((heading) => `${heading.level} ${heading.text}`)).toEqual(['1 Launch', '2 Risks', '3 Supply', '2 Dates']);
    const skipped = await fetch(`http://127.0.0.1:${ports.worker}/api/v1/note-outline?path=legacy-latin1.md`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(skipped.status).toBe(404);
  });

  it("the printed member token reads the demo user's workspace through the Hub stand-in", async () => {
    const memberToken = /\n {2}export MEMBER_TOKEN=(\S+)\n/.exec(output)?.[1];
    expect(output).toContain(`Hub stand-in:    http://127.0.0.1:${ports.hub}/api/v1/hosted-context`);
    expect(memberToken).toBeDefined();
    // The example note of this vault is at its root, so the member has no folder scope: every note reads.
    expect(output).toContain("the notes of 'demo', all of them");
    const response = await fetch(`http://127.0.0.1:${ports.worker}/api/v1/note-outline?path=${encodeURIComponent('work/Q3 plans/launch.md')}`, {
      headers: { Authorization: `Bearer ${memberToken}` },
    });
    expect(response.status).toBe(200);
  });

  it("the banner's OAuth recipe: the MCP SDK v2 client connects with no token handed in and calls a tool", async () => {
    const mcpUrl = `http://127.0.0.1:${ports.worker}/mcp`;
    expect(output).toContain(`MCP URL: ${mcpUrl}`);
    expect(output).toContain(`OAuth server:    http://127.0.0.1:${ports.auth}`);
    const { client } = await connectWithOAuth(new URL(mcpUrl), { mode: 'auto' });
    try {
      const result = (await client.callTool({ name: 'get_note_outline', arguments: { path: 'inbox.md' } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { headings: Array<{ text: string }> }).headings[0].text).toBe('Inbox');
    } finally {
      await client.close();
    }
  });

  it('the explorer page server offers the vault paths', async () => {
    const session = (await (await fetch(`http://127.0.0.1:${ports.explorer}/session.json`)).json()) as { workerUrl: string; notes: string[] };
    expect(session.workerUrl).toBe(`http://127.0.0.1:${ports.worker}`);
    expect(session.notes).toEqual(['inbox.md', 'work/Q3 plans/launch.md']);
  });

  it('Ctrl-C stops wrangler, the explorer, the Hub stand-in, the authorization server and the canister, exit 0', async () => {
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('npm start: stopped.');
    await expect(fetch(`http://127.0.0.1:${ports.explorer}/`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${ports.auth}/.well-known/oauth-authorization-server`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${ports.hub}/api/v1/hosted-context`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${ports.worker}/health`)).rejects.toThrow();
  });
});
