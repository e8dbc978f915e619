/**
 * The analysis entry point on the request path: body -> NoteStructure.
 * Invariant: returns exactly what analyzeWithMdast (the micromark oracle in
 * ../markdown.ts) returns, for every body within the cap; there is no
 * fallback and no micromark here. Like micromark's preprocessing, a leading
 * byte order mark is dropped (offsets then count from after it) and NUL
 * reads as U+FFFD (the block scan treats the two alike; definition labels
 * are mapped here). Linear bound: O(n): one block scan, one inline pass per
 * heading or undecided paragraph source that holds inline syntax (each
 * source is read at most twice), and a linear normalization of each
 * heading's text. With `textLimit`, headings past the first `textLimit`
 * keep their level and offsets but get '' as text and cost no inline work
 * (the contracts publish only the first MAX_NOTE_HEADINGS texts). The
 * definitions' normalized labels are gathered only when an inline pass
 * runs.
 */
import { hasJsNonWhitespace } from './chars';
import { scanBlocks } from './block-scan';
import { normalizeHeadingText } from './heading-text';
import { inlinePlainText, normalizeLabel } from './inline-engine';
import { assertBodyWithinCap, type BlockInfo, type HeadingInfo, type NoteStructure } from './structure';

export function analyzeNote(body: string, textLimit = Number.POSITIVE_INFINITY): NoteStructure {
  assertBodyWithinCap(body);
  // Offsets count from after a leading BOM, as micromark's do.
  const source = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  // The block scan reads the body as written: it treats NUL as the U+FFFD micromark makes of it (no
  // copy of the body), and only the definition labels it returns carry NUL, mapped below. The inline
  // pass gets the lines as they are too, because micromark's text serialization around a replaced NUL
  // differs from a literal U+FFFD (inline.ts mirrors that).
  const scan = scanBlocks(source);
  let definitions: Set<string> | null = null;
  const definedLabels = (): Set<string> => {
    if (definitions !== null) return definitions;
    definitions = new Set<string>();
    for (const label of scan.labels) definitions.add(normalizeLabel(label.indexOf('\0') === -1 ? label : label.replaceAll('\0', '\uFFFD')));
    return definitions;
  };

  const plain: (string | undefined)[] = new Array(scan.sources.length);
  const plainText = (index: number): string => {
    const cached = plain[index];
    if (cached !== undefined) return cached;
    const lines = scan.sources.lines(source, index);
    // Without a char that can begin inline syntax, the text nodes hold the lines as written; every
    // difference (line endings, a hard break's spaces) is whitespace that the heading text folds and
    // the substance test ignores, so the inline pass would give the same answer.
    return (plain[index] = hasInlineSyntax(lines) ? inlinePlainText(lines, definedLabels()) : lines.join('\n'));
  };

  const { headings, blocks } = scan;
  const headingInfos: HeadingInfo[] = new Array(headings.count);
  for (let index = 0; index < headings.count; index++) {
    headingInfos[index] = {
      level: headings.level[index],
      text: index < textLimit ? normalizeHeadingText(plainText(headings.source[index])) : '',
      start: headings.start[index],
      end: headings.end[index],
    };
  }
  const blockInfos: BlockInfo[] = new Array(blocks.count);
  for (let index = 0; index < blocks.count; index++) {
    let substantive = blocks.substantive[index] !== 0;
    for (let entry = blocks.pendingFirst[index]; !substantive && entry !== -1; entry = blocks.pendNext[entry]) {
      substantive = hasJsNonWhitespace(plainText(blocks.pendSource[entry]));
    }
    blockInfos[index] = { start: blocks.start[index], substantive };
  }
  return { headings: headingInfos, blocks: blockInfos };
}

/** A char that can begin or end inline syntax (escape, code, emphasis, link/image, html/autolink, reference) or NUL. */
const INLINE_SYNTAX = /[\\`*_[\]<&\0]/;

/** Whether some line holds an INLINE_SYNTAX char (the regex engine scans about 5x faster than a charCodeAt loop). */
function hasInlineSyntax(lines: readonly string[]): boolean {
  for (const line of lines) if (INLINE_SYNTAX.test(line)) return true;
  return false;
}
