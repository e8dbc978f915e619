import { describe, expect, it } from 'vitest';
import { buildContract, type TreeNode } from '../../../src/contracts';

const PATH = 'notes/tree.md';
/** A compact picture of the tree: text, and children in braces. */
function shape(nodes: TreeNode[]): string {
  return nodes.map((n) => (n.children.length ? `${n.text}{${shape(n.children)}}` : n.text)).join(', ');
}
const treeShape = (body: string): string => shape(buildContract('document_tree', PATH, {}, body).root.children);

describe('DocumentTree nesting (openapi.yaml DocumentTree)', () => {
  it('attaches skipped levels to the nearest shallower heading and keeps real levels', () => {
    const tree = buildContract('document_tree', PATH, {}, '# A\n### B\n## C\n# D\n');
    expect(shape(tree.root.children)).toBe('A{B, C}, D');
    const [a, d] = tree.root.children;
    expect(a.children.map((n) => n.level)).toEqual([3, 2]);
    expect(a.level).toBe(1);
    expect(d.level).toBe(1);
  });

  it('makes same-level headings siblings and deeper ones children', () => {
    expect(treeShape('# A\n## B\n## C\n### D\n## E\n')).toBe('A{B, C{D}, E}');
  });

  it('lets a shallower heading close every deeper open branch', () => {
    expect(treeShape('# A\n## B\n### C\n#### D\n## E\n')).toBe('A{B{C{D}}, E}');
  });

  it('puts leading deeper headings at the root when nothing shallower precedes them', () => {
    expect(treeShape('### A\n## B\n#### C\n# D\n')).toBe('A, B{C}, D');
  });

  it('nests headings from blockquotes and lists by level, like any other', () => {
    expect(treeShape('# A\n\n> ## Quoted\n\n- ### Listed\n')).toBe('A{Quoted{Listed}}');
  });

  it('copies ids, levels and texts of the outline, with id first in each node', () => {
    const body = '# A\n## B\n';
    const outline = buildContract('note_outline', PATH, {}, body);
    const tree = buildContract('document_tree', PATH, {}, body);
    const [a] = tree.root.children;
    expect(a).toEqual({
      id: 'h1-a-0001',
      level: 1,
      text: 'A',
      children: [{ id: 'h2-b-0002', level: 2, text: 'B', children: [] }],
    });
    expect(Object.keys(a)).toEqual(['id', 'level', 'text', 'children']);
    expect(tree.path).toBe(outline.path);
    expect(tree.title).toBe(outline.title);
  });

  it('has an empty root for a heading-less note', () => {
    const tree = buildContract('document_tree', PATH, { title: 'T' }, 'only text\n');
    expect(tree).toEqual({
      schema: 'knowtation.document_tree/v0',
      path: PATH,
      title: 'T',
      root: { children: [] },
      truncated: false,
    });
    expect(Object.keys(tree.root)).toEqual(['children']);
  });

  it('keeps a null title null', () => {
    expect(buildContract('document_tree', 'inbox/.md', {}, '').title).toBeNull();
  });

  it('re-normalizes the already-normalized outline path', () => {
    // The outline turns ' /etc/x.md' into 'etc/x.md'; the tree rule accepts that normalized form.
    expect(buildContract('document_tree', ' /etc/x.md', {}, '').path).toBe('etc/x.md');
    expect(buildContract('document_tree', 'a//b/./c.md', {}, '').path).toBe('a/b/./c.md');
  });
});
