/**
 * The heading outline every body-reading contract is assembled from: the
 * note's path (outline rule), title, the first MAX_NOTE_HEADINGS headings
 * with their ids, and whether later headings were cut. Built once per note
 * from the analysis; each contract then shapes it into its own payload.
 */
import type { StructureColumns } from '@knowtation/note-structure';
import { normalizeOutlinePath, posixBasename } from './paths';
import { jsString, normalizeSlug } from './slug';
import type { Frontmatter } from './types';

/** The outline publishes at most this many headings, the first ones; later ones only set `truncated`. */
export const MAX_NOTE_HEADINGS = 500;

export interface OutlineHeading {
  level: number;
  text: string;
  id: string;
}

export interface Outline {
  path: string;
  title: string | null;
  headings: OutlineHeading[];
  truncated: boolean;
}

/** A heading with the headings nested under it, as the level stack of nestHeadings places them. */
export interface TreeNode {
  id: string;
  level: number;
  text: string;
  children: TreeNode[];
}

/** Title: a non-blank frontmatter `title` (stringified, trimmed), else the cleaned file stem, else null. */
export function deriveTitle(frontmatter: unknown, normalizedPath: string): string | null {
  const fm =
    frontmatter !== null && typeof frontmatter === 'object' && !Array.isArray(frontmatter)
      ? (frontmatter as Frontmatter)
      : {};
  if (fm.title != null) {
    const title = jsString(fm.title).trim();
    if (title !== '') return title;
  }
  const stem = posixBasename(normalizedPath).replace(/\.(md|markdown)$/i, '');
  return stem.replace(/[-_]+/g, ' ').trim() || null;
}

/** `h<level>-<slug|heading>-<NNNN>`: the ordinal is global across levels, zero-padded to 4 digits. */
export function headingId(level: number, text: string, ordinal: number): string {
  return `h${level}-${normalizeSlug(text) || 'heading'}-${String(ordinal).padStart(4, '0')}`;
}

/** The outline of an analyzed body; throws ContractError('InvalidPath') for a path the outline rule refuses. */
export function outlineFromColumns(path: string, frontmatter: Frontmatter, structure: StructureColumns): Outline {
  const safePath = normalizeOutlinePath(path);
  const headings: OutlineHeading[] = new Array(Math.min(structure.headingCount, MAX_NOTE_HEADINGS));
  for (let index = 0; index < headings.length; index++) {
    const level = structure.headingLevel[index];
    const text = index < structure.headingTexts.length ? structure.headingTexts[index] : '';
    headings[index] = { level, text, id: headingId(level, text, index + 1) };
  }
  return {
    path: safePath,
    title: deriveTitle(frontmatter, safePath),
    headings,
    truncated: structure.headingCount > MAX_NOTE_HEADINGS,
  };
}

/**
 * Nests headings with a level stack: a heading closes every open node of
 * the same or deeper level, so skipped levels attach to the nearest
 * shallower heading and real levels are kept. Returns the top-level nodes;
 * pre-order over them is outline order.
 */
export function nestHeadings(headings: readonly OutlineHeading[]): TreeNode[] {
  const roots: TreeNode[] = [];
  const stack: TreeNode[] = [];
  for (const heading of headings) {
    const node: TreeNode = { id: heading.id, level: heading.level, text: heading.text, children: [] };
    while (stack.length > 0 && stack[stack.length - 1].level >= node.level) stack.pop();
    (stack.length > 0 ? stack[stack.length - 1].children : roots).push(node);
    stack.push(node);
  }
  return roots;
}

/** Number of nodes in a forest: every heading nestHeadings placed. */
export function treeNodeCount(nodes: readonly TreeNode[]): number {
  return nodes.reduce((sum, node) => sum + 1 + treeNodeCount(node.children), 0);
}
