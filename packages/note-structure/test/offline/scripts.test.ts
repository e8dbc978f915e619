/**
 * The offline differential runs take their options strictly: `--help` prints the usage and
 * runs nothing (the inline run's default is 500,000 cases), an unknown option or a bad count
 * is a usage error (exit 2), and a small run ends with its `mismatches: 0` line. Each is run
 * as its npm script (the package's package.json) runs it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const npmScripts: Record<string, string> = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')).scripts;

/** The npm script's `node ...` command, run with this Node. */
function run(script: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const [command, ...nodeArgs] = npmScripts[script].split(' ');
  expect(command).toBe('node');
  const child = spawnSync(process.execPath, [...nodeArgs, ...args], {
    cwd: packageRoot,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe.each(['differential', 'differential:inline'])('npm run %s', { timeout: 120_000 }, (script) => {
  it('runs a file under test/offline', () => {
    expect(npmScripts[script]).toMatch(/^node --import tsx test\/offline\/[a-z-]+\.ts$/);
  });

  it('prints its usage for --help and compares nothing', () => {
    const { status, stdout } = run(script, '--help');
    expect(status).toBe(0);
    expect(stdout).toMatch(new RegExp(`^usage: npm run ${script} -- .*--count N`));
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
