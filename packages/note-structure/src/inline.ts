/**
 * The linear inline pass: the plain text that `headingPlainText` (dev/oracle.ts)
 * returns for the mdast of one inline source under mdast-util-from-markdown 2.1.0 /
 * micromark 4.0.3 (plain CommonMark 0.31.2), without building that tree.
 *
 * Invariant: `normalizeHeadingText(inlinePlainText(lines, defs))` equals the reference
 * pipeline's heading text for the same content, and the result is blank exactly when the
 * reference paragraph has no non-blank value or alt. `inlineText` says how much of that
 * normalization is done: a result that needed edits comes back with its whitespace folded, and
 * an ASCII one is then normalized (headingTextOf does the rest). Every node boundary is emitted as a
 * space (the reference joins siblings with ' ' and folds whitespace) except inside an image
 * label, whose alt is the children's text concatenated without separators.
 *
 * Linear bound: one left-to-right pass over the source, which stops only at the PASS_TRIGGERS
 * chars of chars.ts. Emphasis is matched over a delimiter list by inline-emphasis.ts
 * (openers-bottom, runs inside a new emphasis matched again as micromark does, see its bound);
 * brackets use a stack with a floor below which link openers are inactive; code spans find their
 * closer through one shared lazy scan (BacktickRuns, inline-code.ts); the other lookahead
 * scanners (one module per construct: character-references.ts, inline-autolinks.ts,
 * inline-html.ts, inline-links.ts, inline-labels.ts) are memoized or bounded. Each edit, delimiter
 * run and bracket is one fixed-size Int32Array record of its stream (inline-items.ts,
 * inline-delimiters.ts, inline-brackets.ts: only they know the packing), written once, in buffers
 * kept from the previous pass (inline-record-buffers.ts); a stream that outgrows its buffer is
 * copied into one sized by its records so far projected over the source, at least
 * doubling, capped by its module's bound on the records the rest of the source can still make
 * (one scan of that rest per stream; growth.ts). The output is the source with the recorded
 * edits applied, copied once into a code-unit buffer (inline-edits.ts). No recursion. Reference
 * labels (inline-labels.ts) cost O(n) over the whole pass whatever the defined labels' lengths:
 * only spans without a bare bracket are normalized, and those are disjoint.
 */

import * as chars from './chars';
import * as growth from './growth';
import * as bracketRecords from './inline-brackets';
import * as runRecords from './inline-delimiters';
import * as edits from './inline-edits';
import { EmphasisRuns } from './inline-emphasis';
import * as itemRecords from './inline-items';
import * as labels from './inline-labels';
import { LabelLookup } from './inline-labels';
import * as autolinks from './inline-autolinks';
import * as references from './character-references';
import * as code from './inline-code';
import { BacktickRuns } from './inline-code';
import { HtmlScanner } from './inline-html';
import { LinkScanner } from './inline-links';
import * as recordBuffers from './inline-record-buffers';
import * as utf16 from './utf16-units';
import type { CharacterReference } from './character-references';
import type { InlineEdits, InlineText } from './inline-edits';
import type { RecordBuffers } from './inline-record-buffers';

export { normalizeLabel } from './inline-labels';

// Imported values are bound once, at load (see chars.ts).
const {
  AMP, ASCII_FLANKS, BACKSLASH, BACKTICK, BANG, FLANK_OTHER, FLANK_PUNCTUATION, LBRACKET, LF, LPAREN, LT, NUL, PASS_TRIGGERS,
  RBRACKET, REPLACEMENT, STAR, TAB, UNDERSCORE, flankClass, isAsciiPunctuation, isSpaceOrTab,
} = chars;
const { grown, grownLength } = growth;
const {
  BRACKET_STRIDE, bracketBottom, bracketBound, bracketIsImage, bracketLabelStart, setBracketFormed, writeBracket,
} = bracketRecords;
const {
  BEFORE_NUL, CAN_CLOSE, CAN_OPEN, DELIMITER_STRIDE, NONE, runBound, runCanClose, runCanOpen, runNext, runStart, setRunNext,
  writeRun,
} = runRecords;
const { editsHoldSubstance, renderEdits } = edits;
const { BREAK, DROP, IMAGE_CLOSE, ITEM_STRIDE, LINK_CLOSE, REPLACE, WRAP, itemBound, itemStart, writeItem } = itemRecords;
const { scanAutolink } = autolinks;
const { scanCharacterReference } = references;
const { codePadding } = code;
const { scanReferenceLabel } = labels;
const { giveBackRecordBuffers, takeRecordBuffers } = recordBuffers;
const { flatCopy, fromCodeUnits } = utf16;

