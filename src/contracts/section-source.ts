/**
 * SectionSource v0: one section per outline heading, nested as the tree
 * nests them, with the single body-derived bit per section
 * (`body_available`). No text, offset, length or snippet of the body is
 * ever placed in the payload.
 */
import type { StructureColumns } from '@knowtation/note-structure';
import { nestHeadings, type Outline, type TreeNode } from './outline';
import { normalizeTreePath } from './paths';
import { arrayBytes, boolBytes, jsonStringBytes, measureOutline, nullableStringBytes, objectOverhead } from './payload-size';
import { SECTION_KEYS } from './schemas';
import { normalizeSlug } from './slug';

export const SECTION_SOURCE_SCHEMA = 'knowtation.section_source/v0';

/** Properties in serialized key order (SECTION_KEYS). */
export interface Section {
  section_id: string;
  heading_id: string;
  level: number;
  heading_path: string[];
  heading_text: string;
  child_section_ids: string[];
  body_available: boolean;
  body_returned: false;
  snippet_returned: false;
}

/** Properties in serialized key order. */
export interface SectionSource {
  schema: typeof SECTION_SOURCE_SCHEMA;
  path: string;
  title: string | null;
  sections: Section[];
  truncated: boolean;
}

/** SectionSource from an outline and its body_available bits (bodyAvailability of the same analysis). */
export function sectionSourceFromOutline(outline: Outline, bodyAvailable: (index: number) => boolean): SectionSource {
  const path = normalizeTreePath(outline.path);
  const pathSlug = normalizeSlug(path) || 'note';
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
  visit(nestHeadings(outline.headings), []);

  const title = outline.title == null ? null : String(outline.title);
  return { schema: SECTION_SOURCE_SCHEMA, path, title, sections, truncated: outline.truncated };
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

const SECTIONS_OVERHEAD = objectOverhead(['schema', 'path', 'title', 'sections', 'truncated']);
const SECTION_OVERHEAD = objectOverhead(SECTION_KEYS);
/** `"body_returned":false` and `"snippet_returned":false` values. */
const SECTION_FIXED_FALSES = 5 + 5;

/** Byte length of JSON.stringify(sectionSourceFromOutline(outline, bodyAvailable)). */
export function sectionSourceBytes(outline: Outline, bodyAvailable: (index: number) => boolean): number {
  const measure = measureOutline(outline);
  const count = outline.headings.length;
  const treePath = normalizeTreePath(outline.path);
  const slugBytes = jsonStringBytes(normalizeSlug(treePath) || 'note');
  // section_id = `${pathSlug}:${heading id}`: both parts are ASCII, so their bytes add (one pair of quotes, plus ':').
  const sectionIdBytes = (index: number): number => slugBytes + measure.idBytes[index] - 1;

  const pathTextBytes = new Float64Array(count);
  const depth = new Int32Array(count);
  const childIdBytes = new Float64Array(count);
  let sections = 0;
  for (let i = 0; i < count; i += 1) {
    const parent = measure.parent[i];
    // Parents precede their children in outline order, so their sums are final here.
    pathTextBytes[i] = (parent < 0 ? 0 : pathTextBytes[parent]) + measure.textBytes[i];
    depth[i] = (parent < 0 ? 0 : depth[parent]) + 1;
    if (parent >= 0) childIdBytes[parent] += sectionIdBytes(i);
  }
  for (let i = 0; i < count; i += 1) {
    sections +=
      SECTION_OVERHEAD +
      sectionIdBytes(i) +
      measure.idBytes[i] +
      measure.levelBytes[i] +
      arrayBytes(pathTextBytes[i], depth[i]) +
      measure.textBytes[i] +
      arrayBytes(childIdBytes[i], measure.childCount[i]) +
      boolBytes(bodyAvailable(i)) +
      SECTION_FIXED_FALSES;
  }
  const title = outline.title == null ? null : String(outline.title);
  return (
    SECTIONS_OVERHEAD +
    jsonStringBytes(SECTION_SOURCE_SCHEMA) +
    jsonStringBytes(treePath) +
    nullableStringBytes(title) +
    arrayBytes(sections, count) +
    boolBytes(outline.truncated)
  );
}
