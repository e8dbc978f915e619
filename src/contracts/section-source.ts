import type { Heading, Nodes, RootContent } from 'mdast';
import { normalizeOutlinePath } from './paths';
import { parseNoteBody, type ParsedNote } from './markdown';
import { outlineFromParsed } from './note-outline';
import { treeFromOutline } from './document-tree';
import { normalizeSlug } from './slug';
import { SECTION_SOURCE_SCHEMA, type Frontmatter, type Section, type SectionSource, type TreeNode } from './types';

/**
 * SectionSource v0. The body is parsed once; it yields the outline and the
 * single body-derived bit per section (`body_available`). No text, offset,
 * length or snippet of the body is ever placed in the payload.
 */
export function buildSectionSource(path: string, frontmatter: Frontmatter, body: string): SectionSource {
  normalizeOutlinePath(path);
  const parsed = parseNoteBody(body);
  const tree = treeFromOutline(outlineFromParsed(path, frontmatter, parsed));
  const pathSlug = normalizeSlug(tree.path) || 'note';
  const sectionId = (node: TreeNode): string => `${pathSlug}:${node.id}`;

  const sections: Section[] = [];
  const visit = (nodes: TreeNode[], ancestors: string[]): void => {
    for (const node of nodes) {
      const headingPath = [...ancestors, node.text];
      sections.push({
        section_id: sectionId(node),
        heading_id: node.id,
        level: node.level,
        heading_path: headingPath,
        heading_text: node.text,
        child_section_ids: node.children.map(sectionId),
        body_available: false,
        body_returned: false,
        snippet_returned: false,
      });
      visit(node.children, headingPath);
    }
  };
  visit(tree.root.children, []);

  // Pre-order flattening of the tree is the outline order, so section i is heading node i.
  sections.forEach((section, index) => {
    section.body_available = hasBodyContent(parsed, index);
  });

  return { schema: SECTION_SOURCE_SCHEMA, path: tree.path, title: tree.title, sections, truncated: tree.truncated };
}

/**
 * True when a substantive top-level block starts inside the heading's window:
 * from the heading's end to the start of the next heading (any nesting) of
 * the same or a shallower depth.
 */
function hasBodyContent(parsed: ParsedNote, index: number): boolean {
  const heading = parsed.headings[index];
  if (!heading) return false;
  const windowStart = offsetOf(heading, 'end') ?? 0;
  let windowEnd = Number.POSITIVE_INFINITY;
  for (let next = index + 1; next < parsed.headings.length; next += 1) {
    const candidate = parsed.headings[next];
    if (Number(candidate.depth) <= Number(heading.depth)) {
      const start = offsetOf(candidate, 'start');
      if (start != null) {
        windowEnd = start;
        break;
      }
    }
  }
  return parsed.root.children.some((block: RootContent) => {
    if (block.type === 'heading') return false;
    const start = offsetOf(block, 'start');
    if (start == null || start < windowStart || start >= windowEnd) return false;
    return isSubstantive(block);
  });
}

function offsetOf(node: Nodes | Heading, edge: 'start' | 'end'): number | null {
  const offset = node.position?.[edge]?.offset;
  return Number.isInteger(offset) ? (offset as number) : null;
}

/** Non-blank value or alt anywhere below, or a thematic break. */
function isSubstantive(node: Nodes): boolean {
  if ('value' in node && typeof node.value === 'string' && node.value.trim() !== '') return true;
  if ('alt' in node && typeof node.alt === 'string' && node.alt.trim() !== '') return true;
  if ('children' in node) return node.children.some((child) => isSubstantive(child as Nodes));
  return node.type === 'thematicBreak';
}