/** Sources of at least this many chars in one line are read from a flat copy (prepareSource). */
const FLAT_COPY_FROM = 1024;

/** The decoded references of a pass that read none. */
const NO_STRINGS: readonly string[] = [];

/** lastCloser not yet computed. */
const UNKNOWN = -2;

/** CAN_OPEN and CAN_CLOSE of the run of `marker` chars [start, end), by CommonMark's flanking rules. */
function runFlags(src: string, marker: number, start: number, end: number): number {
  const beforeCode = start > 0 ? src.charCodeAt(start - 1) : -1;
  const afterCode = end < src.length ? src.charCodeAt(end) : -1;
  // The ASCII lookup written out: flankClass is not always inlined here, and this runs per run.
  const before = beforeCode >= 0 && beforeCode < 128 ? (ASCII_FLANKS[beforeCode] as number) : flankClass(beforeCode);
  const after = afterCode >= 0 && afterCode < 128 ? (ASCII_FLANKS[afterCode] as number) : flankClass(afterCode);
  const open = after === FLANK_OTHER || (after === FLANK_PUNCTUATION && before !== FLANK_OTHER);
  const close = before === FLANK_OTHER || (before === FLANK_PUNCTUATION && after !== FLANK_OTHER);
  const canOpen = marker === STAR ? open : open && (before !== FLANK_OTHER || !close);
  const canClose = marker === STAR ? close : close && (after !== FLANK_OTHER || !open);
  return (canOpen ? CAN_OPEN : 0) | (canClose ? CAN_CLOSE : 0);
}

/** Joins the content lines as micromark's text tokenizer sees them: line prefixes stripped (NUL is replaced by the caller). */
function prepareSource(lines: readonly string[]): string {
  let src: string;
  if (lines.length === 1) src = withoutIndent(lines[0] as string);
  else {
    const parts: string[] = new Array(lines.length);
    for (let line = 0; line < lines.length; line++) parts[line] = withoutIndent(lines[line] as string);
    src = parts.join('\n');
  }
  let end = src.length;
  while (end > 0 && isSpaceOrTab(src.charCodeAt(end - 1))) end--;
  // One line is a slice of the note, and so is a trimmed source (a joined one is flat): a long one gets a flat copy.
  const sliced = lines.length === 1 || end < src.length;
  if (end < src.length) src = src.slice(0, end);
  return sliced && src.length >= FLAT_COPY_FROM ? flatCopy(src) : src;
}

/** `line` without its leading spaces and tabs. */
function withoutIndent(line: string): string {
  let start = 0;
  while (start < line.length && isSpaceOrTab(line.charCodeAt(start))) start++;
  return start === 0 ? line : line.slice(start);
}

/**
 * Plain text of the inline content `lines` (paragraph, setext text lines, or one ATX content
 * line; container prefixes removed, no line endings) before NFC and whitespace folding, except
 * that a result that needed edits comes back folded (see inlineText); given the
 * normalized labels the note defines (each as normalizeLabel gives a definition's label: the
 * lookup relies on it holding no unescaped bracket, see inline-labels.ts).
 */
export function inlinePlainText(lines: readonly string[], definitions: ReadonlySet<string>): string {
  return inlineText(lines, definitions).text;
}

/** inlinePlainText, with whether that text is already folded, or already its own normalizeHeadingText. */
export function inlineText(lines: readonly string[], definitions: ReadonlySet<string>): InlineText {
  const pass = passOver(lines, definitions);
  pass.scan();
  const text = pass.render();
  pass.release();
  return text;
}

/** Whether inlinePlainText(lines, definitions) holds a JS non-whitespace char (a paragraph's substance), without building it. */
export function inlineSubstantive(lines: readonly string[], definitions: ReadonlySet<string>): boolean {
  const pass = passOver(lines, definitions);
  pass.scan();
  const substantive = pass.substantive();
  pass.release();
  return substantive;
}

