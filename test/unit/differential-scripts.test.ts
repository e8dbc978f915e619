/**
 * The offline differential scripts take their options strictly: `--help` prints the usage and
 * runs nothing (the inline script's default is 500,000 cases), an unknown option or a bad count
 * is a usage error (exit 2), and a small run ends with its `mismatches: 0` line.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function run(script: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts', script), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe.each(['differential.ts', 'differential-inline.ts'])('scripts/%s options', { timeout: 120_000 }, (script) => {
  it('prints its usage for --help and compares nothing', () => {
    const { status, stdout } = run(script, '--help');
    expect(status).toBe(0);
    expect(stdout).toMatch(/^usage: .*--count N/);
    expect(stdout).not.toContain('mismatches');
  });

  const refused = [['--bogus'], ['--count'], ['--count', 'ten'], ['--count=-1'], ['--seed', '1.5']];
  it.each(refused.map((args) => [args.join(' '), args] as const))("refuses '%s' with its usage (exit 2)", (_, args) => {
    const { status, stdout, stderr } = run(script, ...args);
    expect(status).toBe(2);
    expect(stderr).toContain('usage: ');
    expect(stdout).not.toContain('mismatches');
  });

  it('runs a small fixed-seed count to its mismatches line', () => {
    const { status, stdout } = run(script, '--count', '20', '--seed', '7');
    expect(status).toBe(0);
    expect(stdout.trim().split('\n').at(-1)).toBe('mismatches: 0');
  });
});
