// Runs scripts/start.mjs as a child process for the command-line paths that must answer at once and
// start nothing: --help, unknown options, a --vault that is not a folder, bad ports. The full
// `npm start -- --vault <dir>` run is covered by test/e2e/start-script.test.ts.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const script = path.join(repoRoot, 'scripts', 'start.mjs');

function runStart(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { cwd: repoRoot, timeout: 20_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

describe('scripts/start.mjs command line', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'start-script-'));
    await writeFile(path.join(scratch, 'a-file.md'), '# not a folder\n');
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it.each([['--help'], ['-h']])('%s prints every option on stdout and exits 0 without starting anything', async (flag) => {
    const result = await runStart([flag]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    for (const option of ['--vault <dir>', '--canister-url <url>', '--env <name>', '--port <n>', '--canister-port <n>', '--explorer-port <n>', '--auth-port <n>', '--hub-port <n>', '--auto-approve', '--help']) {
      expect(result.stdout).toContain(option);
    }
    expect(result.stdout).not.toMatch(/Loading notes|Waiting for the Worker/);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['positional'], /positional/],
    [['--vault'], /--vault/],
    [['--vault', path.join('/nonexistent', 'vault-folder')], /--vault .*: not a folder/],
    [['--port', 'eighty'], /--port must be a port number/],
    [['--port', '70000'], /--port must be a port number/],
    [['--port', '9000', '--explorer-port', '9000'], /must differ/],
    [['--auth-port', '8787'], /must differ/],
    [['--auth-port', '0'], /--auth-port must be a port number/],
    [['--hub-port', '8790'], /must differ/],
    [['--hub-port', '70000'], /--hub-port must be a port number/],
    [['--env', 'bad env!'], /--env must be a wrangler environment name/],
    [['--canister-url', 'ftp://store.example'], /--canister-url must be an http:\/\/ or https:\/\/ URL/],
    [['--canister-url', 'http://127.0.0.1:9/?q=1'], /--canister-url must be an http:\/\/ or https:\/\/ URL without query/],
    [['--canister-url', 'http://127.0.0.1:9', '--vault', '.'], /--canister-url replaces the demo canister/],
    [['--canister-url', 'http://127.0.0.1:9', '--canister-port', '9001'], /--canister-url replaces the demo canister/],
  ])('%j is a usage error: message and usage on stderr, exit 2, nothing started', async (args, message) => {
    const result = await runStart(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: npm start -- [options]');
  });

  it('a --vault that is a file is a usage error', async () => {
    const result = await runStart(['--vault', path.join(scratch, 'a-file.md')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not a folder/);
  });
});