/** The source a pass reads, and where it began each record it wrote, per stream in the order written. */
export interface RecordPositions {
  source: string;
  /** Each item's start. */
  items: number[];
  /** Each delimiter run's start. */
  runs: number[];
  /** Each bracket's `[`. */
  brackets: number[];
}

/** Where the pass over `lines` begins the records it writes, as each stream's growth bound counts them from (read by tests). */
export function recordPositions(lines: readonly string[], definitions: ReadonlySet<string>): RecordPositions {
  const pass = passOver(lines, definitions);
  pass.scan();
  return pass.positions();
}

/** A pass over the inline content `lines`, not run yet. */
function passOver(lines: readonly string[], definitions: ReadonlySet<string>): InlinePass {
  const source = prepareSource(lines);
  if (!source.includes('\0')) return new InlinePass(source, definitions, null);
  // micromark reads NUL as U+FFFD; remember where, for the one place its output still differs.
  // (One code-unit copy: a global regex replace of many NULs grows superlinearly in V8.)
  const n = source.length;
  const nul = new Uint8Array(n + 1);
  const units = new Uint16Array(n);
  for (let at = 0; at < n; at++) {
    const c = source.charCodeAt(at);
    if (c === NUL) {
      units[at] = REPLACEMENT;
      nul[at] = 1;
    } else units[at] = c;
  }
  return new InlinePass(fromCodeUnits(units, n), definitions, nul);
}

/** One pass; all state in flat Int32Array records, linked lists by record offset. */
class InlinePass {
  private readonly n: number;
  private items: Int32Array<ArrayBuffer>;
  private itemsEnd = 0;
  /** Upper bound on the ints each record stream can hold by the end of the pass; -1 until its first growth. */
  private itemsCap = -1;
  private delimitersCap = -1;
  private bracketsCap = -1;
  /** Decoded character references (REPLACE items), made at the first. */
  private strings: string[] | null = null;
  /** The pass's one character-reference answer, filled per `&`. */
  private reference: CharacterReference | null = null;
  private delimiters: Int32Array<ArrayBuffer>;
  private delimitersEnd = 0;
  /** Whether any emphasis matched (otherwise every delimiter run stays literal). */
  private emphasis = false;
  /** Whether any bracket formed a link or an image. */
  private linked = false;
  /** Whether a run that can open has been recorded, per marker (`*`, `_`). */
  private starOpeners = false;
  private underscoreOpeners = false;
  /** lastCloser's answer per marker, once asked. */
  private lastStarCloser = UNKNOWN;
  private lastUnderscoreCloser = UNKNOWN;
  private head = NONE;
  private tail = NONE;
  private brackets: Int32Array<ArrayBuffer>;
  private bracketsEnd = 0;
  /** Open brackets (ids), innermost last. */
  private stack: Int32Array<ArrayBuffer>;
  private stackSize = 0;
  /** Link openers at stack indices below this are inactive (a link formed after them). */
  private linkFloor = 0;
  private emphasisRuns: EmphasisRuns | null = null;
  private html: HtmlScanner | null = null;
  private links: LinkScanner | null = null;
  private codeRuns: BacktickRuns | null = null;
  /** Made at the first label looked up. */
  private labelLookup: LabelLookup | null = null;
  /** The record buffers taken for this pass, given back by release() with the streams as grown. */
  private readonly buffers: RecordBuffers;

  constructor(
    private readonly src: string,
    private readonly definitions: ReadonlySet<string>,
    /** 1 where the source held NUL (now U+FFFD), or null when it held none. */
    private readonly nul: Uint8Array | null,
  ) {
    this.n = src.length;
    const buffers = takeRecordBuffers();
    this.buffers = buffers;
    this.items = buffers.items;
    this.delimiters = buffers.delimiters;
    this.brackets = buffers.brackets;
    this.stack = buffers.stack;
  }

