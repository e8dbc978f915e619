/**
 * The one seam between the block scan and the inline pass: heading plain
 * text, paragraph substance, definition labels and NFC all come through
 * here. Invariant: each function returns exactly what the micromark oracle
 * (src/contracts/markdown.ts) yields for the same inline content.
 * INTERIM: until the linear inline pass lands, this parses each source with
 * micromark (superlinear on pathological inputs); the swap is these exports.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import type { Nodes } from 'mdast';
import { headingPlainText } from '../markdown';

export function normalizeLabel(label: string): string {
  return label.replace(/[\t\n\r ]+/g, ' ').replace(/^ | $/g, '').toLowerCase().toUpperCase();
}

export function normalizeNfc(text: string): string {
  return text.normalize('NFC');
}

export function inlinePlainText(lines: readonly string[], definitions: ReadonlySet<string>): string {
  let sentinel = 0;
  const joined = lines.join('\n');
  while (joined.includes(`00:${sentinel}:00`)) sentinel++;
  const parts: string[] = [];
  for (const label of definitions) parts.push(`[${label}]: #`);
  parts.push('', `[00:${sentinel}:00]: #s "t"`);
  for (const line of lines) parts.push(`    ${line}`);
  const children = fromMarkdown(parts.join('\n')).children;
  const last = children[children.length - 1];
  return last && last.type === 'paragraph' ? headingPlainText(last as Nodes) : '';
}
