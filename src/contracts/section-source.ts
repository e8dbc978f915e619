import { normalizeOutlinePath } from './paths';
import { analyzeNote } from './analysis/analyze';
import { MAX_NOTE_HEADINGS, type NoteStructure } from './analysis/structure';
import { outlineFromStructure } from './note-outline';
import { treeFromOutline } from './document-tree';
import { normalizeSlug } from './slug';
import { SECTION_SOURCE_SCHEMA, type Frontmatter, type NoteOutline, type Section, type SectionSource, type TreeNode } from './types';

/**
 * SectionSource v0. The body is analyzed once; that yields the outline and
 * the single body-derived bit per section (`body_available`). No text,
 * offset, length or snippet of the body is ever placed in the payload.
 */
export function buildSectionSource(path: string, frontmatter: Frontmatter, body: string): SectionSource {
  normalizeOutlinePath(path);
  return sectionSourceFromStructure(path, frontmatter, analyzeNote(body, MAX_NOTE_HEADINGS));
}

/** SectionSource from an analyzed body (shared with the side-by-side runner in analysis/contracts.ts). */
export function sectionSourceFromStructure(path: string, frontmatter: Frontmatter, structure: NoteStructure): SectionSource {
  return sectionSourceFromOutline(outlineFromStructure(path, frontmatter, structure), bodyAvailability(structure));
}

/** SectionSource from an outline and its body_available bits (the bounded builder has both already). */
export function sectionSourceFromOutline(outline: NoteOutline, bodyAvailable: (index: number) => boolean): SectionSource {
  const tree = treeFromOutline(outline);
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
        body_available: bodyAvailable(index),
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
 * body_available per heading index: true when a substantive top-level
 * block starts inside the heading's window, from the heading's end to the
 * start of the next heading (any nesting) of the same or a shallower level.
 * Linear: the window ends come from one right-to-left pass with a stack
 * (each heading pushed and popped once), and each window is one binary
 * search over the ascending starts of the substantive blocks.
 */
export function bodyAvailability(structure: NoteStructure): (index: number) => boolean {
  const { headings, blocks } = structure;
  const starts: number[] = [];
  for (const block of blocks) if (block.substantive && block.start != null) starts.push(block.start);
  for (let index = 1; index < starts.length; index++) {
    if (starts[index] < starts[index - 1]) return (index) => hasBodyContentByScan(structure, index);
  }
  const windowEnd: number[] = new Array(headings.length);
  const candidates: number[] = [];
  for (let index = headings.length - 1; index >= 0; index--) {
    const level = headings[index].level;
    while (candidates.length > 0 && headings[candidates[candidates.length - 1]].level > level) candidates.pop();
    windowEnd[index] = candidates.length > 0 ? (headings[candidates[candidates.length - 1]].start as number) : Number.POSITIVE_INFINITY;
    // A heading without a start never ends a window (the reference skips it), so it is no candidate.
    if (headings[index].start != null) candidates.push(index);
    else return (at) => hasBodyContentByScan(structure, at);
  }
  return (index) => {
    const heading = headings[index];
    if (!heading) return false;
    const windowStart = heading.end ?? 0;
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (starts[middle] < windowStart) low = middle + 1;
      else high = middle;
    }
    return low < starts.length && starts[low] < windowEnd[index];
  };
}

/** The reference definition, scanned directly (only for structures without offsets, which analysis never yields). */
function hasBodyContentByScan(structure: NoteStructure, index: number): boolean {
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
