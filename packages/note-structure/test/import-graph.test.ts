/**
 * The engine's modules import each other without a circle, type-only imports and re-exports
 * included: a circle means a type or a piece of state sits in a file other than the one that owns it
 * (the README's construct map then points to the wrong place), and an ES module in a circle can be
 * read before it has run. The graph is read from the source text: every `import … from './x'`,
 * `import type … from './x'` and `export … from './x'` of a .ts file in src/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ANALYSIS = path.resolve(__dirname, '../src');

/** Every relative module specifier a source names in an import or re-export (static, dynamic or type-only). */
function localImports(source: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:\bimport\b[\s\w{},*]*?\bfrom\s*|\bexport\b[\s\w{},*]*?\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const match of source.matchAll(pattern)) specifiers.push(match[1] as string);
  return specifiers;
}

/** module name (file name without .ts) -> the analysis modules it imports. */
function analysisGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(ANALYSIS).filter((name) => name.endsWith('.ts'))) {
    const imports = localImports(readFileSync(path.join(ANALYSIS, file), 'utf8'))
      .filter((specifier) => specifier.startsWith('./'))
      .map((specifier) => specifier.slice(2).replace(/\.ts$/, ''));
    graph.set(file.replace(/\.ts$/, ''), imports);
  }
  return graph;
}

/**
 * The import circles of a graph: its strongly connected components of more than one module, or of one
 * that imports itself, each sorted, in the order of their smallest names (Tarjan's algorithm; iterative).
 */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const frames: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, index.size);
    low.set(root, index.get(root) as number);
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as { node: string; next: number };
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const next = edges[frame.next++] as string;
        if (!index.has(next)) {
          index.set(next, index.size);
          low.set(next, index.get(next) as number);
          stack.push(next);
          onStack.add(next);
          frames.push({ node: next, next: 0 });
        } else if (onStack.has(next)) low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(next) as number));
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      for (;;) {
        const member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
        if (member === frame.node) break;
      }
      if (component.length > 1 || edges.includes(frame.node)) found.push(component.sort());
    }
  }
  return found.sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1));
}

describe('engine import graph', () => {
  it('reads every kind of local import and re-export, and no package import', () => {
    const source = [
      "import * as chars from './chars';",
      "import type { KeyIndex } from './inline-labels';",
      "import { BacktickRuns, type X } from './inline-code';",
      "export { normalizeLabel } from './inline-labels';",
      "export type { InlineText } from './inline-edits';",
      "export * from './structure';",
      "import { analyzeWithMdast } from '../dev/oracle';",
      "import { classifyCharacter } from 'micromark-util-classify-character';",
    ].join('\n');
    expect(localImports(source)).toEqual(['./chars', './inline-labels', './inline-code', './inline-labels', './inline-edits', './structure', '../dev/oracle']);
  });

  it('finds a circle of two, one of three, a module importing itself, and none in a chain or a diamond', () => {
    const graph = new Map([
      ['e', ['c']],
      ['a', ['b']],
      ['b', ['a', 'c']],
      ['c', ['d']],
      ['d', ['e']],
      ['f', ['a', 'f']],
    ]);
    expect(circles(graph)).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
      ['f'],
    ]);
    expect(circles(new Map([['a', ['b', 'c']], ['b', ['d']], ['c', ['d']], ['d', []]]))).toEqual([]);
  });

  it('has no circle in src, type-only imports included', () => {
    const graph = analysisGraph();
    expect(graph.size).toBeGreaterThan(20);
    expect(circles(graph)).toEqual([]);
  });
});
