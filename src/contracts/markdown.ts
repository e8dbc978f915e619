/**
 * The one Markdown parse shared by the body-reading contracts: plain
 * CommonMark via mdast-util-from-markdown with no extensions (the same
 * micromark stack remark-parse 11 uses), and the reference's heading walk.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import type { Heading, Nodes, Root } from 'mdast';
import { ContractError } from './errors';

export const MAX_NOTE_INPUT_CHARS = 1_000_000;
export const MAX_NOTE_HEADINGS = 500;

export interface ParsedNote {
  root: Root;
  /** Every heading node in pre-order, wherever nested; the walk never descends into a heading. */
  headings: Heading[];
}

/** Refuses (never parses) a body longer than 1,000,000 UTF-16 code units. */
export function parseNoteBody(body: string): ParsedNote {
  if (body.length > MAX_NOTE_INPUT_CHARS) throw new ContractError('NoteTooLarge');
  const root = fromMarkdown(body);
  const headings: Heading[] = [];
  collectHeadings(root, headings);
  return { root, headings };
}

function collectHeadings(node: Nodes, out: Heading[]): void {
  if (node.type === 'heading') {
    out.push(node);
    return;
  }
  if ('children' in node) {
    for (const child of node.children) collectHeadings(child as Nodes, out);
  }
}

/** Reference plain text: leaves give their value or alt, breaks a space, siblings join with one space. */
function headingPlainText(node: Nodes): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
    case 'html':
      return node.value ?? '';
    case 'break':
      return ' ';
    case 'image':
    case 'imageReference':
      if (node.alt != null) return node.alt;
      return '';
    default:
      if (!('children' in node)) return '';
      return node.children.map((child) => headingPlainText(child as Nodes)).join(' ');
  }
}

/** NFC, every whitespace run folded to one space, trimmed. */
export function headingText(node: Heading): string {
  return headingPlainText(node).normalize('NFC').replace(/\s+/g, ' ').trim();
}

export function headingLevel(node: Heading): number {
  const depth = Number(node.depth);
  return Number.isInteger(depth) && depth >= 1 && depth <= 6 ? depth : 1;
}
