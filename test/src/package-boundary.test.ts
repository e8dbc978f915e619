/**
 * The note-structure engine (packages/note-structure) and the rest of the repository meet at one
 * arrow: code outside the package imports it only by its name, `@knowtation/note-structure`, whose
 * one entry point is the package's src/index.ts (its package.json `exports`), never a path inside
 * it; and the package imports nothing of the repository outside itself. The Worker (src/) imports
 * nothing outside src/ but packages by name, and no Markdown parser. Read from the source text of
 * every tracked code file: static, dynamic and type-only imports and re-exports.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGE_DIR = 'packages/note-structure';
const PACKAGE_NAME = '@knowtation/note-structure';
const SPECIFIER = /(?:\bimport\b[\s\w{},*$]*?\bfrom\s*|\bexport\b[\s\w{},*$]*?\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g;

/** Every module specifier a source names in an import or re-export. */
function specifiers(source: string): string[] {
  return [...source.matchAll(SPECIFIER)].map((match) => match[1] as string);
}

/** Repository-relative path a relative specifier of `file` points to, or null for a package name. */
function target(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
}

const inPackage = (file: string): boolean => file === PACKAGE_DIR || file.startsWith(`${PACKAGE_DIR}/`);

/** The imports of `file` (repository-relative) that cross the boundary the wrong way. */
function crossings(file: string, source: string): string[] {
  const wrong: string[] = [];
  for (const specifier of specifiers(source)) {
    const to = target(file, specifier);
    if (inPackage(file)) {
      if (to !== null && !inPackage(to)) wrong.push(`${file} -> ${specifier} (the package imports nothing outside itself)`);
      continue;
    }
    if (to !== null && inPackage(to)) wrong.push(`${file} -> ${specifier} (a path inside the package)`);
    if (specifier.startsWith(`${PACKAGE_NAME}/`)) wrong.push(`${file} -> ${specifier} (not the entry point)`);
    if (file.startsWith('src/')) {
      if (to !== null && !to.startsWith('src/')) wrong.push(`${file} -> ${specifier} (outside src)`);
      if (/^(micromark|mdast|mdast-util-[a-z-]+)$/.test(specifier)) wrong.push(`${file} -> ${specifier} (a Markdown parser)`);
    }
  }
  return wrong;
}

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' })
  .split('\n')
  .filter((file) => /\.(ts|mts|cts|mjs|cjs|js)$/.test(file) && !file.includes('node_modules/'));

describe('the boundary between the note-structure engine and the rest of the repository', () => {
  it('reads the import forms it checks and tells each wrong crossing', () => {
    // Built from PACKAGE_NAME, so that this file's own text holds no subpath import.
    const source = [
      `import { analyzeNote } from '${PACKAGE_NAME}';`,
      `import type { NoteStructure } from '${PACKAGE_NAME}/src/structure';`,
      "export { scanBlocks } from '../packages/note-structure/src/block-scan';",
      "const oracle = await import('../packages/note-structure/dev/oracle');",
      "import '../packages/note-structure/src/index';",
      "import { fromMarkdown } from 'mdast-util-from-markdown';",
      "import { loadConfig } from '../scripts/lib/cli.mjs';",
    ].join('\n');
    expect(specifiers(source)).toHaveLength(7);
    expect(crossings('src/contracts.ts', source)).toEqual([
      'src/contracts.ts -> @knowtation/note-structure/src/structure (not the entry point)',
      'src/contracts.ts -> ../packages/note-structure/src/block-scan (a path inside the package)',
      'src/contracts.ts -> ../packages/note-structure/src/block-scan (outside src)',
      'src/contracts.ts -> ../packages/note-structure/dev/oracle (a path inside the package)',
      'src/contracts.ts -> ../packages/note-structure/dev/oracle (outside src)',
      'src/contracts.ts -> ../packages/note-structure/src/index (a path inside the package)',
      'src/contracts.ts -> ../packages/note-structure/src/index (outside src)',
      'src/contracts.ts -> mdast-util-from-markdown (a Markdown parser)',
      'src/contracts.ts -> ../scripts/lib/cli.mjs (outside src)',
    ]);
    expect(crossings(`${PACKAGE_DIR}/test/x.test.ts`, "import { buildContract } from '../../../src/contracts';\nimport { a } from './support/a';")).toEqual([
      `${PACKAGE_DIR}/test/x.test.ts -> ../../../src/contracts (the package imports nothing outside itself)`,
    ]);
  });

  it('holds in every code file: outside the package only the entry point, inside it nothing outside', () => {
    expect(files).toContain('src/contracts/registry.ts');
    expect(files).toContain(`${PACKAGE_DIR}/src/index.ts`);
    const wrong = files.flatMap((file) => crossings(file, readFileSync(path.join(repoRoot, file), 'utf8')));
    expect(wrong).toEqual([]);
  });

  it('has the Worker import the engine, by name, and the package export one entry point', () => {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, PACKAGE_DIR, 'package.json'), 'utf8')) as { name: string; exports: unknown };
    expect(manifest.name).toBe(PACKAGE_NAME);
    expect(manifest.exports).toEqual({ '.': './src/index.ts' });
    const importers = files.filter((file) => file.startsWith('src/') && specifiers(readFileSync(path.join(repoRoot, file), 'utf8')).includes(PACKAGE_NAME));
    expect(importers).toContain('src/contracts/registry.ts');
  });
});
