/**
 * The analysis entry point: body -> NoteStructure.
 * Invariant: returns exactly what analyzeWithMdast (the micromark oracle in
 * dev/oracle.ts) returns, for every body within the cap; there is no
 * fallback and no micromark here. Like micromark's preprocessing, a leading
 * byte order mark is dropped (offsets then count from after it) and NUL
 * reads as U+FFFD (the block scan treats the two alike; definition labels
 * are mapped here). After each note, returned or thrown, resetNoteScratch
 * clears what it left in the state kept between calls (scratch.ts).
 * Linear bound: O(n): one block scan, one inline pass per heading or
 * undecided paragraph source that holds inline syntax (each source is read
 * at most once: a published heading's plain text is kept for the block bit
 * it may also decide), and a linear normalization of each heading's text
 * (none for an ASCII pass result, which the pass folds). analyzeNoteColumns
 * answers columns: no object per heading or block. With `textLimit`,
 * headings past the first `textLimit` keep their level and offsets but get
 * '' as text and cost no inline work (for a caller that publishes only the
 * first texts). The definitions' labels become
 * strings, normalized, only when an inline pass runs.
 */
import * as chars from './chars';
import * as blockScan from './block-scan';
import * as headingText from './heading-text';
import * as inlineEngine from './inline-engine';
import type { InlineText } from './inline-engine';
import * as scratch from './scratch';
import * as structure from './structure';
import type { NoteStructure, StructureColumns } from './structure';

// Imported values are bound once, at load (see chars.ts).
const { BOM, INLINE_SYNTAX, hasJsNonWhitespace } = chars;
const { scanBlocks } = blockScan;
const { headingTextOf } = headingText;
const { inlineSubstantive, inlineText, normalizeLabel } = inlineEngine;
const { resetNoteScratch } = scratch;
const { assertBodyWithinCap, structureOf } = structure;

export function analyzeNote(body: string, textLimit = Number.POSITIVE_INFINITY): NoteStructure {
  return structureOf(analyzeNoteColumns(body, textLimit));
}

/** analyzeNote's result as columns: no object per heading or block. */
export function analyzeNoteColumns(body: string, textLimit = Number.POSITIVE_INFINITY): StructureColumns {
  assertBodyWithinCap(body);
  try {
    return analyzeWithinCap(body, textLimit);
  } finally {
    // The one place the kept scratch is cleared: nothing of this note outlives it.
    resetNoteScratch();
  }
}

function analyzeWithinCap(body: string, textLimit: number): StructureColumns {
  // Offsets count from after a leading BOM, as micromark's do.
  const source = body.charCodeAt(0) === BOM ? body.slice(1) : body;
  // The block scan reads the body as written: it treats NUL as the U+FFFD micromark makes of it (no
  // copy of the body), and only the definition labels it returns carry NUL, mapped below. The inline
  // pass gets the lines as they are too, because micromark's text serialization around a replaced NUL
  // differs from a literal U+FFFD (inline.ts mirrors that).
  const scan = scanBlocks(source);
  let definitions: Set<string> | null = null;
  const definedLabels = (): Set<string> => {
    if (definitions !== null) return definitions;
    definitions = new Set<string>();
    for (let index = 0; index < scan.labels.count; index++) {
      const label = scan.labels.label(index);
      definitions.add(normalizeLabel(label.indexOf('\0') === -1 ? label : label.replaceAll('\0', '\uFFFD')));
    }
    return definitions;
  };

  // Without a char that can begin inline syntax, the text nodes hold the lines as written; every
  // difference (line endings, a hard break's spaces) is whitespace that the heading text folds and
  // the substance test ignores, so the inline pass would give the same answer.
  const plainText = (index: number): InlineText => {
    const lines = scan.sources.lines(source, index);
    return hasInlineSyntax(lines) ? inlineText(lines, definedLabels()) : { text: lines.join('\n'), normalized: false, folded: false };
  };
  /** Whether source `index`'s plain text holds a JS non-whitespace char (the text itself is not built). */
  const substantiveSource = (index: number): boolean => {
    const lines = scan.sources.lines(source, index);
    if (hasInlineSyntax(lines)) return inlineSubstantive(lines, definedLabels());
    for (const line of lines) if (hasJsNonWhitespace(line)) return true;
    return false;
  };

  const { headings, blocks } = scan;
  const headingTexts: string[] = new Array(Math.min(headings.count, textLimit));
  // A heading's source can also decide a block's bit (a heading in a container): the published ones
  // keep their plain text here, so no source is read twice.
  const headingPlain = blocks.pendCount > 0 ? new Map<number, string>() : null;
  for (let index = 0; index < headingTexts.length; index++) {
    const plain = plainText(headings.source[index]);
    headingPlain?.set(headings.source[index], plain.text);
    headingTexts[index] = headingTextOf(plain);
  }
  // Pending sources decide the bits still 0, in place.
  const substantive = blocks.substantive;
  for (let index = 0; index < blocks.count; index++) {
    for (let entry = blocks.pendingFirst[index]; substantive[index] === 0 && entry !== -1; entry = blocks.pendNext[entry]) {
      const source = blocks.pendSource[entry];
      const plain = headingPlain?.get(source);
      if (plain !== undefined ? hasJsNonWhitespace(plain) : substantiveSource(source)) substantive[index] = 1;
    }
  }
  return {
    headingCount: headings.count,
    headingLevel: headings.level,
    headingStart: headings.start,
    headingEnd: headings.end,
    headingTexts,
    blockCount: blocks.count,
    blockStart: blocks.start,
    blockSubstantive: substantive,
  };
}

/** Whether some line holds an INLINE_SYNTAX char (the regex engine scans about 5x faster than a charCodeAt loop). */
function hasInlineSyntax(lines: readonly string[]): boolean {
  for (const line of lines) if (INLINE_SYNTAX.test(line)) return true;
  return false;
}
