// scripts/openapi-types.mjs, which `npm run typecheck` runs with --check: the committed client types
// are what openapi-typescript gives for openapi.yaml, and a file that differs by one line fails.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const script = path.join(repoRoot, 'scripts', 'openapi-types.mjs');

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, ...args], { cwd: repoRoot }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

describe('npm run openapi-types', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'openapi-types-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the committed examples/generated/openapi.d.ts is current', async () => {
    expect(await run(['--check'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('writes a file that --check accepts, and refuses it once a line differs or it is missing', async () => {
    const out = path.join(dir, 'openapi.d.ts');
    expect((await run(['--out', out])).code).toBe(0);
    const generated = await readFile(out, 'utf8');
    expect(generated).toBe(await readFile(path.join(repoRoot, 'examples', 'generated', 'openapi.d.ts'), 'utf8'));
    expect(generated).toContain('"/api/v1/section-source"');
    expect((await run(['--check', '--out', out])).code).toBe(0);

    await writeFile(out, generated.replace('body_available: boolean;', 'body_available: string;'));
    const stale = await run(['--check', '--out', out]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/is not what openapi\.yaml gives: run npm run openapi-types/);

    const missing = await run(['--check', '--out', path.join(dir, 'absent.d.ts')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/is missing/);
  });
});
