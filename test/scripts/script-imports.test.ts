/**
 * Layering of the tools beside the Worker: nothing in scripts/ imports from test/ (the tests
 * import scripts and their helpers, never the other way round), so the bench and the tools
 * run with the test tree absent. Code both need lives in scripts/lib/.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const IMPORT = /(?:from|import)\s*\(?\s*['"](\.[^'"]*)['"]/g;

/** Repository-relative targets of the relative imports in `text`, a file at `file`. */
function relativeImports(file: string, text: string): string[] {
  return [...text.matchAll(IMPORT)].map(([, specifier]) => path.relative(repoRoot, path.resolve(repoRoot, path.dirname(file), specifier)));
}

describe('scripts/ imports', () => {
  const files = readdirSync(path.join(repoRoot, 'scripts'), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|mts|mjs|js)$/.test(file))
    .map((file) => path.join('scripts', file));

  it('finds the scripts and their relative imports', () => {
    expect(files).toContain(path.join('scripts', 'bench.ts'));
    const targets = files.flatMap((file) => relativeImports(file, readFileSync(path.join(repoRoot, file), 'utf8')));
    expect(targets).toContain(path.join('src', 'contracts', 'registry'));
  });

  it('reads the import forms it checks, including one that climbs into test/', () => {
    expect(relativeImports('scripts/x.ts', "import { a } from '../test/support/y';\nconst b = await import('./lib/z.mjs');")).toEqual([
      path.join('test', 'support', 'y'),
      path.join('scripts', 'lib', 'z.mjs'),
    ]);
  });

  it('the bench reaches into src/ for nothing: it measures the Worker over HTTP', () => {
    const bench = files.filter((file) => file === path.join('scripts', 'bench.ts') || file.startsWith(path.join('scripts', 'bench') + path.sep));
    expect(bench.length).toBeGreaterThan(4);
    const intoSrc = bench.flatMap((file) =>
      relativeImports(file, readFileSync(path.join(repoRoot, file), 'utf8'))
        .filter((target) => target === 'src' || target.startsWith(`src${path.sep}`))
        .map((target) => `${file} -> ${target}`),
    );
    expect(intoSrc).toEqual([]);
  });

  it('none of them reaches into test/', () => {
    const intoTest = files.flatMap((file) =>
      relativeImports(file, readFileSync(path.join(repoRoot, file), 'utf8'))
        .filter((target) => target === 'test' || target.startsWith(`test${path.sep}`))
        .map((target) => `${file} -> ${target}`),
    );
    expect(intoTest).toEqual([]);
  });
});
