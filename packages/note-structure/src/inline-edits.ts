/**
 * The inline pass's one output step. The pass (inline.ts) records every place where the plain
 * text differs from the source in three record streams, each in source order: items
 * (inline-items.ts: escapes, references, code, HTML, breaks, link and image ends), delimiter runs
 * (inline-delimiters.ts: with the marker chars emphasis used on each side) and brackets
 * (inline-brackets.ts: with whether each formed a link or an image).
 *
 * Invariant: renderEdits(src, edits) is src with those edits applied, boundaries written as one
 * space outside image labels and as nothing inside one (mdast-util-to-string joins an image's
 * alt without separators); editsHoldSubstance(src, edits) is whether that text holds a JS
 * non-whitespace char. Records never overlap, so merging the three streams by start position
 * visits the edits in source order.
 * Linear bound: O(n + records): each record and each source char is visited once; the output
 * buffer holds at most n + 2 per record + 2 code units.
 */
import * as chars from './chars';
import * as bracketRecords from './inline-brackets';
import * as runRecords from './inline-delimiters';
import * as itemRecords from './inline-items';
import * as utf16 from './utf16-units';

// Imported values are bound once, at load (see chars.ts).
const { SPACE, hasJsNonWhitespace } = chars;
const { BRACKET_STRIDE, bracketFormedImage, bracketLabelStart, bracketOpenerStart, nextFormedBracket } = bracketRecords;
const {
  DELIMITER_STRIDE, nextUsedRun, runBeforeNul, runInfo, runLength, runMarker, runStart, usedLeft, usedRight,
} = runRecords;
const { DROP, IMAGE_CLOSE, ITEM_STRIDE, REPLACE, WRAP, itemEnd, itemKind, itemStart, itemValue, itemValueEnd } = itemRecords;
const { foldedAsciiToString, foldedUnitsToString } = utf16;

/** Plain text of an inline source, and how far it is already a heading text (see headingTextOf). */
export interface InlineText {
  text: string;
  /** True: already its own normalizeHeadingText (set for results written as ASCII); false promises nothing. */
  normalized: boolean;
  /** Its whitespace already folded (every run of JS whitespace one space, none at either end); implied by `normalized`. */
  folded: boolean;
}

/** The pass's records; a stream's `End` is 0 when none of its records is an edit. */
export interface InlineEdits {
  items: Int32Array;
  itemsEnd: number;
  /** Decoded character references (REPLACE items). */
  strings: readonly string[];
  delimiters: Int32Array;
  delimitersEnd: number;
  brackets: Int32Array;
  bracketsEnd: number;
}

/**
 * The source with every edit applied: items, delimiter runs that matched emphasis and
 * brackets that formed a link or an image, merged in source order, with its whitespace folded
 * (blank exactly when the unfolded text is). When the result is ASCII that is exactly its
 * normalizeHeadingText (NFC leaves ASCII as it is); otherwise NFC is what remains (headingTextOf).
 */