  /** Records the source's edits: the one left-to-right pass, then emphasis over what is left. */
  scan(): void {
    const src = this.src;
    const n = this.n;
    let p = 0;
    // Start of the current stretch of plain text (for trailing spaces before a line ending).
    let textStart = 0;
    while (p < n) {
      const c = src.charCodeAt(p);
      if (c >= 128 || PASS_TRIGGERS[c] === 0) {
        p++;
        continue;
      }
      switch (c) {
        case LF: {
          // Trailing spaces/tabs of the text before a line ending: a hard break when 2+ spaces, else dropped.
          let end = p;
          let tabs = false;
          for (;;) {
            const d = src.charCodeAt(end - 1);
            if (end > textStart && isSpaceOrTab(d)) {
              if (d === TAB) tabs = true;
              end--;
            } else break;
          }
          if (!tabs && p - end >= 2) this.item(BREAK, end, p + 1, 0, 0);
          else if (end < p) this.item(DROP, end, p, 0, 0);
          p++;
          textStart = p;
          break;
        }
        case BACKSLASH: {
          const d = src.charCodeAt(p + 1);
          if (d === LF) {
            this.item(BREAK, p, p + 2, 0, 0);
            p += 2;
            textStart = p;
          } else if (isAsciiPunctuation(d)) {
            this.item(DROP, p, p + 1, 0, 0);
            p += 2;
            textStart = p;
          } else p++;
          break;
        }
        case AMP: {
          const reference = scanCharacterReference(src, p, (this.reference ??= { end: 0, value: '' }));
          if (reference === null) {
            p++;
            break;
          }
          this.item(REPLACE, p, reference.end, (this.strings ??= []).push(reference.value) - 1, 0);
          p = reference.end;
          textStart = p;
          break;
        }
        case BACKTICK: {
          let q = p + 1;
          while (src.charCodeAt(q) === BACKTICK) q++;
          const close = this.codeClose(q - p, q);
          if (close < 0) {
            p = q;
            break;
          }
          const end = close + (q - p);
          // The code text value: one padding space or line ending stripped from each side when both exist and the rest is not all padding.
          const trim = codePadding(src, q, close) ? 1 : 0;
          this.item(WRAP, p, end, q + trim, close - trim);
          p = end;
          textStart = p;
          break;
        }
        case STAR:
        case UNDERSCORE: {
          let q = p + 1;
          while (src.charCodeAt(q) === c) q++;
          this.delimiter(c, p, q);
          p = q;
          textStart = p;
          break;
        }
        case LT: {
          let end = scanAutolink(src, p);
          if (end >= 0) this.item(WRAP, p, end, p + 1, end - 1);
          else {
            this.html ??= new HtmlScanner(src);
            end = this.html.scan(p);
            if (end < 0) {
              p++;
              break;
            }
            this.item(WRAP, p, end, p, end);
          }
          p = end;
          textStart = p;
          break;
        }
        case BANG: {
          if (src.charCodeAt(p + 1) !== LBRACKET) {
            p++;
            break;
          }
          this.bracket(true, p + 2);
          p += 2;
          textStart = p;
          break;
        }
        case LBRACKET: {
          this.bracket(false, p + 1);
          p++;
          textStart = p;
          break;
        }
        default: {
          // RBRACKET
          const end = this.closeBracket(p);
          if (end < 0) p++;
          else {
            p = end;
            textStart = p;
          }
        }
      }
    }
    this.processEmphasis(NONE);
  }

  /** Gives the record buffers back (the pass reads them no more). */
  release(): void {
    const buffers = this.buffers;
    buffers.items = this.items;
    buffers.delimiters = this.delimiters;
    buffers.brackets = this.brackets;
    buffers.stack = this.stack;
    // The stack never held more entries than there were brackets.
    giveBackRecordBuffers(buffers, this.itemsEnd, this.delimitersEnd, this.bracketsEnd, this.bracketsEnd / BRACKET_STRIDE);
  }

  /** Where each record began (see RecordPositions); then gives the buffers back. */
  positions(): RecordPositions {
    const positions: RecordPositions = { source: this.src, items: [], runs: [], brackets: [] };
    for (let at = 0; at < this.itemsEnd; at += ITEM_STRIDE) positions.items.push(itemStart(this.items, at));
    for (let id = 0; id < this.delimitersEnd; id += DELIMITER_STRIDE) positions.runs.push(runStart(this.delimiters, id));
    for (let id = 0; id < this.bracketsEnd; id += BRACKET_STRIDE) positions.brackets.push(bracketLabelStart(this.brackets, id) - 1);
    this.release();
    return positions;
  }

  private item(kind: number, start: number, end: number, value: number, valueEnd: number): void {
    const at = this.itemsEnd;
    if (at + ITEM_STRIDE > this.items.length) this.growItems(start);
    writeItem(this.items, at, kind, start, end, value, valueEnd);
    this.itemsEnd = at + ITEM_STRIDE;
  }

