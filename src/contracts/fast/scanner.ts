/**
 * A line-by-line model of micromark's block tokenizer (the document layer
 * of block quotes and list items, and one flow tokenizer shared across
 * container boundaries), reduced to what a NoteStructure needs: heading
 * levels, offsets and inline source, top-level block starts, and the
 * "substantive" bit of every top-level block.
 *
 * It models micromark 4.0.3, not the spec text: where micromark and
 * commonmark.js disagree (lazy lines, the interrupt flag that survives a
 * pending indented-code lookahead or a nested container start, setext
 * headings after definitions), micromark wins, because micromark is the
 * parser of record. Inline syntax is decided here only for headings whose
 * inline syntax is emphasis and code spans (inline.ts) and for paragraphs
 * with a char that must land in a value; any other heading or paragraph
 * whose inline content matters is handed back as a segment for micromark
 * itself to parse (analyze.ts).
 *
 * Anything outside the proven model throws Decline, and the caller parses
 * the whole note with the reference pipeline instead.
 */

import { emphasisAndCodePlainText } from './inline';

export class Decline extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'Decline';
  }
}

const SPACE = 32;
const TAB = 9;
const LF = 10;
const CR = 13;
const HASH = 35;
const STAR = 42;
const PLUS = 43;
const DASH = 45;
const DOT = 46;
const SLASH = 47;
const COLON = 58;
const LT = 60;
const EQUALS = 61;
const GT = 62;
const QUESTION = 63;
const LBRACKET = 91;
const BACKSLASH = 92;
const RBRACKET = 93;
const UNDERSCORE = 95;
const BACKTICK = 96;
const TILDE = 126;
const BANG = 33;
const AMP = 38;
const LPAREN = 40;
const RPAREN = 41;
const QUOTE = 34;
const APOS = 39;
const DEL = 127;

/** Deeper nesting is declined: continuation work per line grows with depth. */
const MAX_CONTAINER_DEPTH = 32;
/**
 * A paragraph or heading with more `*`, `_` and `[` than this is declined:
 * inline nesting can then never exceed ~2,000 levels, which micromark was
 * measured to parse (16,000 levels) in Node and in workerd, so only the
 * reference decides notes that could exhaust a parser stack.
 */
const MAX_INLINE_DELIMITERS = 4096;
/** Longer definition labels are declined (micromark's 999-code limit counts tab columns). */
const MAX_LABEL_CHARS = 400;

const HTML_RAW_NAMES = ['pre', 'script', 'style', 'textarea'];
const HTML_BLOCK_NAMES = new Set([
  'address', 'article', 'aside', 'base', 'basefont', 'blockquote', 'body', 'caption', 'center', 'col',
  'colgroup', 'dd', 'details', 'dialog', 'dir', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'frame', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header', 'hr',
  'html', 'iframe', 'legend', 'li', 'link', 'main', 'menu', 'menuitem', 'nav', 'noframes', 'ol',
  'optgroup', 'option', 'p', 'param', 'search', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot',
  'th', 'thead', 'title', 'tr', 'track', 'ul',
]);

const enum Flow {
  None,
  Content,
  CodeIndented,
  CodeFenced,
  Html,
}

const enum HtmlKind {
  Raw = 1,
  Comment = 2,
  Instruction = 3,
  Declaration = 4,
  Cdata = 5,
  Basic = 6,
  Complete = 7,
}

/** States of micromark's html-flow end-condition machine, per line. */
const enum HtmlEnd {
  Continuation,
  CommentInside,
  RawTagOpen,
  RawEndTag,
  CdataInside,
  DeclarationInside,
}

/** States of micromark's condition-7 attribute machine. */
const enum Attr {
  NameBefore,
  Name,
  NameAfter,
  ValueBefore,
  Quoted,
  Unquoted,
  QuotedAfter,
}

interface Container {
  quote: boolean;
  ordered: boolean;
  /** Bullet char, or the ordered delimiter (`.` / `)`); 0 until the first item sets it. */
  marker: number;
  /** Columns a line needs (after outer containers) to stay in the current item. */
  size: number;
  initialBlank: boolean;
  furtherBlank: boolean;
  closeFlow: boolean;
}

/** An inline source micromark must parse: a heading's text or a paragraph's substance. */
export type Segment =
  | { kind: 'atx'; from: number; to: number }
  | { kind: 'setext' | 'paragraph'; starts: number[]; ends: number[] };

export interface ScannedHeading {
  level: number;
  start: number;
  end: number;
  /** Known raw plain text (not yet normalized), or null with `segment` set. */
  text: string | null;
  segment: number;
}

export interface ScannedBlock {
  start: number;
  substantive: boolean;
  /** Segments whose substance decides the bit when `substantive` is still false. */
  pending: number[] | null;
}

export interface ScanResult {
  headings: ScannedHeading[];
  blocks: ScannedBlock[];
  segments: Segment[];
  /** Labels of every definition (raw text, whitespace runs folded to one space). */
  labels: string[];
}

