import { normalizeOutlinePath } from './paths';
import { analyzeNote } from './analysis/analyze';
import type { NoteStructure } from './analysis/structure';
import { outlineFromStructure } from './note-outline';
import { treeFromOutline } from './document-tree';
import { normalizeSlug } from './slug';
import { SECTION_SOURCE_SCHEMA, type Frontmatter, type Section, type SectionSource, type TreeNode } from './types';

/**
 * SectionSource v0. The body is analyzed once; that yields the outline and
 * the single body-derived bit per section (`body_available`). No text,
 * offset, length or snippet of the body is ever placed in the payload.
 */
export function buildSectionSource(path: string, frontmatter: Frontmatter, body: string): SectionSource {
  normalizeOutlinePath(path);
  return sectionSourceFromStructure(path, frontmatter, analyzeNote(body));
}

/** SectionSource from an analyzed body (shared with the side-by-side runner in analysis/contracts.ts). */
export function sectionSourceFromStructure(path: string, frontmatter: Frontmatter, structure: NoteStructure): SectionSource {
  const tree = treeFromOutline(outlineFromStructure(path, frontmatter, structure));
  const pathSlug = normalizeSlug(tree.path) || 'note';
  const sectionId = (node: TreeNode): string => `${pathSlug}:${node.id}`;

  const sections: Section[] = [];
  const visit = (nodes: TreeNode[], ancestors: string[]): void => {
    for (const node of nodes) {
      const headingPath = [...ancestors, node.text];
      // Pre-order over the tree is outline order, so this section is heading number sections.length.
      const index = sections.length;
      sections.push({
        section_id: sectionId(node),
        heading_id: node.id,
        level: node.level,
        heading_path: headingPath,
        heading_text: node.text,
        child_section_ids: node.children.map(sectionId),
        body_available: hasBodyContent(structure, index),
        body_returned: false,
        snippet_returned: false,
      });
      visit(node.children, headingPath);
    }
  };
  visit(tree.root.children, []);

  return { schema: SECTION_SOURCE_SCHEMA, path: tree.path, title: tree.title, sections, truncated: tree.truncated };
}

/**
 * True when a substantive top-level block starts inside the heading's
 * window: from the heading's end to the start of the next heading (any
 * nesting) of the same or a shallower level.
 */
function hasBodyContent(structure: NoteStructure, index: number): boolean {
  const heading = structure.headings[index];
  if (!heading) return false;
  const windowStart = heading.end ?? 0;
  let windowEnd = Number.POSITIVE_INFINITY;
  for (let next = index + 1; next < structure.headings.length; next += 1) {
    const candidate = structure.headings[next];
    if (candidate.level <= heading.level && candidate.start != null) {
      windowEnd = candidate.start;
      break;
    }
  }
  return structure.blocks.some(
    (block) => block.substantive && block.start != null && block.start >= windowStart && block.start < windowEnd,
  );
}
