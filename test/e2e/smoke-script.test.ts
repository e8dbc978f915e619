// Runs scripts/smoke.mjs as a child process, exactly as an operator runs `npm run smoke -- ...`,
// against the e2e Worker: all checks pass with a valid token, and a bad token makes it fail loudly.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { mintViewerToken } from '../../scripts/token.mjs';
import { CONTRACTS } from '../../src/contracts/registry';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const script = path.join(repoRoot, 'scripts', 'smoke.mjs');
const workerUrl = inject('workerUrl');

/** Routes and tools the smoke run must cover: health, 2 metadata documents, each contract's REST route, 2 refusals, initialize, tools/list, each contract's tool call. */
const EXPECTED_CHECKS = [
  'GET /health',
  'GET /.well-known/oauth-protected-resource',
  'GET /.well-known/oauth-protected-resource/mcp',
  ...CONTRACTS.map((contract) => `GET ${contract.route}`),
  'REST without a token is refused (401 UNAUTHORIZED)',
  'REST traversal path is refused (400 INVALID_PATH, no echo)',
  'MCP initialize',
  'MCP tools/list',
  ...CONTRACTS.map((contract) => `MCP tools/call ${contract.tool}`),
];

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runSmoke(args: string[]): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { cwd: repoRoot, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

describe('npm run smoke against the e2e Worker', () => {
  it('passes every check with a valid token and exits 0', async () => {
    const token = await mintViewerToken('demo', 600, inject('sessionSecret'));
    const run = await runSmoke(['--base', workerUrl, '--token', token]);
    const output = lines(run.stdout);
    const summary = output.pop();
    expect(output).toEqual(EXPECTED_CHECKS.map((check) => `PASS ${check}`));
    expect(summary).toBe(`OK: ${EXPECTED_CHECKS.length} passed, 0 failed against ${workerUrl}`);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(token);
  });

  it('passes for a note whose path needs percent-encoding, in an explicit vault', async () => {
    const token = await mintViewerToken('demo', 600, inject('sessionSecret'));
    const run = await runSmoke(['--base', `${workerUrl}/`, '--token', token, '--path', 'projects/Tidal Garden/planting plan.md', '--vault', 'default']);
    expect(lines(run.stdout).filter((line) => !line.startsWith('PASS '))).toEqual([
      `OK: ${EXPECTED_CHECKS.length} passed, 0 failed against ${workerUrl}`,
    ]);
    expect(run.code).toBe(0);
  });

  it('fails with exit 1 and a FAIL line per authenticated check when the token is not accepted', async () => {
    const forged = await mintViewerToken('demo', 600, `some-other-signing-key-${'y'.repeat(32)}`);
    const run = await runSmoke(['--base', workerUrl, '--token', forged]);
    expect(run.code).toBe(1);
    const output = lines(run.stdout);
    const summary = output.pop();
    expect(output).toHaveLength(EXPECTED_CHECKS.length);
    const failedChecks = output.filter((line) => line.startsWith('FAIL ')).map((line) => line.slice(5, line.indexOf(': ')));
    // Only the unauthenticated routes and the no-token refusal can pass.
    expect(output.filter((line) => line.startsWith('PASS '))).toEqual([
      'PASS GET /health',
      'PASS GET /.well-known/oauth-protected-resource',
      'PASS GET /.well-known/oauth-protected-resource/mcp',
      'PASS REST without a token is refused (401 UNAUTHORIZED)',
    ]);
    expect(failedChecks).toContain('GET /api/v1/section-source');
    expect(failedChecks).toContain('MCP tools/call get_note_outline');
    expect(output.find((line) => line.startsWith('FAIL GET /api/v1/note-outline'))).toMatch(/got 401 .*UNAUTHORIZED/);
    expect(summary).toBe(`FAILED: 4 passed, ${EXPECTED_CHECKS.length - 4} failed against ${workerUrl}`);
  });

  it('rejects an unknown option with exit 2 and prints no check', async () => {
    const run = await runSmoke(['--base', workerUrl, '--no-such-option']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/Unknown option/);
  });
});
