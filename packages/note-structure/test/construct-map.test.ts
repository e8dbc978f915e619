/**
 * The construct map in the package's README.md stays true: every file it names exists in src/,
 * every function, class, constant or field it names after a file is declared or used in that
 * file, every micromark module it names exists in node_modules, and every module of src/ is
 * named somewhere in the README.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const PACKAGE = path.resolve(__dirname, '..');
const SOURCES = path.join(PACKAGE, 'src');
const README = readFileSync(path.join(PACKAGE, 'README.md'), 'utf8');

/** The node_modules folder a package is installed in, as Node looks for it: the nearest one up from this package. */
function nodeModulesWith(name: string): string {
  for (let dir = PACKAGE; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules');
    if (existsSync(path.join(candidate, name))) return candidate;
    if (path.dirname(dir) === dir) return path.join(PACKAGE, 'node_modules');
  }
}
const NODE_MODULES = nodeModulesWith('micromark-core-commonmark');
const COMMONMARK_LIB = path.join(NODE_MODULES, 'micromark-core-commonmark/dev/lib');

/** The README's construct map: from its heading to the next `## ` heading. */
function constructMap(readme: string): string {
  const start = readme.indexOf('\n## Construct map');
  if (start < 0) return '';
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? readme.length : end);
}

/** The cells of every table row (header and separator rows left out). */
function tableRows(section: string): string[][] {
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| ---'))
    .map((line) =>
      line
        .slice(2, -2)
        .split(/ (?<!\\)\| /)
        .map((cell) => cell.trim()),
    )
    .filter((cells) => !['Construct', 'Extension'].includes(cells[0] as string));
}

const CODE = /`([^`]+)`/g;
const IDENTIFIER = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

/**
 * Each name a cell gives after a file, with that file: `file.ts` sets the file for the names that
 * follow it in the cell, identifiers are checked against it; other code (`>`, `\`) is not a name.
 */
function namesByFile(cell: string): { file: string; name: string | null }[] {
  const found: { file: string; name: string | null }[] = [];
  let file: string | null = null;
  for (const [, code] of cell.matchAll(CODE)) {
    const text = code as string;
    if (text.endsWith('.ts') || text.endsWith('.js')) {
      file = text;
      found.push({ file, name: null });
    } else if (file !== null && IDENTIFIER.test(text)) found.push({ file, name: text });
  }
  return found;
}

/** Where a file named in the map lives: src/ or node_modules (`micromark/...`). */
function resolveNamed(file: string): string {
  if (file.startsWith('micromark')) return path.join(NODE_MODULES, file);
  return path.join(SOURCES, file);
}

/** Whether `name` (dotted parts each) is a word of `source`. */
function mentions(source: string, name: string): boolean {
  return name.split('.').every((part) => new RegExp(`\\b${part.replace(/\$/g, '\\$')}\\b`).test(source));
}

/** What a cell of the micromark column names: a core module, a package, or a path in node_modules. */
function micromarkExists(name: string): boolean {
  if (name.includes('/')) return existsSync(path.join(NODE_MODULES, name));
  if (name.startsWith('micromark') || name.startsWith('mdast')) return existsSync(path.join(NODE_MODULES, name, 'package.json'));
  return existsSync(path.join(COMMONMARK_LIB, `${name}.js`));
}

/** Every wrong name in the map, as a short description. */
function mapErrors(readme: string): string[] {
  const errors = new Set<string>();
  const rows = tableRows(constructMap(readme));
  if (rows.length === 0) errors.add('no construct map');
  for (const cells of rows) {
    const [construct, second, third] = cells as [string, string, string?];
    const micromark = third === undefined ? '' : second;
    const handlers = third === undefined ? second : third;
    for (const [, name] of micromark.matchAll(CODE)) if (!micromarkExists(name as string)) errors.add(`${construct}: no micromark module ${name}`);
    for (const { file, name } of namesByFile(handlers)) {
      const where = resolveNamed(file);
      if (!existsSync(where)) {
        errors.add(`${construct}: no file ${file}`);
        continue;
      }
      if (name !== null && !mentions(readFileSync(where, 'utf8'), name)) errors.add(`${construct}: ${file} has no ${name}`);
    }
  }
  return [...errors];
}

describe('the construct map in the package README', () => {
  it('names only files, functions and micromark modules that exist', () => {
    expect(mapErrors(README)).toEqual([]);
  });

  it('finds a missing file, a name its file lacks and an unknown micromark module', () => {
    const broken = README.replace('`leaf-lines.ts` `isThematicBreak`', '`leaf-line.ts` `isThematicBreak`')
      .replace('`inline-code.ts` `BacktickRuns`', '`inline-code.ts` `BacktickRun2`')
      .replace('| `code-text` |', '| `code-txt` |');
    expect(mapErrors(broken)).toEqual([
      'Thematic break: no file leaf-line.ts',
      'Code span: no micromark module code-txt',
      'Code span: inline-code.ts has no BacktickRun2',
    ]);
    expect(mapErrors(README.replace('## Construct map', '## Something else'))).toEqual(['no construct map']);
  });

  it('names every module of src/', () => {
    const modules = readdirSync(SOURCES).filter((name) => name.endsWith('.ts'));
    expect(modules.length).toBeGreaterThan(20);
    expect(modules.filter((name) => !README.includes(`\`${name}\``))).toEqual([]);
  });
});
