import { normalizeOutlinePath, normalizeTreePath } from './paths';
import { analyzeNoteColumns } from './analysis/analyze';
import { MAX_NOTE_HEADINGS } from './analysis/structure';
import { outlineFromColumns } from './note-outline';
import { DOCUMENT_TREE_SCHEMA, type DocumentTree, type Frontmatter, type NoteOutline, type TreeNode } from './types';

/**
 * Nests outline headings with a level stack: a heading closes every open
 * node of the same or deeper level, so skipped levels attach to the nearest
 * shallower heading and real levels are kept.
 */
export function treeFromOutline(outline: NoteOutline): DocumentTree {
  const root: TreeNode[] = [];
  const stack: TreeNode[] = [];
  for (const heading of outline.headings) {
    const node: TreeNode = { id: heading.id, level: heading.level, text: heading.text, children: [] };
    while (stack.length > 0 && stack[stack.length - 1].level >= node.level) stack.pop();
    (stack.length > 0 ? stack[stack.length - 1].children : root).push(node);
    stack.push(node);
  }
  return {
    schema: DOCUMENT_TREE_SCHEMA,
    path: normalizeTreePath(outline.path),
    title: outline.title == null ? null : String(outline.title),
    root: { children: root },
    truncated: outline.truncated,
  };
}

export function buildDocumentTree(path: string, frontmatter: Frontmatter, body: string): DocumentTree {
  normalizeOutlinePath(path);
  return treeFromOutline(outlineFromColumns(path, frontmatter, analyzeNoteColumns(body, MAX_NOTE_HEADINGS)));
}
