/**
 * The micromark oracle: the reference pipeline the linear analysis (src/)
 * is held equal to by the differential tests and measured against by the
 * bench. Plain CommonMark through mdast-util-from-markdown with no
 * extensions (the micromark stack that remark-parse 11 uses), walked exactly
 * as the reference builders walk it, answering the same NoteStructure.
 * Development only (micromark and mdast are devDependencies): nothing in src
 * imports it (test/differential.test.ts checks).
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import type { Heading, Nodes, Root } from 'mdast';
import { NoteTooLargeError, assertBodyWithinCap, type NoteStructure } from '../src/structure';

export function analyzeWithMdast(body: string): NoteStructure {
  assertBodyWithinCap(body);
  try {
    return structureFromTree(fromMarkdown(body));
  } catch (error) {
    // Pathological nesting can exhaust the stack inside the parser: refuse the note, typed, never a 500.
    if (error instanceof RangeError) throw new NoteTooLargeError();
    throw error;
  }
}

function structureFromTree(root: Root): NoteStructure {
  const headingNodes = collectHeadings(root);
  return {
    headings: headingNodes.map((node) => ({
      level: headingLevel(node),
      text: normalizeHeadingText(headingPlainText(node)),
      start: offsetOf(node, 'start'),
      end: offsetOf(node, 'end'),
    })),
    blocks: root.children
      .filter((node) => node.type !== 'heading')
      .map((node) => ({ start: offsetOf(node, 'start'), substantive: isSubstantive(node) })),
  };
}

/** Pre-order heading walk that never descends into a heading; iterative, so nesting depth cannot overflow it. */
function collectHeadings(root: Root): Heading[] {
  const out: Heading[] = [];
  const stack: Nodes[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Nodes;
    if (node.type === 'heading') {
      out.push(node);
    } else if ('children' in node) {
      for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i] as Nodes);
    }
  }
  return out;
}

/** Reference plain text: leaves give their value or alt, breaks a space, siblings join with one space. */
export function headingPlainText(node: Nodes): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
    case 'html':
      return node.value ?? '';
    case 'break':
      return ' ';
    case 'image':
    case 'imageReference':
      return node.alt != null ? node.alt : '';
    default:
      if (!('children' in node)) return '';
      return node.children.map((child) => headingPlainText(child as Nodes)).join(' ');
  }
}

/** NFC, every whitespace run folded to one space, trimmed. */
export function normalizeHeadingText(raw: string): string {
  return raw.normalize('NFC').replace(/\s+/g, ' ').trim();
}

function headingLevel(node: Heading): number {
  const depth = Number(node.depth);
  return Number.isInteger(depth) && depth >= 1 && depth <= 6 ? depth : 1;
}

function offsetOf(node: Nodes, edge: 'start' | 'end'): number | null {
  const offset = node.position?.[edge]?.offset;
  return Number.isInteger(offset) ? (offset as number) : null;
}

/** Non-blank value or alt anywhere below, or a childless thematic break; iterative for the same reason. */
function isSubstantive(block: Nodes): boolean {
  const stack: Nodes[] = [block];
  while (stack.length > 0) {
    const node = stack.pop() as Nodes;
    if ('value' in node && typeof node.value === 'string' && node.value.trim() !== '') return true;
    if ('alt' in node && typeof node.alt === 'string' && node.alt.trim() !== '') return true;
    if ('children' in node) {
      for (const child of node.children) stack.push(child as Nodes);
    } else if (node.type === 'thematicBreak') {
      return true;
    }
  }
  return false;
}