/** ECMAScript WhiteSpace + LineTerminator: exactly what `\s` and String#trim use. */
export function isJsWhitespace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isAsciiAlpha(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isAsciiAlphanumeric(code: number): boolean {
  return isDigit(code) || isAsciiAlpha(code);
}

/**
 * Characters that can be markup or sit in a non-value part of an inline
 * construct; a paragraph char outside this set (and outside whitespace)
 * before the first `](` / `][` lands in some text, code or alt value.
 */
function isPossiblyMarkup(code: number): boolean {
  return (
    code === STAR ||
    code === UNDERSCORE ||
    code === BACKTICK ||
    code === BACKSLASH ||
    code === LBRACKET ||
    code === RBRACKET ||
    code === BANG ||
    code === LT ||
    code === GT ||
    code === AMP ||
    code === LPAREN ||
    code === RPAREN ||
    code === QUOTE ||
    code === APOS
  );
}

export function scanNote(body: string): ScanResult {
  return new Scanner(body).run();
}

class Scanner {
  private readonly body: string;
  private readonly len: number;

  // Current line and cursor. `col` is micromark's column: tabs expand to the next multiple of 4,
  // and a cursor inside a tab keeps `pos` on the tab with `col` past its start.
  private lineEnd = 0;
  private pos = 0;
  private col = 0;

  private readonly stack: Container[] = [];
  /** Scratch state for container checks; copied only when a container is pushed. */
  private readonly probe: Container = { quote: false, ordered: false, marker: 0, size: 0, initialBlank: false, furtherBlank: false, closeFlow: false };
  /** Block record of stack[0] (the top-level container), when the stack is non-empty. */
  private topRecord = -1;

  private flow: Flow = Flow.None;
  private flowAlive = false;
  /** Record that the current flow construct contributes to; -1 when it is itself top level. */
  private owner = -1;

  // Content (paragraph / definitions) in progress.
  // Line starts/ends of the open content; reused across contents (never shrunk), `contentLines` long.
  private readonly contentStarts: number[] = [];
  private readonly contentEnds: number[] = [];
  private contentLines = 0;
  // Fenced code in progress.
  private fenceMarker = 0;
  private fenceSize = 0;
  // Html in progress.
  private htmlKind: HtmlKind = HtmlKind.Basic;
  // Substance of a top-level code/html construct in progress.
  private leafRecord = -1;

  // Per-line cursor facts for the flow chunk.
  private chunkPos = 0;
  private firstNonSpace = 0;
  private prefixColumns = 0;
  private blank = false;

  private readonly headings: ScannedHeading[] = [];
  private readonly blocks: ScannedBlock[] = [];
  private readonly segments: Segment[] = [];
  private readonly labels: string[] = [];

  constructor(body: string) {
    this.body = body;
    this.len = body.length;
  }

  run(): ScanResult {
    const { body, len } = this;
    if (len > 0 && body.charCodeAt(0) === 0xfeff) throw new Decline('byte order mark');
    if (body.indexOf('\0') !== -1) throw new Decline('NUL');
    const hasCR = body.indexOf('\r') !== -1;
    let start = 0;
    while (start < len || (start === 0 && len === 0)) {
      let end: number;
      let next: number;
      if (!hasCR) {
        end = body.indexOf('\n', start);
        if (end === -1) end = len;
        next = end + 1;
      } else {
        end = start;
        while (end < len) {
          const c = body.charCodeAt(end);
          if (c === LF || c === CR) break;
          end++;
        }
        next = end < len && body.charCodeAt(end) === CR && body.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
      }
      this.line(start, end);
      if (len === 0) break;
      start = next;
    }
    this.closeFlow();
    this.exitContainers(0);
    return { headings: this.headings, blocks: this.blocks, segments: this.segments, labels: this.labels };
  }

  // ---------------------------------------------------------------- document layer

  private line(start: number, end: number): void {
    this.lineEnd = end;
    this.pos = start;
    this.col = 0;
    const stack = this.stack;

    let continued = 0;
    while (continued < stack.length) {
      const container = stack[continued];
      if (container.quote) {
        if (!this.quoteContinuation()) break;
        continued++;
      } else {
        container.closeFlow = false;
        if (!this.listContinuation(container)) {
          container.closeFlow = false;
          break;
        }
        continued++;
        if (container.closeFlow) {
          container.closeFlow = false;
          this.closeFlow();
          this.exitContainers(continued);
          break;
        }
      }
    }

    let interrupt = false;
    let lazy = false;
    let tryNew = true;
    if (continued === stack.length && this.flowAlive) {
      if (this.flow === Flow.CodeFenced || this.flow === Flow.Html) tryNew = false;
      else interrupt = this.flow !== Flow.None;
    }
    if (tryNew) {
      if (this.containerStart(interrupt, false)) {
        // Something new begins: the open flow ends before it, and unmatched containers close.
        this.closeFlow();
        this.exitContainers(continued);
        while (this.containerStart(interrupt, true)) {
          // Each success pushed one more nested container.
        }
      } else {
        lazy = continued !== stack.length;
      }
    }
    this.flowLine(lazy, continued);
  }

  /** `>` after at most 3 columns, then one optional space/tab column. */
  private quoteContinuation(): boolean {
    const savedPos = this.pos;
    const savedCol = this.col;
    this.eatSpace(3);
    if (this.pos < this.lineEnd && this.body.charCodeAt(this.pos) === GT) {
      this.pos++;
      this.col++;
      this.eatSpace(1);
      return true;
    }
    this.pos = savedPos;
    this.col = savedCol;
    return false;
  }

  private listContinuation(list: Container): boolean {
    if (this.restIsBlank()) {
      list.furtherBlank = list.furtherBlank || list.initialBlank;
      this.eatSpace(list.size);
      return true;
    }
    const startsWithSpace = this.atSpace();
    const further = list.furtherBlank;
    list.furtherBlank = false;
    list.initialBlank = false;
    if (!further && startsWithSpace) {
      const savedPos = this.pos;
      const savedCol = this.col;
      if (this.eatSpace(list.size) === list.size) return true;
      this.pos = savedPos;
      this.col = savedCol;
    }
    // Not in the current item: maybe a sibling item of the same list (which closes the flow).
    list.closeFlow = true;
    const savedPos = this.pos;
    const savedCol = this.col;
    const prefix = this.eatSpace(3);
    if (this.listItemStart(list, prefix, false)) return true;
    this.pos = savedPos;
    this.col = savedCol;
    return false;
  }

  /**
   * Tries one new container at the cursor. With `commit` it is pushed and the
   * cursor stays past its prefix; without, the cursor is restored (a check).
   */
  private containerStart(interrupt: boolean, commit: boolean): boolean {
    const savedPos = this.pos;
    const savedCol = this.col;
    const prefix = this.eatSpace(3);
    if (this.pos < this.lineEnd) {
      const code = this.body.charCodeAt(this.pos);
      const markerAt = this.pos;
      let started = false;
      const probe = this.probe;
      probe.quote = code === GT;
      probe.ordered = isDigit(code);
      probe.marker = 0;
      probe.size = 0;
      probe.initialBlank = false;
      probe.furtherBlank = false;
      probe.closeFlow = false;
      if (code === GT) {
        this.pos++;
        this.col++;
        this.eatSpace(1);
        started = true;
      } else if (code === STAR || code === PLUS || code === DASH || isDigit(code)) {
        started = this.listItemStart(probe, prefix, interrupt);
      }
      if (started) {
        if (commit) this.push({ ...probe }, markerAt);
        else {
          this.pos = savedPos;
          this.col = savedCol;
        }
        return true;
      }
    }
    this.pos = savedPos;
    this.col = savedCol;
    return false;
  }

  /**
   * micromark's list item prefix at the cursor: bullet or up to 9 digits plus
   * delimiter, then a blank rest, 1-4 columns of whitespace, or one column
   * when 5 or more follow. `prefix` is the indentation already consumed.
   */
  private listItemStart(list: Container, prefix: number, interrupt: boolean): boolean {
    const body = this.body;
    if (this.pos >= this.lineEnd) return false;
    const code = body.charCodeAt(this.pos);
    let markerLength: number;
    let delimiter: number;
    if (!list.ordered) {
      if (code !== STAR && code !== PLUS && code !== DASH) return false;
      if (list.marker !== 0 && code !== list.marker) return false;
      if ((code === STAR || code === DASH) && this.isThematicBreak(this.pos, code)) return false;
      markerLength = 1;
      delimiter = code;
    } else {
      if (!isDigit(code)) return false;
      if (interrupt && code !== 49) return false;
      let digits = 0;
      let at = this.pos;
      while (at < this.lineEnd && isDigit(body.charCodeAt(at)) && ++digits < 10) at++;
      if (digits >= 10) return false;
      if (interrupt && digits >= 2) return false;
      const next = at < this.lineEnd ? body.charCodeAt(at) : -1;
      if (list.marker !== 0 ? next !== list.marker : next !== DOT && next !== RPAREN) return false;
      markerLength = digits + 1;
      delimiter = next;
    }
    this.pos += markerLength;
    this.col += markerLength;
    if (this.restIsBlank()) {
      if (interrupt) return false;
      if (list.marker === 0) list.marker = delimiter;
      list.initialBlank = true;
      list.size = prefix + markerLength + 1;
      return true;
    }
    const afterMarkerPos = this.pos;
    const afterMarkerCol = this.col;
    const spaces = this.eatSpace(4);
    if (spaces >= 1 && !this.atSpace()) {
      if (list.marker === 0) list.marker = delimiter;
      list.size = prefix + markerLength + spaces;
      return true;
    }
    this.pos = afterMarkerPos;
    this.col = afterMarkerCol;
    if (!this.atSpace()) return false;
    this.eatSpace(1);
    if (list.marker === 0) list.marker = delimiter;
    list.size = prefix + markerLength + 1;
    return true;
  }

  private push(container: Container, markerAt: number): void {
    if (this.stack.length >= MAX_CONTAINER_DEPTH) throw new Decline('nesting');
    if (this.stack.length === 0) {
      this.topRecord = this.blocks.length;
      this.blocks.push({ start: markerAt, substantive: false, pending: null });
    }
    this.stack.push(container);
  }

  /** Ends whatever the flow has open, as micromark's end of file on a child flow does. */
  private closeFlow(): void {
    if (this.flow === Flow.Content) this.endContent(false);
    else if (this.flow !== Flow.None) this.endLeaf();
    this.flowAlive = false;
  }

  private exitContainers(size: number): void {
    if (this.stack.length > size) this.stack.length = size;
  }

  // ---------------------------------------------------------------- cursor helpers

  /** Consumes up to `max` columns of spaces/tabs (one column of a tab at a time); returns columns eaten. */
  private eatSpace(max: number): number {
    const body = this.body;
    let eaten = 0;
    while (eaten < max && this.pos < this.lineEnd) {
      const code = body.charCodeAt(this.pos);
      if (code === SPACE) {
        this.pos++;
        this.col++;
      } else if (code === TAB) {
        this.col++;
        if (this.col % 4 === 0) this.pos++;
      } else break;
      eaten++;
    }
    return eaten;
  }

  private atSpace(): boolean {
    if (this.pos >= this.lineEnd) return false;
    const code = this.body.charCodeAt(this.pos);
    return code === SPACE || code === TAB;
  }

  private restIsBlank(): boolean {
    const body = this.body;
    for (let at = this.pos; at < this.lineEnd; at++) {
      const code = body.charCodeAt(at);
      if (code !== SPACE && code !== TAB) return false;
    }
    return true;
  }

  /** `marker` repeated 3+ times from `at`, only spaces/tabs between, nothing after. */
  private isThematicBreak(at: number, marker: number): boolean {
    const body = this.body;
    let count = 0;
    for (; at < this.lineEnd; at++) {
      const code = body.charCodeAt(at);
      if (code === marker) count++;
      else if (code !== SPACE && code !== TAB) return false;
    }
    return count >= 3;
  }

  private hasJsNonWhitespace(from: number, to: number): boolean {
    const body = this.body;
    for (let at = from; at < to; at++) {
      const code = body.charCodeAt(at);
      if (code > 32 && code < 0xa0) return true;
      if (!isJsWhitespace(code)) return true;
    }
    return false;
  }

  // ---------------------------------------------------------------- flow layer

  private flowLine(lazy: boolean, continued: number): void {
    this.flowAlive = true;
    // Measure the chunk's whitespace prefix in columns.
    const body = this.body;
    let at = this.pos;
    let column = this.col;
    while (at < this.lineEnd) {
      const code = body.charCodeAt(at);
      if (code === SPACE) column++;
      else if (code === TAB) column += 4 - (column % 4);
      else break;
      at++;
    }
    this.chunkPos = this.pos;
    this.firstNonSpace = at;
    this.prefixColumns = column - this.col;
    this.blank = at >= this.lineEnd;

    switch (this.flow) {
      case Flow.Content: {
        if (!this.blank) {
          if (this.prefixColumns >= 4) {
            this.addContentLine();
            return;
          }
          const code = body.charCodeAt(this.firstNonSpace);
          if ((code === EQUALS || code === DASH) && !lazy && this.isSetextUnderline(code)) {
            if (this.endContent(true)) return;
            this.flowInitial(lazy);
            return;
          }
          if (!this.interruptsContent(code, lazy)) {
            this.addContentLine();
            return;
          }
          if (lazy && code === LT && this.lineEnd < this.len && this.htmlKindAt(true, lazy) === HtmlKind.Complete) {
            // micromark's interrupt check for a condition-7 tag (only possible on a lazy line) runs
            // on past this line, so the paragraph still counts as open when the document looks for
            // containers to close: nothing exits and the html sits beside the paragraph. On a last
            // line with no line ending the check resolves at once and the line is an ordinary lazy one.
            this.endContent(false);
            this.htmlStart(false, lazy);
            return;
          }
        }
        this.endContent(false);
        break;
      }
      case Flow.CodeIndented: {
        if (!lazy) {
          if (this.blank) return;
          if (this.prefixColumns >= 4) {
            this.codeLine();
            return;
          }
        }
        this.endLeaf();
        break;
      }
      case Flow.CodeFenced: {
        if (!lazy) {
          if (this.isClosingFence()) {
            this.endLeaf();
            return;
          }
          this.codeLine();
          return;
        }
        this.endLeaf();
        break;
      }
      case Flow.Html: {
        const basicOrComplete = this.htmlKind === HtmlKind.Basic || this.htmlKind === HtmlKind.Complete;
        if (!(basicOrComplete && this.blank) && !lazy) {
          if (!basicOrComplete && this.htmlLineCloses(this.chunkPos, HtmlEnd.Continuation)) this.endLeaf();
          return;
        }
        this.endLeaf();
        break;
      }
      default:
        break;
    }
    // A lazy line that does not continue a paragraph starts something after the unmatched containers.
    if (lazy) this.exitContainers(continued);
    this.flowInitial(lazy);
  }

  /** micromark's flow `initial`: blank line, indented code, the flow constructs, else content. */
  private flowInitial(lazy: boolean): void {
    if (this.blank) return;
    const depth = this.stack.length;
    if (this.prefixColumns >= 4) {
      this.startLeaf(Flow.CodeIndented, this.chunkPos);
      this.codeLine();
      // micromark also checks laziness at the line ending it leaves: code begun on a lazy line is one line.
      if (lazy) this.endLeaf();
      return;
    }
    const start = this.firstNonSpace;
    const code = this.body.charCodeAt(start);
    switch (code) {
      case HASH:
        if (this.atxHeading(depth)) return;
        break;
      case STAR:
      case UNDERSCORE:
      case DASH:
        if (this.isThematicBreak(start, code)) {
          this.leafContributes(depth, start, true);
          return;
        }
        break;
      case LT: {
        const kind = this.htmlStart(false, lazy);
        if (kind !== 0) return;
        break;
      }
      case BACKTICK:
      case TILDE:
        if (this.fenceOpening(start, code) > 0) {
          this.fenceMarker = code;
          this.fenceSize = this.fenceOpening(start, code);
          this.startLeaf(Flow.CodeFenced, start);
          return;
        }
        break;
      default:
        break;
    }
    this.startContent();
  }

  /** Would a flow construct start here while a paragraph is open (micromark `interrupt` mode)? */
  private interruptsContent(code: number, lazy: boolean): boolean {
    const start = this.firstNonSpace;
    switch (code) {
      case HASH:
        return this.atxOpeningEnd(start) !== -1;
      case STAR:
      case UNDERSCORE:
      case DASH:
        return this.isThematicBreak(start, code);
      case LT: {
        return this.htmlKindAt(true, lazy) !== 0;
      }
      case BACKTICK:
      case TILDE:
        return this.fenceOpening(start, code) > 0;
      default:
        return false;
    }
  }

  private isSetextUnderline(marker: number): boolean {
    const body = this.body;
    let at = this.firstNonSpace;
    while (at < this.lineEnd && body.charCodeAt(at) === marker) at++;
    for (; at < this.lineEnd; at++) {
      const code = body.charCodeAt(at);
      if (code !== SPACE && code !== TAB) return false;
    }
    return true;
  }

  // ---------------------------------------------------------------- leaves

  /** Record that a construct starting now contributes to, creating a top-level record if needed. */
  private ownerFor(depth: number, start: number): number {
    if (depth > 0) return this.topRecord;
    this.blocks.push({ start, substantive: false, pending: null });
    return this.blocks.length - 1;
  }

  private leafContributes(depth: number, start: number, substantive: boolean): void {
    const record = this.ownerFor(depth, start);
    if (substantive) this.blocks[record].substantive = true;
  }

  private startLeaf(flow: Flow, start: number): void {
    this.flow = flow;
    this.leafRecord = this.ownerFor(this.stack.length, start);
  }

  private endLeaf(): void {
    this.flow = Flow.None;
    this.leafRecord = -1;
  }

  /** A code line's value is substantive when it holds a non-whitespace char after the containers. */
  private codeLine(): void {
    const record = this.blocks[this.leafRecord];
    if (!record.substantive && this.hasJsNonWhitespace(this.chunkPos, this.lineEnd)) record.substantive = true;
  }

  /** Opening fence length (>= 3) at `start`, or 0; backtick fences take no backtick after the run. */
  private fenceOpening(start: number, marker: number): number {
    const body = this.body;
    let at = start;
    while (at < this.lineEnd && body.charCodeAt(at) === marker) at++;
    const size = at - start;
    if (size < 3) return 0;
    if (marker === BACKTICK) {
      for (; at < this.lineEnd; at++) if (body.charCodeAt(at) === BACKTICK) return 0;
    }
    return size;
  }

  private isClosingFence(): boolean {
    if (this.prefixColumns >= 4 || this.blank) return false;
    const body = this.body;
    let at = this.firstNonSpace;
    const marker = this.fenceMarker;
    const start = at;
    while (at < this.lineEnd && body.charCodeAt(at) === marker) at++;
    if (at - start < this.fenceSize) return false;
    for (; at < this.lineEnd; at++) {
      const code = body.charCodeAt(at);
      if (code !== SPACE && code !== TAB) return false;
    }
    return true;
  }

  /** End of the `#{1,6}` opening at `start` when followed by whitespace or line end; else -1. */
  private atxOpeningEnd(start: number): number {
    const body = this.body;
    let at = start;
    while (at < this.lineEnd && body.charCodeAt(at) === HASH && at - start < 6) at++;
    if (at === this.lineEnd) return at;
    const code = body.charCodeAt(at);
    return code === SPACE || code === TAB ? at : -1;
  }

  private atxHeading(depth: number): boolean {
    const start = this.firstNonSpace;
    const openEnd = this.atxOpeningEnd(start);
    if (openEnd === -1) return false;
    const body = this.body;
    let from = openEnd;
    while (from < this.lineEnd && (body.charCodeAt(from) === SPACE || body.charCodeAt(from) === TAB)) from++;
    let to = this.lineEnd;
    while (to > from && (body.charCodeAt(to - 1) === SPACE || body.charCodeAt(to - 1) === TAB)) to--;
    if (to > from && body.charCodeAt(to - 1) === HASH) {
      let run = to;
      while (run > from && body.charCodeAt(run - 1) === HASH) run--;
      if (run === from) to = from;
      else if (body.charCodeAt(run - 1) === SPACE || body.charCodeAt(run - 1) === TAB) {
        to = run;
        while (to > from && (body.charCodeAt(to - 1) === SPACE || body.charCodeAt(to - 1) === TAB)) to--;
      }
    }
    const heading: ScannedHeading = { level: openEnd - start, start, end: this.lineEnd, text: null, segment: -1 };
    this.assertInlineBudget(from, to);
    heading.text = emphasisAndCodePlainText(body.slice(from, to));
    if (heading.text === null) {
      heading.segment = this.segments.length;
      this.segments.push({ kind: 'atx', from, to });
    }
    this.headings.push(heading);
    if (depth > 0) this.headingContributes(heading, this.topRecord);
    return true;
  }

  private assertInlineBudget(from: number, to: number): void {
    if (to - from <= MAX_INLINE_DELIMITERS) return;
    const body = this.body;
    let count = 0;
    for (let at = from; at < to; at++) {
      const code = body.charCodeAt(at);
      if ((code === STAR || code === UNDERSCORE || code === LBRACKET) && ++count > MAX_INLINE_DELIMITERS) {
        throw new Decline('inline nesting budget');
      }
    }
  }

  private headingContributes(heading: ScannedHeading, record: number): void {
    const block = this.blocks[record];
    if (block.substantive) return;
    if (heading.text !== null) {
      if (this.stringHasJsNonWhitespace(heading.text)) block.substantive = true;
    } else {
      (block.pending ??= []).push(heading.segment);
    }
  }

  private stringHasJsNonWhitespace(text: string): boolean {
    for (let at = 0; at < text.length; at++) if (!isJsWhitespace(text.charCodeAt(at))) return true;
    return false;
  }

  // ---------------------------------------------------------------- html

  /** Starts an html block at the line's first non-space char; returns its kind or 0. */
  private htmlStart(interrupt: boolean, lazy: boolean): number {
    const kind = this.htmlKindAt(interrupt, lazy);
    if (kind === 0) return 0;
    this.htmlKind = kind;
    this.startLeaf(Flow.Html, this.chunkPos);
    // The value starts with `<`, so an html block is always substantive.
    this.blocks[this.leafRecord].substantive = true;
    if (kind <= HtmlKind.Cdata && this.htmlAfterOpenCloses) this.endLeaf();
    return kind;
  }

  /** Set by htmlKindAt for kinds 1-5: whether the end condition is met on the opening line. */
  private htmlAfterOpenCloses = false;

  /**
   * micromark html-flow opening at firstNonSpace. In interrupt mode (a
   * paragraph is open), kind 7 only starts on a lazy line.
   */
  private htmlKindAt(interrupt: boolean, lazy: boolean): number {
    const body = this.body;
    const end = this.lineEnd;
    let at = this.firstNonSpace + 1;
    this.htmlAfterOpenCloses = false;
    const code = at < end ? body.charCodeAt(at) : -1;
    if (code === BANG) {
      at++;
      const next = at < end ? body.charCodeAt(at) : -1;
      if (next === DASH) {
        at++;
        if (at < end && body.charCodeAt(at) === DASH) {
          this.htmlAfterOpenCloses = this.htmlLineCloses(at + 1, HtmlEnd.DeclarationInside, HtmlKind.Comment);
          return HtmlKind.Comment;
        }
        return 0;
      }
      if (next === LBRACKET) {
        const cdata = 'CDATA[';
        for (let index = 0; index < cdata.length; index++) {
          at++;
          if (at >= end || body.charCodeAt(at) !== cdata.charCodeAt(index)) return 0;
        }
        this.htmlAfterOpenCloses = this.htmlLineCloses(at + 1, HtmlEnd.Continuation, HtmlKind.Cdata);
        return HtmlKind.Cdata;
      }
      if (isAsciiAlpha(next)) {
        this.htmlAfterOpenCloses = this.htmlLineCloses(at + 1, HtmlEnd.DeclarationInside, HtmlKind.Declaration);
        return HtmlKind.Declaration;
      }
      return 0;
    }
    if (code === QUESTION) {
      this.htmlAfterOpenCloses = this.htmlLineCloses(at + 1, HtmlEnd.DeclarationInside, HtmlKind.Instruction);
      return HtmlKind.Instruction;
    }
    let closing = false;
    if (code === SLASH) {
      closing = true;
      at++;
    }
    const nameStart = at;
    if (at >= end || !isAsciiAlpha(body.charCodeAt(at))) return 0;
    at++;
    while (at < end) {
      const c = body.charCodeAt(at);
      if (c === DASH || isAsciiAlphanumeric(c)) at++;
      else break;
    }
    const terminator = at < end ? body.charCodeAt(at) : -1;
    if (!(terminator === -1 || terminator === SLASH || terminator === GT || terminator === SPACE || terminator === TAB)) return 0;
    const name = body.slice(nameStart, at).toLowerCase();
    if (terminator !== SLASH && !closing && HTML_RAW_NAMES.includes(name)) {
      this.htmlAfterOpenCloses = this.htmlLineCloses(at, HtmlEnd.Continuation, HtmlKind.Raw);
      return HtmlKind.Raw;
    }
    if (HTML_BLOCK_NAMES.has(name)) {
      if (terminator === SLASH) {
        if (at + 1 < end && body.charCodeAt(at + 1) === GT) return HtmlKind.Basic;
        return 0;
      }
      return HtmlKind.Basic;
    }
    if (interrupt && !lazy) return 0;
    return this.completeTag(at, closing) ? HtmlKind.Complete : 0;
  }

  /** micromark's condition-7 tag: the whole tag, then only spaces/tabs, on this line. */
  private completeTag(at: number, closing: boolean): boolean {
    const body = this.body;
    const end = this.lineEnd;
    const codeAt = (i: number): number => (i < end ? body.charCodeAt(i) : -1);
    if (closing) {
      while (codeAt(at) === SPACE || codeAt(at) === TAB) at++;
    } else {
      let state = Attr.NameBefore;
      let quote = 0;
      attributes: for (;;) {
        const c = codeAt(at);
        switch (state) {
          case Attr.NameBefore:
            if (c === SLASH) {
              at++;
              break attributes;
            }
            if (c === COLON || c === UNDERSCORE || isAsciiAlpha(c)) {
              at++;
              state = Attr.Name;
            } else if (c === SPACE || c === TAB) at++;
            else break attributes;
            break;
          case Attr.Name:
            if (c === DASH || c === DOT || c === COLON || c === UNDERSCORE || isAsciiAlphanumeric(c)) at++;
            else state = Attr.NameAfter;
            break;
          case Attr.NameAfter:
            if (c === EQUALS) {
              at++;
              state = Attr.ValueBefore;
            } else if (c === SPACE || c === TAB) at++;
            else state = Attr.NameBefore;
            break;
          case Attr.ValueBefore:
            if (c === -1 || c === LT || c === EQUALS || c === GT || c === BACKTICK) return false;
            if (c === QUOTE || c === APOS) {
              quote = c;
              at++;
              state = Attr.Quoted;
            } else if (c === SPACE || c === TAB) at++;
            else state = Attr.Unquoted;
            break;
          case Attr.Quoted:
            if (c === quote) {
              at++;
              state = Attr.QuotedAfter;
            } else if (c === -1) return false;
            else at++;
            break;
          case Attr.Unquoted:
            if (
              c === -1 || c === QUOTE || c === APOS || c === SLASH || c === LT || c === EQUALS ||
              c === GT || c === BACKTICK || c === SPACE || c === TAB
            ) state = Attr.NameAfter;
            else at++;
            break;
          case Attr.QuotedAfter:
            if (c === SLASH || c === GT || c === SPACE || c === TAB) state = Attr.NameBefore;
            else return false;
            break;
        }
      }
    }
    if (codeAt(at) !== GT) return false;
    at++;
    while (at < end) {
      const c = body.charCodeAt(at);
      if (c !== SPACE && c !== TAB) return false;
      at++;
    }
    return true;
  }

  /** Runs the end-condition machine over the rest of the line from `from`; true when the block closes here. */
  private htmlLineCloses(from: number, initial: HtmlEnd, kind: HtmlKind = this.htmlKind): boolean {
    const body = this.body;
    const end = this.lineEnd;
    let state = initial;
    let rawName = '';
    for (let at = from; at < end; at++) {
      let code = body.charCodeAt(at);
      // A state that does not take `code` hands it to Continuation (micromark's `return continuation(code)`).
      switch (state) {
        case HtmlEnd.CommentInside:
          if (code === DASH) {
            state = HtmlEnd.DeclarationInside;
            continue;
          }
          state = HtmlEnd.Continuation;
          break;
        case HtmlEnd.RawTagOpen:
          if (code === SLASH) {
            state = HtmlEnd.RawEndTag;
            rawName = '';
            continue;
          }
          state = HtmlEnd.Continuation;
          break;
        case HtmlEnd.RawEndTag:
          if (code === GT) {
            if (HTML_RAW_NAMES.includes(rawName.toLowerCase())) return true;
            state = HtmlEnd.Continuation;
            break;
          }
          if (isAsciiAlpha(code) && rawName.length < 8) {
            rawName += String.fromCharCode(code);
            continue;
          }
          state = HtmlEnd.Continuation;
          break;
        case HtmlEnd.CdataInside:
          if (code === RBRACKET) {
            state = HtmlEnd.DeclarationInside;
            continue;
          }
          state = HtmlEnd.Continuation;
          break;
        case HtmlEnd.DeclarationInside:
          if (code === GT) return true;
          if (code === DASH && kind === HtmlKind.Comment) continue;
          state = HtmlEnd.Continuation;
          break;
        default:
          break;
      }
      // Continuation.
      code = body.charCodeAt(at);
      if (code === DASH && kind === HtmlKind.Comment) state = HtmlEnd.CommentInside;
      else if (code === LT && kind === HtmlKind.Raw) state = HtmlEnd.RawTagOpen;
      else if (code === GT && kind === HtmlKind.Declaration) return true;
      else if (code === QUESTION && kind === HtmlKind.Instruction) state = HtmlEnd.DeclarationInside;
      else if (code === RBRACKET && kind === HtmlKind.Cdata) state = HtmlEnd.CdataInside;
    }
    return false;
  }

  // ---------------------------------------------------------------- content

  private startContent(): void {
    this.flow = Flow.Content;
    // Top-level content gets its records when it ends (definitions split it).
    this.owner = this.stack.length > 0 ? this.topRecord : -1;
    this.contentLines = 0;
    this.addContentLine();
  }

  private addContentLine(): void {
    this.contentStarts[this.contentLines] = this.firstNonSpace;
    this.contentEnds[this.contentLines] = this.lineEnd;
    this.contentLines++;
  }

  /**
   * Ends the open content: definitions first, then the paragraph rest, or
   * (setext) a heading from the rest. Returns false when a setext underline
   * found only definitions, in which case the underline line is not used.
   */
  private endContent(setext: boolean): boolean {
    this.flow = Flow.None;
    const starts = this.contentStarts;
    const ends = this.contentEnds;
    const lineCount = this.contentLines;
    const topLevel = this.owner === -1;
    const restLine = this.body.charCodeAt(starts[0]) === LBRACKET ? this.parseDefinitions(lineCount, topLevel) : 0;
    if (restLine >= lineCount) return false;
    const body = this.body;
    this.assertInlineBudget(starts[restLine], ends[lineCount - 1]);
    if (setext) {
      const level = body.charCodeAt(this.firstNonSpace) === EQUALS ? 1 : 2;
      const heading: ScannedHeading = { level, start: starts[0], end: this.lineEnd, text: null, segment: -1 };
      let source = body.slice(starts[restLine], ends[restLine]);
      for (let line = restLine + 1; line < lineCount; line++) source += '\n' + body.slice(starts[line], ends[line]);
      heading.text = emphasisAndCodePlainText(source);
      if (heading.text === null) {
        heading.segment = this.segments.length;
        this.segments.push({ kind: 'setext', starts: starts.slice(restLine, lineCount), ends: ends.slice(restLine, lineCount) });
      }
      this.headings.push(heading);
      if (!topLevel) this.headingContributes(heading, this.owner);
      return true;
    }
    let record: ScannedBlock;
    if (topLevel) {
      record = { start: starts[restLine], substantive: false, pending: null };
      this.blocks.push(record);
    } else {
      record = this.blocks[this.owner];
      if (record.substantive) return true;
    }
    if (this.paragraphIsSubstantive(starts[restLine], ends[lineCount - 1])) record.substantive = true;
    else {
      (record.pending ??= []).push(this.segments.length);
      this.segments.push({ kind: 'paragraph', starts: starts.slice(restLine, lineCount), ends: ends.slice(restLine, lineCount) });
    }
    return true;
  }

  /**
   * True when some char before the first `](` / `][` is neither whitespace,
   * possible markup, nor part of a character reference name: it must end up
   * in a text, code or alt value. False means "not proven" (parse it).
   */
  private paragraphIsSubstantive(from: number, to: number): boolean {
    const body = this.body;
    for (let at = from; at < to; at++) {
      const code = body.charCodeAt(at);
      if (code === RBRACKET) {
        const next = at + 1 < to ? body.charCodeAt(at + 1) : -1;
        if (next === LPAREN || next === LBRACKET) return false;
        continue;
      }
      if (code === AMP) {
        while (at + 1 < to) {
          const next = body.charCodeAt(at + 1);
          if (next === HASH || isAsciiAlphanumeric(next)) at++;
          else break;
        }
        // The reference's terminating `;` is consumed with it.
        if (at + 1 < to && body.charCodeAt(at + 1) === 59) at++;
        continue;
      }
      if (isPossiblyMarkup(code) || isJsWhitespace(code)) continue;
      return true;
    }
    return false;
  }

  // ---------------------------------------------------------------- definitions

  /**
   * Parses micromark definitions from the start of the open content's lines
   * (each starts at its first non-space char). Records labels, and a block
   * per definition when the content is top level; returns the index of the
   * first non-definition line.
   */
  private parseDefinitions(lineCount: number, topLevel: boolean): number {
    const { body, contentStarts: starts, contentEnds: ends } = this;
    // The content as micromark's content tokenizer sees it after line prefixes.
    const parts: string[] = [];
    for (let line = 0; line < lineCount; line++) parts.push(body.slice(starts[line], ends[line]));
    const text = parts.join('\n');
    const lineStarts: number[] = [];
    let offset = 0;
    for (const part of parts) {
      lineStarts.push(offset);
      offset += part.length + 1;
    }
    let line = 0;
    while (line < lineCount && text.charCodeAt(lineStarts[line]) === LBRACKET) {
      const parsed = parseDefinition(text, lineStarts[line]);
      if (parsed === null) break;
      if (topLevel) this.blocks.push({ start: starts[line], substantive: false, pending: null });
      this.labels.push(parsed.label);
      // The definition ends at a line end: the next one starts on the following line.
      let next = line + 1;
      while (next < lineStarts.length && lineStarts[next] <= parsed.end) next++;
      line = next;
    }
    return line;
  }
}

interface ParsedDefinition {
  /** Index of the line ending (or text end) that closes the definition. */
  end: number;
  label: string;
}

/** micromark's definition construct over content text (lines joined by `\n`, prefixes stripped). */
function parseDefinition(text: string, start: number): ParsedDefinition | null {
  const len = text.length;
  const codeAt = (i: number): number => (i < len ? text.charCodeAt(i) : -1);
  // Label.
  let at = start + 1;
  let seen = false;
  let tabs = 0;
  for (;;) {
    const code = codeAt(at);
    if (code === -1 || code === LBRACKET) return null;
    if (code === RBRACKET) {
      if (!seen) return null;
      break;
    }
    if (code === LF) {
      at++;
      continue;
    }
    if (code === TAB) tabs++;
    else if (code !== SPACE) seen = true;
    if (code === BACKSLASH) {
      const next = codeAt(at + 1);
      if (next === LBRACKET || next === BACKSLASH || next === RBRACKET) at++;
    }
    at++;
    if (at - start + tabs * 3 > MAX_LABEL_CHARS) throw new Decline('long label');
  }
  const rawLabel = text.slice(start + 1, at);
  at++;
  if (codeAt(at) !== COLON) return null;
  at++;
  // Whitespace, including at most the line endings content can hold.
  at = skipWhitespaceAndLineEndings(text, at);
  // Destination.
  let code = codeAt(at);
  if (code === LT) {
    at++;
    for (;;) {
      code = codeAt(at);
      if (code === GT) {
        at++;
        break;
      }
      if (code === -1 || code === LT || code === LF) return null;
      if (code === BACKSLASH) {
        const next = codeAt(at + 1);
        if (next === LT || next === GT || next === BACKSLASH) at++;
      }
      at++;
    }
  } else {
    if (code === -1 || code === SPACE || code === RPAREN || code < 32 || code === DEL) return null;
    let balance = 0;
    for (;;) {
      code = codeAt(at);
      if (balance === 0 && (code === -1 || code === RPAREN || code === LF || code === SPACE || code === TAB)) break;
      if (code === LPAREN) {
        balance++;
        at++;
        continue;
      }
      if (code === RPAREN) {
        balance--;
        at++;
        continue;
      }
      if (code === -1 || code === SPACE || code < 32 || code === DEL) return null;
      if (code === BACKSLASH) {
        const next = codeAt(at + 1);
        if (next === LPAREN || next === RPAREN || next === BACKSLASH) at++;
      }
      at++;
    }
  }
  const destinationEnd = at;
  // Optional title, which needs whitespace (or a line ending) before it.
  const titleEnd = parseTitleAfter(text, destinationEnd);
  if (titleEnd !== -1) return { end: titleEnd, label: foldLabel(rawLabel) };
  at = destinationEnd;
  while (codeAt(at) === SPACE || codeAt(at) === TAB) at++;
  code = codeAt(at);
  if (code === -1 || code === LF) return { end: at, label: foldLabel(rawLabel) };
  return null;
}

function skipWhitespaceAndLineEndings(text: string, at: number): number {
  for (;;) {
    const code = at < text.length ? text.charCodeAt(at) : -1;
    if (code === SPACE || code === TAB || code === LF) at++;
    else return at;
  }
}

/** Title with its leading whitespace and trailing spaces up to a line end; returns that end or -1. */
function parseTitleAfter(text: string, at: number): number {
  const len = text.length;
  const codeAt = (i: number): number => (i < len ? text.charCodeAt(i) : -1);
  let code = codeAt(at);
  if (!(code === SPACE || code === TAB || code === LF)) return -1;
  at = skipWhitespaceAndLineEndings(text, at);
  code = codeAt(at);
  if (code !== QUOTE && code !== APOS && code !== LPAREN) return -1;
  const marker = code === LPAREN ? RPAREN : code;
  at++;
  for (;;) {
    code = codeAt(at);
    if (code === marker) {
      at++;
      break;
    }
    if (code === -1) return -1;
    if (code === LF) {
      at++;
      // A title may continue on the next line, after its line prefix.
      while (codeAt(at) === SPACE || codeAt(at) === TAB) at++;
      continue;
    }
    if (code === BACKSLASH) {
      const next = codeAt(at + 1);
      if (next === marker || next === BACKSLASH) at++;
    }
    at++;
  }
  while (codeAt(at) === SPACE || codeAt(at) === TAB) at++;
  code = codeAt(at);
  return code === -1 || code === LF ? at : -1;
}

/** The label with every whitespace run (line endings included) folded to one space. */
function foldLabel(raw: string): string {
  return raw.replace(/[\t\n\r ]+/g, ' ');
}
