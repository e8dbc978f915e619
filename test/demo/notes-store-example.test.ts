// The bring-your-own-store path as a user follows it (docs/STORE.md): examples/notes-store.mjs
// serving a scratch folder, and `npm start -- --canister-url <it>` pointing the local stack (the
// Worker under wrangler dev, in workerd) at it instead of the demo canister. Each answer through
// the Worker is compared byte for byte with the payload the contracts build from the same file
// split as the store splits it; the store's own refusals are checked on the wire.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContract } from '../../src/contracts';
import { DEV_CANISTER_AUTH_SECRET } from '../../scripts/dev-config.mjs';
import { freePort } from '../support/node/local-worker';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BANNER_END = 'Press Ctrl-C to stop.';
const BODY_SENTINEL = 'STORE-BODY-SENTINEL';
const PLAN_PATH = 'projects/Plan A.md';
const PLAN_BODY = `# Plan A\n\n${BODY_SENTINEL} paragraph.\n\n## Risks\n\n### Supply\n\n## Dates\n`;
const PLAN_FILE = `---\ntitle: Plan A\nproject: Aurora\ntags: [q3, "launch"]\nentity:\n  - Team North\n  - Team South\ndate: 2026-03-01\n---\n${PLAN_BODY}`;
const PLAN_FRONTMATTER = { title: 'Plan A', project: 'Aurora', tags: ['q3', 'launch'], entity: ['Team North', 'Team South'], date: '2026-03-01' };
const CJK_PATH = '日本/メモ.md';
const CJK_BODY = '# メモ\n\n## 課題\n';

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function run(args: string[], env: NodeJS.ProcessEnv = process.env): Running {
  const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitForOutput(running: Running, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  for (;;) {
    const match = pattern.exec(running.output());
    if (match) return match;
    if (running.child.exitCode !== null) throw new Error(`${what} exited early:\n${running.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(running: Running | undefined): Promise<number | null | undefined> {
  if (!running || running.child.exitCode !== null) return running?.child.exitCode;
  running.child.kill('SIGINT');
  return running.exited;
}

describe('examples/notes-store.mjs behind npm start -- --canister-url', () => {
  let folder: string;
  let store: Running;
  let stack: Running;
  let storeUrl: string;
  let token: string;
  const ports = { worker: 0, explorer: 0, auth: 0 };

  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'notes-store-'));
    await mkdir(path.join(folder, 'projects'));
    await mkdir(path.join(folder, '日本'));
    await mkdir(path.join(folder, '.hidden'));
    await writeFile(path.join(folder, PLAN_PATH), PLAN_FILE);
    await writeFile(path.join(folder, CJK_PATH), CJK_BODY);
    await writeFile(path.join(folder, '.hidden', 'private.md'), '# Private\n');
    const outside = await mkdtemp(path.join(tmpdir(), 'notes-store-outside-'));
    await writeFile(path.join(outside, 'secret.md'), '# Secret\n');
    await symlink(outside, path.join(folder, 'linked'));

    store = run([path.join(repoRoot, 'examples', 'notes-store.mjs'), folder, '--port', '0'], { ...process.env, CANISTER_AUTH_SECRET: DEV_CANISTER_AUTH_SECRET });
    storeUrl = (await waitForOutput(store, /at (http:\/\/127\.0\.0\.1:\d+) /, 'the notes store'))[1]!;

    ports.worker = await freePort();
    ports.explorer = await freePort();
    ports.auth = await freePort();
    const portFlags = { '--port': ports.worker, '--explorer-port': ports.explorer, '--auth-port': ports.auth };
    const startArgs = ['--canister-url', storeUrl, ...Object.entries(portFlags).flatMap(([flag, port]) => [flag, String(port)])];
    stack = run(['--import', 'tsx', path.join(repoRoot, 'scripts', 'start.mjs'), ...startArgs]);
    await waitForOutput(stack, new RegExp(BANNER_END.replace('.', '\\.')), 'npm start');
    token = (await waitForOutput(stack, /\n {2}export TOKEN=(\S+)\n/, 'npm start'))[1]!;
  }, 180_000);

  afterAll(async () => {
    await stop(stack);
    await stop(store);
    await rm(folder, { recursive: true, force: true });
  });

  const rest = (route: string, notePath: string) =>
    fetch(`http://127.0.0.1:${ports.worker}/api/v1/${route}?path=${encodeURIComponent(notePath)}`, { headers: { Authorization: `Bearer ${token}` } });
  const fromStore = (notePath: string, headers: Record<string, string> = { 'X-Gateway-Auth': DEV_CANISTER_AUTH_SECRET }) =>
    fetch(`${storeUrl}/api/v1/notes/${encodeURIComponent(notePath)}`, { headers });

  it('the banner names the store instead of a demo canister, and the explorer lists nothing', async () => {
    expect(stack.output()).toContain(`Notes store:     ${storeUrl}   (yours: the Worker reads one path per request from it; it lists nothing)`);
    expect(stack.output()).not.toContain('Demo canister:');
    const session = (await (await fetch(`http://127.0.0.1:${ports.explorer}/session.json`)).json()) as { notes: string[] };
    expect(session.notes).toEqual([]);
  });

  it('serves each contract for a note of the folder, byte for byte what the contracts build from it', async () => {
    for (const [route, contract] of [
      ['note-outline', 'note_outline'],
      ['document-tree', 'document_tree'],
      ['section-source', 'section_source'],
      ['metadata-facets', 'metadata_facets'],
    ] as const) {
      const response = await rest(route, PLAN_PATH);
      const text = await response.text();
      expect(response.status, `${route}: ${text}`).toBe(200);
      expect(text).toBe(JSON.stringify(buildContract(contract, PLAN_PATH, PLAN_FRONTMATTER, PLAN_BODY)));
      expect(text).not.toContain(BODY_SENTINEL);
    }
    const facets = (await (await rest('metadata-facets', PLAN_PATH)).json()) as { facets: Record<string, unknown> };
    expect(facets.facets).toMatchObject({ project: 'aurora', tags: ['q3', 'launch'], entity: ['team-north', 'team-south'], date: '2026-03-01' });
    const cjk = await rest('note-outline', CJK_PATH);
    expect(await cjk.text()).toBe(JSON.stringify(buildContract('note_outline', CJK_PATH, {}, CJK_BODY)));
  });

  it('a note the store does not have, or will not serve, is 404 NOT_FOUND through the Worker', async () => {
    for (const notePath of ['projects/missing.md', '.hidden/private.md', 'linked/secret.md']) {
      const response = await rest('note-outline', notePath);
      expect(response.status, notePath).toBe(404);
      expect(await response.json()).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
    }
  });

  it('the store answers the contract on the wire: the path asked for, frontmatter as JSON text, and refusals', async () => {
    const note = await fromStore(PLAN_PATH);
    expect(note.status).toBe(200);
    const answer = (await note.json()) as { path: string; frontmatter: string; body: string };
    expect(answer).toEqual({ path: PLAN_PATH, frontmatter: JSON.stringify(PLAN_FRONTMATTER), body: PLAN_BODY });
    // Without the Worker's X-Gateway-Auth (or with another value) the store refuses: 403, which the Worker answers as FORBIDDEN.
    expect((await fromStore(PLAN_PATH, {})).status).toBe(403);
    expect((await fromStore(PLAN_PATH, { 'X-Gateway-Auth': `${DEV_CANISTER_AUTH_SECRET}x` })).status).toBe(403);
    // Paths the Worker never sends are refused by the store too: traversal, hidden files, links out of the folder.
    for (const notePath of ['../outside.md', 'projects/../projects/Plan A.md', '.hidden/private.md', 'linked/secret.md', '/etc/hostname.md']) {
      expect((await fromStore(notePath)).status, notePath).toBe(404);
    }
  });

  it('Ctrl-C stops the stack (the store keeps running: it is not npm start\'s)', async () => {
    expect(await stop(stack)).toBe(0);
    expect((await fromStore(PLAN_PATH)).status).toBe(200);
  });
});
