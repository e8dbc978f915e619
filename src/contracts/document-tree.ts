/**
 * DocumentTree v0: the outline's headings nested by level, under the tree
 * path rule.
 */
import { nestHeadings, type Outline, type TreeNode } from './outline';
import { normalizeTreePath } from './paths';
import { arrayBytes, boolBytes, jsonStringBytes, measureOutline, nullableStringBytes, objectOverhead } from './payload-size';

export const DOCUMENT_TREE_SCHEMA = 'knowtation.document_tree/v0';

/** Properties in serialized key order. */
export interface DocumentTree {
  schema: typeof DOCUMENT_TREE_SCHEMA;
  path: string;
  title: string | null;
  root: { children: TreeNode[] };
  truncated: boolean;
}

export function treeFromOutline(outline: Outline): DocumentTree {
  return {
    schema: DOCUMENT_TREE_SCHEMA,
    path: normalizeTreePath(outline.path),
    title: outline.title == null ? null : String(outline.title),
    root: { children: nestHeadings(outline.headings) },
    truncated: outline.truncated,
  };
}

const TREE_OVERHEAD = objectOverhead(['schema', 'path', 'title', 'root', 'truncated']);
const TREE_ROOT_OVERHEAD = objectOverhead(['children']);
const TREE_NODE_OVERHEAD = objectOverhead(['id', 'level', 'text', 'children']);

/** Byte length of JSON.stringify(treeFromOutline(outline)). */
export function documentTreeBytes(outline: Outline): number {
  const measure = measureOutline(outline);
  let nodes = 0;
  for (let i = 0; i < outline.headings.length; i += 1) {
    // Each node: fixed keys, id, level, text, and its children array's brackets and separating commas.
    nodes +=
      TREE_NODE_OVERHEAD +
      measure.idBytes[i] +
      measure.levelBytes[i] +
      measure.textBytes[i] +
      arrayBytes(0, measure.childCount[i]);
  }
  const title = outline.title == null ? null : String(outline.title);
  return (
    TREE_OVERHEAD +
    jsonStringBytes(DOCUMENT_TREE_SCHEMA) +
    jsonStringBytes(normalizeTreePath(outline.path)) +
    nullableStringBytes(title) +
    TREE_ROOT_OVERHEAD +
    arrayBytes(nodes, measure.rootCount) +
    boolBytes(outline.truncated)
  );
}
