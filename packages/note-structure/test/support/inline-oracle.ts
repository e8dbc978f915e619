/**
 * The micromark oracle for the inline pass: builds a note that defines `labels`, then holds
 * `lines` as a paragraph, an ATX heading or a setext heading, parses it with the reference
 * pipeline (mdast-util-from-markdown) and returns headingPlainText of that one node,
 * normalized. Returns null when the lines do not form exactly that one block (the generated
 * lines happened to be block syntax), so callers skip such cases instead of comparing.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import type { Nodes } from 'mdast';
import { headingPlainText, normalizeHeadingText } from '../../dev/oracle';
import { inlineText, normalizeLabel } from '../../src/inline';
import { headingTextOf } from '../../src/heading-text';

export type Position = 'paragraph' | 'atx' | 'setext';

export function buildDocument(lines: readonly string[], labels: readonly string[], position: Position): string {
  const head = labels.map((label) => `[${label}]: /u\n`).join('') + '\n';
  if (position === 'atx') return head + '# ' + (lines[0] ?? '') + ' #\n';
  if (position === 'setext') return head + lines.join('\n') + '\n===\n';
  return head + lines.join('\n') + '\n';
}

export function oracleText(lines: readonly string[], labels: readonly string[], position: Position): string | null {
  if (position === 'atx' && lines.length !== 1) return null;
  const tree = fromMarkdown(buildDocument(lines, labels, position));
  const blocks = tree.children.filter((node) => node.type !== 'definition');
  if (tree.children.length - blocks.length !== labels.length || blocks.length !== 1) return null;
  const block = blocks[0] as Nodes;
  const firstLine = labels.length + 2;
  const lastLine = firstLine + lines.length - 1 + (position === 'setext' ? 1 : 0);
  if (position === 'paragraph' && block.type !== 'paragraph') return null;
  if (position !== 'paragraph' && (block.type !== 'heading' || block.depth !== 1)) return null;
  if (block.position?.start.line !== firstLine || block.position?.end.line !== lastLine) return null;
  if (block.position.start.column !== 1) return null;
  return normalizeHeadingText(headingPlainText(block));
}

/**
 * Both positions from one parse: the lines as a paragraph, then (after a blank line) as an ATX
 * heading when they are one line or a setext heading otherwise. null where the note does not
 * have exactly that shape.
 */
export function oracleTexts(
  lines: readonly string[],
  labels: readonly string[],
): { paragraph: string; heading: string; position: Position } | null {
  const position: Position = lines.length === 1 ? 'atx' : 'setext';
  const heading = position === 'atx' ? `# ${lines[0]} #\n` : `${lines.join('\n')}\n===\n`;
  const source = buildDocument(lines, labels, 'paragraph') + '\n' + heading;
  const tree = fromMarkdown(source);
  const blocks = tree.children.filter((node) => node.type !== 'definition');
  if (tree.children.length - blocks.length !== labels.length || blocks.length !== 2) return null;
  const [paragraph, title] = blocks as [Nodes, Nodes];
  const first = labels.length + 2;
  const last = first + lines.length - 1;
  if (paragraph.type !== 'paragraph' || paragraph.position?.start.line !== first || paragraph.position.end.line !== last) return null;
  if (title.type !== 'heading' || title.depth !== 1 || title.position?.start.line !== last + 2) return null;
  if (title.position.end.line !== last + 2 + (position === 'atx' ? 0 : lines.length)) return null;
  return {
    paragraph: normalizeHeadingText(headingPlainText(paragraph)),
    heading: normalizeHeadingText(headingPlainText(title)),
    position,
  };
}

export function definitionSet(labels: readonly string[]): Set<string> {
  return new Set(labels.map(normalizeLabel));
}

/** The pass's heading text as the analysis takes it (headingTextOf: only what the pass has not done). */
export function passText(lines: readonly string[], labels: readonly string[]): string {
  return headingTextOf(inlineText(lines, definitionSet(labels)));
}

export interface Comparison {
  compared: number;
  skipped: number;
  mismatches: { lines: readonly string[]; labels: readonly string[]; position: Position; expected: string; actual: string }[];
}

export function compareCase(
  lines: readonly string[],
  labels: readonly string[],
  position: Position,
  result: Comparison,
): void {
  const expected = oracleText(lines, labels, position);
  if (expected === null) {
    result.skipped++;
    return;
  }
  result.compared++;
  const actual = passText(lines, labels);
  if (actual !== expected) result.mismatches.push({ lines, labels, position, expected, actual });
}
