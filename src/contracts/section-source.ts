import { normalizeOutlinePath } from './paths';
import { analyzeNoteColumns } from './analysis/analyze';
import { MAX_NOTE_HEADINGS, columnsOf, type NoteStructure, type StructureColumns } from './analysis/structure';
import { outlineFromColumns } from './note-outline';
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
  return sectionSourceFromColumns(path, frontmatter, analyzeNoteColumns(body, MAX_NOTE_HEADINGS));
}

/** SectionSource from an analyzed body, as a NoteStructure. */
export function sectionSourceFromStructure(path: string, frontmatter: Frontmatter, structure: NoteStructure): SectionSource {
  return sectionSourceFromColumns(path, frontmatter, columnsOf(structure));
}

/** sectionSourceFromStructure over the columns (the request path's form). */
export function sectionSourceFromColumns(path: string, frontmatter: Frontmatter, structure: StructureColumns): SectionSource {
  return sectionSourceFromOutline(outlineFromColumns(path, frontmatter, structure), bodyAvailability(structure));
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
 * search over the ascending starts of the substantive blocks. Scratch is
 * typed arrays only (no object or boxed number per heading or block).
 */
export function bodyAvailability(structure: StructureColumns): (index: number) => boolean {
  const { headingCount, headingLevel, headingStart, headingEnd, blockCount, blockStart, blockSubstantive } = structure;
  let substantiveCount = 0;
  for (let block = 0; block < blockCount; block++) if (blockSubstantive[block] !== 0 && blockStart[block] !== -1) substantiveCount++;
  const starts = new Int32Array(substantiveCount);
  substantiveCount = 0;
  for (let block = 0; block < blockCount; block++) {
    if (blockSubstantive[block] === 0 || blockStart[block] === -1) continue;
    starts[substantiveCount] = blockStart[block];
    if (substantiveCount > 0 && starts[substantiveCount] < starts[substantiveCount - 1]) return (index) => hasBodyContentByScan(structure, index);
    substantiveCount++;
  }
  // A heading without a start never ends a window (the reference skips it): such structures take the scan.
  for (let index = 0; index < headingCount; index++) if (headingStart[index] === -1) return (at) => hasBodyContentByScan(structure, at);
  /** Start of the heading that ends each heading's window; -1 when the window runs to the end. */
  const windowEnd = new Int32Array(headingCount);
  const candidates = new Int32Array(headingCount);
  let candidateCount = 0;
  for (let index = headingCount - 1; index >= 0; index--) {
    const level = headingLevel[index];
    while (candidateCount > 0 && headingLevel[candidates[candidateCount - 1]] > level) candidateCount--;
    windowEnd[index] = candidateCount > 0 ? headingStart[candidates[candidateCount - 1]] : -1;
    candidates[candidateCount++] = index;
  }
  return (index) => {
    if (!(index >= 0 && index < headingCount)) return false;
    const windowStart = headingEnd[index] === -1 ? 0 : headingEnd[index];
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (starts[middle] < windowStart) low = middle + 1;
      else high = middle;
    }
    return low < starts.length && (windowEnd[index] === -1 || starts[low] < windowEnd[index]);
  };
}

/** The reference definition, scanned directly (only for structures without offsets, which analysis never yields). */
function hasBodyContentByScan(structure: StructureColumns, index: number): boolean {
  if (!(index >= 0 && index < structure.headingCount)) return false;
  const { headingCount, headingLevel, headingStart, headingEnd, blockCount, blockStart, blockSubstantive } = structure;
  const windowStart = headingEnd[index] === -1 ? 0 : headingEnd[index];
  let windowEnd = Number.POSITIVE_INFINITY;
  for (let next = index + 1; next < headingCount; next += 1) {
    if (headingLevel[next] <= headingLevel[index] && headingStart[next] !== -1) {
      windowEnd = headingStart[next];
      break;
    }
  }
  for (let block = 0; block < blockCount; block++) {
    const start = blockStart[block];
    if (blockSubstantive[block] !== 0 && start !== -1 && start >= windowStart && start < windowEnd) return true;
  }
  return false;
}
