/**
 * The fast NoteStructure: the block scanner proves block structure, and
 * micromark (through mdast-util-from-markdown, the parser of record) parses
 * only the inline sources the scanner hands back, all in one call. Any
 * Decline, from the scanner or from a re-parse that does not come back in
 * the expected shape, answers with the reference pipeline for the whole note.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import type { Nodes, RootContent } from 'mdast';
import { analyzeWithMdast, assertBodyWithinCap, headingPlainText, normalizeHeadingText, type NoteStructure } from '../markdown';
import { Decline, isJsWhitespace, scanNote, type ScanResult, type Segment } from './scanner';

export { Decline } from './scanner';

export type AnalysisPath = 'fast' | 'fallback';

export interface TracedAnalysis {
  structure: NoteStructure;
  path: AnalysisPath;
  /** Why the scanner declined, when it did. */
  reason?: string;
}

/** Same result as analyzeWithMdast, by the fast path when the scanner proves the note. */
export function analyzeFast(body: string): NoteStructure {
  return analyzeFastTraced(body).structure;
}

export function analyzeFastTraced(body: string): TracedAnalysis {
  assertBodyWithinCap(body);
  try {
    return { structure: structureFromScan(body, scanNote(body)), path: 'fast' };
  } catch (error) {
    if (error instanceof Decline) return { structure: analyzeWithMdast(body), path: 'fallback', reason: error.message };
    // A stack exhausted on the fast path: the reference decides (it answers or refuses with NoteTooLarge).
    if (error instanceof RangeError) return { structure: analyzeWithMdast(body), path: 'fallback', reason: 'stack' };
    throw error;
  }
}

interface SegmentOutcome {
  /** Raw plain text of a heading segment (before normalization). */
  text: string;
  substantive: boolean;
}

function structureFromScan(body: string, scan: ScanResult): NoteStructure {
  const needed = new Set<number>();
  for (const heading of scan.headings) if (heading.segment !== -1) needed.add(heading.segment);
  for (const block of scan.blocks) {
    if (!block.substantive && block.pending !== null) for (const segment of block.pending) needed.add(segment);
  }
  const outcomes = needed.size > 0 ? parseSegments(body, scan, [...needed].sort((a, b) => a - b)) : new Map<number, SegmentOutcome>();

  return {
    headings: scan.headings.map((heading) => ({
      level: heading.level,
      text: normalizeHeadingText(heading.text ?? outcomeOf(outcomes, heading.segment).text),
      start: heading.start,
      end: heading.end,
    })),
    blocks: scan.blocks.map((block) => ({
      start: block.start,
      substantive:
        block.substantive ||
        (block.pending !== null && block.pending.some((segment) => outcomeOf(outcomes, segment).substantive)),
    })),
  };
}

function outcomeOf(outcomes: Map<number, SegmentOutcome>, segment: number): SegmentOutcome {
  const outcome = outcomes.get(segment);
  if (!outcome) throw new Decline('segment not parsed');
  return outcome;
}

/**
 * One micromark parse of: the note's definition labels (so references
 * resolve as they do in the note), then each segment, blank-line separated.
 * Paragraph and setext sources continue a sentinel definition with every
 * line indented four columns, so each line stays paragraph continuation
 * text exactly as it was in the note; ATX text gets an explicit closing
 * sequence so its own trailing `#`s stay text.
 */
function parseSegments(body: string, scan: ScanResult, segments: number[]): Map<number, SegmentOutcome> {
  const sentinel = sentinelLabel(body);
  const labels = [...new Set(scan.labels)];
  const parts: string[] = [];
  if (labels.length > 0) parts.push(labels.map((label) => `[${label}]: #`).join('\n'));
  for (const index of segments) parts.push(segmentSource(body, scan.segments[index], sentinel));
  const children: RootContent[] = fromMarkdown(parts.join('\n\n')).children;

  let cursor = 0;
  const take = (type: RootContent['type']): RootContent => {
    const node = children[cursor++];
    if (!node || node.type !== type) throw new Decline('segment re-parse shape');
    return node;
  };
  for (let count = 0; count < labels.length; count++) take('definition');
  const outcomes = new Map<number, SegmentOutcome>();
  for (const index of segments) {
    const segment = scan.segments[index];
    if (segment.kind === 'atx') {
      outcomes.set(index, headingOutcome(take('heading')));
    } else {
      take('definition');
      const node = take(segment.kind === 'setext' ? 'heading' : 'paragraph');
      outcomes.set(index, segment.kind === 'setext' ? headingOutcome(node) : { text: '', substantive: isSubstantive(node) });
    }
  }
  if (cursor !== children.length) throw new Decline('segment re-parse shape');
  return outcomes;
}

function segmentSource(body: string, segment: Segment, sentinel: string): string {
  if (segment.kind === 'atx') return `# ${body.slice(segment.from, segment.to)} #`;
  const lines = [`[${sentinel}]: #s "t"`];
  for (let line = 0; line < segment.starts.length; line++) {
    lines.push(`    ${body.slice(segment.starts[line], segment.ends[line])}`);
  }
  if (segment.kind === 'setext') lines.push('===');
  return lines.join('\n');
}

/**
 * A definition label no reference in the note can match: digits and colons
 * have no case mappings, so a label is only equal to it if the note
 * contains the same characters.
 */
function sentinelLabel(body: string): string {
  for (let attempt = 0; ; attempt++) {
    const label = `00:${attempt}:00`;
    if (!body.includes(label)) return label;
  }
}

function headingOutcome(node: RootContent): SegmentOutcome {
  const text = headingPlainText(node as Nodes);
  let substantive = false;
  for (let at = 0; at < text.length && !substantive; at++) substantive = !isJsWhitespace(text.charCodeAt(at));
  return { text, substantive };
}


/** The reference "substantive" test (REFERENCE-CONTRACTS 5). */
function isSubstantive(node: Nodes): boolean {
  if ('value' in node && typeof node.value === 'string' && node.value.trim() !== '') return true;
  if ('alt' in node && typeof node.alt === 'string' && node.alt.trim() !== '') return true;
  if ('children' in node) return node.children.some((child) => isSubstantive(child as Nodes));
  return node.type === 'thematicBreak';
}