  /** Room for one more item record, for an item starting at `start`. */
  private growItems(start: number): void {
    const at = this.itemsEnd;
    if (this.itemsCap < 0) this.itemsCap = at + ITEM_STRIDE * itemBound(this.src, start);
    this.items = grown(this.items, grownLength(at, ITEM_STRIDE, start, this.n, this.itemsCap));
  }

  private delimiter(marker: number, start: number, end: number): void {
    const flags = runFlags(this.src, marker, start, end);
    const canOpen = runCanOpen(flags);
    // A run is only ever used as a closer of an earlier opener with its marker, or as an opener
    // of a later closer: a run with no such partner is literal text whatever else happens, and
    // leaving it out of the list changes no other match (it is never between a matched pair).
    if (canOpen) {
      if (marker === STAR) this.starOpeners = true;
      else this.underscoreOpeners = true;
      if (!runCanClose(flags) && start >= this.lastCloser(marker)) return;
    } else if (!(marker === STAR ? this.starOpeners : this.underscoreOpeners)) return;
    const id = this.delimitersEnd;
    if (id + DELIMITER_STRIDE > this.delimiters.length) {
      if (this.delimitersCap < 0) this.delimitersCap = id + DELIMITER_STRIDE * runBound(this.src, start);
      this.delimiters = grown(this.delimiters, grownLength(id, DELIMITER_STRIDE, start, this.n, this.delimitersCap));
    }
    const records = this.delimiters;
    const nulAfter = this.nul !== null && this.nul[end] === 1 ? BEFORE_NUL : 0;
    writeRun(records, id, start, end - start, marker, flags | nulAfter, this.tail);
    if (this.tail !== NONE) setRunNext(records, this.tail, id);
    else this.head = id;
    this.tail = id;
    this.delimitersEnd = id + DELIMITER_STRIDE;
  }

  /**
   * The start of the last run of `marker` chars in the source that can close (-1 when none),
   * found once per marker by one backward scan. The scan reads maximal runs of raw chars, so
   * it also sees runs inside code, HTML or after an escape that the pass never records: its
   * answer is never before the last closer the pass records, which is all the caller needs.
   */
  private lastCloser(marker: number): number {
    const cached = marker === STAR ? this.lastStarCloser : this.lastUnderscoreCloser;
    if (cached !== UNKNOWN) return cached;
    const src = this.src;
    let found = -1;
    for (let end = src.length - 1; end >= 0; end--) {
      if (src.charCodeAt(end) !== marker) continue;
      let start = end;
      while (start > 0 && src.charCodeAt(start - 1) === marker) start--;
      if (runCanClose(runFlags(src, marker, start, end + 1))) {
        found = start;
        break;
      }
      end = start;
    }
    if (marker === STAR) this.lastStarCloser = found;
    else this.lastUnderscoreCloser = found;
    return found;
  }

  /** The index of the next backtick run of exactly `size` starting at or after `from`, or -1. */
  private codeClose(size: number, from: number): number {
    return (this.codeRuns ??= new BacktickRuns(this.src)).close(size, from);
  }

  private bracket(image: boolean, labelStart: number): void {
    if (this.linkFloor > this.stackSize) this.linkFloor = this.stackSize;
    const id = this.bracketsEnd;
    if (id + BRACKET_STRIDE > this.brackets.length) {
      if (this.bracketsCap < 0) this.bracketsCap = id + BRACKET_STRIDE * bracketBound(this.src, labelStart - 1);
      this.brackets = grown(this.brackets, grownLength(id, BRACKET_STRIDE, labelStart - 1, this.n, this.bracketsCap));
    }
    writeBracket(this.brackets, id, labelStart, this.tail, image);
    this.bracketsEnd = id + BRACKET_STRIDE;
    if (this.stackSize === this.stack.length) {
      // Open brackets never outnumber brackets, so the bracket stream's bound caps the stack too.
      if (this.bracketsCap < 0) this.bracketsCap = id + BRACKET_STRIDE * bracketBound(this.src, labelStart - 1);
      this.stack = grown(this.stack, grownLength(this.stackSize, 1, labelStart - 1, this.n, this.bracketsCap / BRACKET_STRIDE));
    }
    this.stack[this.stackSize++] = id;
  }