export function renderEdits(src: string, edits: InlineEdits): InlineText {
  const { strings, items, itemsEnd, delimiters, delimitersEnd, brackets, bracketsEnd } = edits;
  const n = src.length;
  if (itemsEnd === 0 && delimitersEnd === 0 && bracketsEnd === 0) return { text: src, normalized: false, folded: false };
  // Every edit is at most as long as its source span plus two boundary spaces.
  const out = new Uint16Array(n + 2 * (itemsEnd / ITEM_STRIDE + delimitersEnd / DELIMITER_STRIDE + bracketsEnd / BRACKET_STRIDE) + 2);
  let w = 0;
  // Every code unit written, OR-ed: below 0x80 the output is ASCII and needs no second scan.
  let bits = 0;
  let copied = 0;
  let depth = 0;
  let i = 0;
  let d = nextUsedRun(delimiters, 0, delimitersEnd);
  let b = nextFormedBracket(brackets, 0, bracketsEnd);
  for (;;) {
    const nextItemStart = i < itemsEnd ? itemStart(items, i) : n;
    const nextRunStart = d < delimitersEnd ? runStart(delimiters, d) : n;
    const openerStart = b < bracketsEnd ? bracketOpenerStart(brackets, b) : n;
    if (nextRunStart < nextItemStart && nextRunStart < openerStart) {
      const info = runInfo(delimiters, d);
      const left = usedLeft(delimiters, d);
      const right = usedRight(delimiters, d);
      const length = runLength(info);
      let rest = length - left - right;
      // micromark 4.0.3 slices a partly used opener that ends right before a NUL (a U+FFFD
      // chunk) from its original end, so its leftover text shows the whole run.
      if (runBeforeNul(info) && right > 0 && rest > 0) rest = length - left;
      for (let k = copied; k < nextRunStart; k++) bits |= out[w++] = src.charCodeAt(k);
      if (left > 0 && depth === 0) out[w++] = SPACE;
      const marker = runMarker(info);
      for (let k = 0; k < rest; k++) out[w++] = marker;
      if (right > 0 && depth === 0) out[w++] = SPACE;
      copied = nextRunStart + length;
      d = nextUsedRun(delimiters, d + DELIMITER_STRIDE, delimitersEnd);
      continue;
    }
    if (openerStart < nextItemStart) {
      for (let k = copied; k < openerStart; k++) bits |= out[w++] = src.charCodeAt(k);
      if (depth === 0) out[w++] = SPACE;
      if (bracketFormedImage(brackets, b)) depth++;
      copied = bracketLabelStart(brackets, b);
      b = nextFormedBracket(brackets, b + BRACKET_STRIDE, bracketsEnd);
      continue;
    }
    if (i === itemsEnd) break;
    const kind = itemKind(items, i);
    const value = itemValue(items, i);
    for (let k = copied; k < nextItemStart; k++) bits |= out[w++] = src.charCodeAt(k);
    copied = itemEnd(items, i);
    const valueEnd = itemValueEnd(items, i);
    i += ITEM_STRIDE;
    if (kind === IMAGE_CLOSE) depth--;
    if (kind === DROP) continue;
    if (kind === REPLACE) {
      const text = strings[value] as string;
      for (let k = 0; k < text.length; k++) bits |= out[w++] = text.charCodeAt(k);
      continue;
    }
    if (kind === WRAP) {
      if (depth === 0) out[w++] = SPACE;
      for (let k = value; k < valueEnd; k++) bits |= out[w++] = src.charCodeAt(k);
      if (depth === 0) out[w++] = SPACE;
      continue;
    }
    // BREAK, LINK_CLOSE, IMAGE_CLOSE: one boundary.
    if (depth === 0) out[w++] = SPACE;
  }
  for (let k = copied; k < n; k++) bits |= out[w++] = src.charCodeAt(k);
  return bits < 0x80 ? { text: foldedAsciiToString(out, w), normalized: true, folded: true } : { text: foldedUnitsToString(out, w), normalized: false, folded: true };
}

/**
 * Whether renderEdits(src, edits).text holds a JS non-whitespace char, the edits given field by
 * field (InlineEdits' fields: no object per paragraph), read from the same merge without writing
 * the text: boundaries are spaces, so only the source left in place, the decoded references, the
 * kept ranges of code, HTML and autolinks, and the markers a delimiter run leaves (never
 * whitespace) can hold one. Stops at the first. A walk of its own, not renderEdits with a flag:
 * rendering the text to test it cost paragraphs of images 1.7x (29 -> 17 ms at 1M chars).
 */
export function editsHoldSubstance(
  src: string,
  items: Int32Array,
  itemsEnd: number,
  strings: readonly string[],
  delimiters: Int32Array,
  delimitersEnd: number,
  brackets: Int32Array,
  bracketsEnd: number,
): boolean {
  const n = src.length;
  let copied = 0;
  let i = 0;
  let d = nextUsedRun(delimiters, 0, delimitersEnd);
  let b = nextFormedBracket(brackets, 0, bracketsEnd);
  for (;;) {
    const nextItemStart = i < itemsEnd ? itemStart(items, i) : n;
    const nextRunStart = d < delimitersEnd ? runStart(delimiters, d) : n;
    const openerStart = b < bracketsEnd ? bracketOpenerStart(brackets, b) : n;
    if (nextRunStart < nextItemStart && nextRunStart < openerStart) {
      const length = runLength(runInfo(delimiters, d));
      if (hasJsNonWhitespace(src, copied, nextRunStart) || length > usedLeft(delimiters, d) + usedRight(delimiters, d)) return true;
      copied = nextRunStart + length;
      d = nextUsedRun(delimiters, d + DELIMITER_STRIDE, delimitersEnd);
      continue;
    }
    if (openerStart < nextItemStart) {
      if (hasJsNonWhitespace(src, copied, openerStart)) return true;
      copied = bracketLabelStart(brackets, b);
      b = nextFormedBracket(brackets, b + BRACKET_STRIDE, bracketsEnd);
      continue;
    }
    if (hasJsNonWhitespace(src, copied, nextItemStart)) return true;
    if (i === itemsEnd) return false;
    const kind = itemKind(items, i);
    const value = itemValue(items, i);
    if (kind === REPLACE && hasJsNonWhitespace(strings[value] as string)) return true;
    if (kind === WRAP && hasJsNonWhitespace(src, value, itemValueEnd(items, i))) return true;
    copied = itemEnd(items, i);
    i += ITEM_STRIDE;
  }
}
