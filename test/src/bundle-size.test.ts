// The deployed bundle's size, as wrangler builds and measures it (`wrangler deploy --dry-run`): an
// isolate loads and compiles all of it before its first request, so it has a fixed bound. Size is
// deterministic; startup CPU and first-request latency are measured by `npm run bench`.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The bound on the gzip size wrangler reports for the upload: the MCP SDK, zod and the entity table
 * are most of it (docs/PERFORMANCE.md, The bundle).
 */
const MAX_GZIP_KIB = 150;

const repoRoot = path.resolve(import.meta.dirname, '../..');
const wranglerBin = path.join(repoRoot, 'node_modules/wrangler/bin/wrangler.js');

interface Metafile {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

let outdir = '';
let report = '';
let metafile: Metafile;

beforeAll(async () => {
  outdir = await mkdtemp(path.join(tmpdir(), 'kt-bundle-'));
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [wranglerBin, 'deploy', '--dry-run', '--env', '', '--outdir', outdir, '--metafile', path.join(outdir, 'meta.json')],
    { cwd: repoRoot, env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', FORCE_COLOR: '0' } },
  );
  report = `${stdout}\n${stderr}`;
  metafile = JSON.parse(await readFile(path.join(outdir, 'meta.json'), 'utf8')) as Metafile;
}, 120_000);

afterAll(async () => {
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

/** The largest inputs of the bundle, by package (or source file), for a failure message. */
function largestInputs(): string {
  const sizes = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [file, { bytesInOutput }] of Object.entries(output.inputs ?? {})) {
      const parts = file.split('node_modules/').pop()!.split('/');
      const key = file.includes('node_modules/') ? parts.slice(0, parts[0]!.startsWith('@') ? 2 : 1).join('/') : file;
      sizes.set(key, (sizes.get(key) ?? 0) + bytesInOutput);
    }
  }
  return [...sizes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([key, bytes]) => `${(bytes / 1024).toFixed(1).padStart(7)} KiB  ${key}`)
    .join('\n');
}

describe('the deployed bundle', () => {
  it(`is at most ${MAX_GZIP_KIB} KiB gzip, as wrangler reports the upload`, () => {
    const upload = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(report);
    expect(upload, report).not.toBeNull();
    const gzipKiB = Number(upload![2]);
    expect(gzipKiB, `bundle is ${gzipKiB} KiB gzip; largest inputs:\n${largestInputs()}`).toBeLessThanOrEqual(MAX_GZIP_KIB);
  });

  it('carries no zod locale and no JSON Schema validator library', () => {
    // Files esbuild read but shook out entirely do not count: only what reached the output.
    const inputs = Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs ?? {})
        .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
        .map(([file]) => file),
    );
    // zod's locales come in only when its whole namespace is taken as a value (`import { z } from 'zod'`).
    expect(inputs.filter((file) => /zod\/v4\/locales\/(?!en\.js$|index\.js$)/.test(file))).toEqual([]);
    // The SDK's own workerd validator carries a copy of @cfworker/json-schema; wrangler.toml's alias replaces it.
    expect(inputs.filter((file) => /@modelcontextprotocol\/server\/dist\/(cfWorkerProvider|shimsWorkerd)/.test(file))).toEqual([]);
    expect(inputs).toContain('src/http/mcp-sdk-runtime.ts');
    // The bridge's output check reads only the keywords of our own schemas (src/contracts/output-conformance.ts).
    expect(inputs.filter((file) => file.includes('@cfworker/json-schema'))).toEqual([]);
    expect(inputs).toContain('src/contracts/output-conformance.ts');
  });
});