  /** A `]` at p: the index after the link or image it closes, or -1 when it stays literal. */
  private closeBracket(p: number): number {
    if (this.stackSize === 0) return -1;
    const opener = this.stack[this.stackSize - 1] as number;
    const image = bracketIsImage(this.brackets, opener);
    if (!image && this.stackSize - 1 < this.linkFloor) {
      this.stackSize--;
      return -1;
    }
    const labelStart = bracketLabelStart(this.brackets, opener);
    const next = this.src.charCodeAt(p + 1);
    const end =
      next === LPAREN || next === LBRACKET ? this.resourceOrFullReference(p, labelStart, next) : this.labels.defined(labelStart, p) ? p + 1 : -1;
    this.stackSize--;
    if (end < 0) return -1;
    this.formLink(opener, image, p, end);
    return end;
  }

  /**
   * Bracket `opener` forms a link (an image when `image`) that the `]` at p closes, up to `end`.
   * A method of its own: V8 keeps closeBracket's optimized code across notes, and after notes
   * where few `]` formed links the record writes here would stay out of line in it; this method
   * is optimized on its own, with them inlined.
   */
  private formLink(opener: number, image: boolean, p: number, end: number): void {
    // With no delimiter above the bottom there is no emphasis to match and nothing to drop.
    const bottom = bracketBottom(this.brackets, opener);
    if (bottom !== this.tail) this.processEmphasis(bottom);
    setBracketFormed(this.brackets, opener, image);
    this.linked = true;
    this.item(image ? IMAGE_CLOSE : LINK_CLOSE, p, end, 0, 0);
    if (!image) this.linkFloor = this.stackSize;
  }

  /**
   * The end of the link or image whose label ends at the `]` at p when `next` (src[p + 1]) is `(` or
   * `[`, or -1: a resource, else a shortcut reference (after `(`); a full or collapsed reference
   * (after `[`).
   */
  private resourceOrFullReference(p: number, labelStart: number, next: number): number {
    const src = this.src;
    if (next === LPAREN) {
      const end = (this.links ??= new LinkScanner(src)).resource(p + 1);
      return end < 0 && this.labels.defined(labelStart, p) ? p + 1 : end;
    }
    const labelEnd = scanReferenceLabel(src, p + 1);
    if (labelEnd >= 0 && this.labels.definedLabel(p + 2, labelEnd - 1)) return labelEnd;
    return this.labels.defined(labelStart, p) && src.charCodeAt(p + 2) === RBRACKET ? p + 3 : -1;
  }

  private get labels(): LabelLookup {
    return (this.labelLookup ??= new LabelLookup(this.src, this.definitions));
  }

  /** Matches emphasis among the delimiters above `bottom`, then drops them all from the list. */
  private processEmphasis(bottom: number): void {
    const first = bottom === NONE ? this.head : runNext(this.delimiters, bottom);
    if (first !== NONE && (this.emphasisRuns ??= new EmphasisRuns()).match(this.delimiters, first, bottom)) this.emphasis = true;
    // Whatever is left above the bottom stays literal.
    if (bottom === NONE) {
      this.head = NONE;
      this.tail = NONE;
    } else {
      setRunNext(this.delimiters, bottom, NONE);
      this.tail = bottom;
    }
  }

  render(): InlineText {
    return renderEdits(this.src, this.edits());
  }

  /** Whether the rendered text would hold a JS non-whitespace char. */
  substantive(): boolean {
    const { items, itemsEnd, delimiters, brackets } = this;
    return editsHoldSubstance(this.src, items, itemsEnd, this.strings ?? NO_STRINGS, delimiters, this.emphasis ? this.delimitersEnd : 0, brackets, this.linked ? this.bracketsEnd : 0);
  }

  private edits(): InlineEdits {
    return {
      items: this.items,
      itemsEnd: this.itemsEnd,
      strings: this.strings ?? NO_STRINGS,
      // Without emphasis every delimiter run is literal text; without links every bracket is.
      delimiters: this.delimiters,
      delimitersEnd: this.emphasis ? this.delimitersEnd : 0,
      brackets: this.brackets,
      bracketsEnd: this.linked ? this.bracketsEnd : 0,
    };
  }
}
