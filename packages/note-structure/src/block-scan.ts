/**
 * A line-by-line model of micromark's block tokenizer (the document layer
 * of block quotes and list items, and one flow tokenizer shared across
 * container boundaries), reduced to what a NoteStructure needs: heading
 * levels, offsets and inline sources, top-level block starts, the
 * "substantive" bit of every top-level block (or the inline sources that
 * decide it), and the definition labels.
 *
 * Invariant: it models micromark 4.0.3, not the spec text. Where micromark
 * and commonmark.js disagree (lazy lines, the interrupt flag that survives
 * a pending indented-code lookahead or a nested container start, setext
 * headings after definitions), micromark wins: it is the parser of record.
 * No depth limit, nothing declined; NUL is read in place as the U+FFFD
 * micromark makes of it (definitions.ts: the one test where they differ).
 *
 * Linear bound: O(n) for n chars. Each line costs O(its length + the
 * containers it opens or closes): a non-blank line continues a container
 * only by consuming at least one char of its prefix (a tab covers at most
 * two list indents), a blank rest continues every list item up to the next
 * block quote in O(1) (one serial per group of items between quotes), and
 * the "rest is blank" and "rest is a thematic break" tests are memoized per
 * line. No recursion.
 */
import * as chars from './chars';
import * as htmlFlow from './html-flow';
import { HtmlEnd, HtmlKind } from './html-flow';
import * as leafLines from './leaf-lines';
import * as contentRuns from './content';
import type { ContentLines } from './content';
import * as containers from './containers';
import { ContainerStack, IntStack } from './containers';
import type { Container } from './containers';
import * as growth from './growth';
import { LineCursor } from './cursor';
import { DefinitionLabels } from './definitions';
import { BlockTable, HeadingTable, InlineSources } from './scan-types';
import type { ContentHost, ScanResult } from './scan-types';

export type { ScanResult } from './scan-types';
export { BlockTable, HeadingTable, InlineSources } from './scan-types';

// Imported values are bound once, at load (see chars.ts).
const {
  BACKTICK, CR, DASH, DIGIT_ONE, DOT, EQUALS, GT, HASH, LF, LT, PLUS, RPAREN, SPACE, STAR, TAB, TILDE, UNDERSCORE, isDigit,
  isJsWhitespace,
} = chars;
const { htmlLineCloses, htmlOpening } = htmlFlow;
const {
  atxContentEnd, atxContentStart, atxOpeningEnd, fenceOpening, isClosingFence, isSetextUnderline, isThematicBreak,
} = leafLines;
const { endContent } = contentRuns;
const { newContainer } = containers;
const { widened } = growth;

const enum Flow {
  None,
  Content,
  CodeIndented,
  CodeFenced,
  Html,
}

export function scanBlocks(body: string): ScanResult {
  return new BlockScanner(body).run();
}

export class BlockScanner extends LineCursor implements ContentHost {

  private readonly stack = new ContainerStack();
  /** The list item being continued (loaded from and stored back into the stack). */
  private readonly item: Container = newContainer();
  /** Stack indices of the block quotes in the stack, bottom first. */
  private readonly quoteIndices = new IntStack();
  /**
   * Per group: serial of the last line whose blank rest continued its list items, or a value an
   * earlier, closed quote at the same depth left (older than any item of the group: see push).
   */
  private readonly groupBlankLine = new IntStack();
  /** Scratch state for container checks; copied only when a container is pushed. */
  private readonly probe: Container = newContainer();
  /** Block record of stack[0] (the top-level container), when the stack is non-empty. */
  private topRecord = -1;

  private flow: Flow = Flow.None;
  private flowAlive = false;
  /** Record that the current flow construct contributes to; -1 when it is itself top level. */
  private owner = -1;

  /** Content (paragraph / definitions) in progress: line starts, ends and start columns, reused. */
  private readonly content: ContentLines = { starts: NO_INTS, ends: NO_INTS, columns: NO_INTS, count: 0 };
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
  private firstNonSpaceColumn = 0;
  private prefixColumns = 0;
  private blank = false;

  readonly headings = new HeadingTable();
  readonly blocks = new BlockTable();
  readonly sources = new InlineSources();
  readonly labels = new DefinitionLabels(this.body);

  run(): ScanResult {
    const { body, len } = this;
    const hasCR = body.indexOf('\r') !== -1;
    let start = 0;
    while (start < len || (start === 0 && len === 0)) {
      let end: number;
      let next: number;
      if (!hasCR) {
        // An empty line is found without a call: a long run of them would pay one indexOf each.
        end = body.charCodeAt(start) === LF ? start : body.indexOf('\n', start);
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
    return { headings: this.headings, blocks: this.blocks, sources: this.sources, labels: this.labels };
  }

  // ---------------------------------------------------------------- document layer

  private line(start: number, end: number): void {
    this.lineSerial++;
    this.lineStart = start;
    this.lineEnd = end;
    this.pos = start;
    this.col = 0;
    const stack = this.stack;

    let continued = 0;
    let quotesPassed = 0;
    while (continued < stack.length) {
      if (stack.isQuote(continued)) {
        if (!this.quoteContinuation()) break;
        quotesPassed++;
        continued++;
        continue;
      }
      if (this.restIsBlank()) {
        // A blank rest continues this item and every item above it up to the next block quote,
        // each exactly as micromark's list continuation does on a blank line: O(1) for the group.
        this.groupBlankLine.set(stack.group(continued), this.lineSerial);
        continued = quotesPassed < this.quoteIndices.length ? this.quoteIndices.at(quotesPassed) : stack.length;
        continue;
      }
      const item = this.item;
      stack.load(continued, item);
      const stays = this.listContinuation(item);
      stack.store(continued, item);
      if (!stays) break;
      continued++;
      if (item.closeFlow) {
        this.closeFlow();
        this.exitContainers(continued);
        break;
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

  /** A non-blank line in list item `list`: indented enough, or a sibling item of the same list. */
  private listContinuation(list: Container): boolean {
    const startsWithSpace = this.atSpace();
    const further = list.initialBlank && this.groupBlankLine.at(list.group) > list.itemLine;
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
      probe.itemLine = this.lineSerial;
      probe.group = this.quoteIndices.length;
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
        if (commit) this.push(probe, markerAt);
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
      if ((code === STAR || code === DASH) && this.restIsThematicBreak(code)) return false;
      markerLength = 1;
      delimiter = code;
    } else {
      if (!isDigit(code)) return false;
      if (interrupt && code !== DIGIT_ONE) return false;
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
    list.itemLine = this.lineSerial;
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
    if (this.stack.length === 0) {
      this.topRecord = this.blocks.add(markerAt);
    }
    // A new quote's group needs no reset of groupBlankLine: a value left by an earlier quote at
    // the same depth was set on a line before this one, so it is never above the itemLine of an
    // item in the new group (each began on this line or later), exactly as 0 would be.
    if (container.quote) this.quoteIndices.push(this.stack.length);
    this.stack.push(container);
  }

  /** Ends whatever the flow has open, as micromark's end of file on a child flow does. */
  private closeFlow(): void {
    if (this.flow === Flow.Content) this.endContent(false);
    else if (this.flow !== Flow.None) this.endLeaf();
    this.flowAlive = false;
  }

  /** Closes the containers from `size` up; O(containers closed). */
  private exitContainers(size: number): void {
    if (this.stack.length <= size) return;
    this.stack.truncate(size);
    const quotes = this.quoteIndices;
    while (quotes.length > 0 && quotes.top() >= size) quotes.pop();
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
    this.firstNonSpaceColumn = column;
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
          if ((code === EQUALS || code === DASH) && !lazy && isSetextUnderline(body, this.firstNonSpace, this.lineEnd, code)) {
            if (this.endContent(true)) return;
            this.flowInitial(lazy);
            return;
          }
          if (!this.interruptsContent(code, lazy)) {
            this.addContentLine();
            return;
          }
          if (lazy && code === LT && this.lineEnd < this.len && htmlOpening(body, this.firstNonSpace, this.lineEnd, true, lazy).kind === HtmlKind.Complete) {
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
          if (this.prefixColumns < 4 && !this.blank && isClosingFence(body, this.firstNonSpace, this.lineEnd, this.fenceMarker, this.fenceSize)) {
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
          if (!basicOrComplete && htmlLineCloses(body, this.chunkPos, this.lineEnd, HtmlEnd.Continuation, this.htmlKind)) this.endLeaf();
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
    const body = this.body;
    const start = this.firstNonSpace;
    const code = body.charCodeAt(start);
    switch (code) {
      case HASH:
        if (this.atxHeading(depth)) return;
        break;
      case STAR:
      case UNDERSCORE:
      case DASH:
        if (isThematicBreak(body, start, this.lineEnd, code)) {
          this.leafContributes(depth, start, true);
          return;
        }
        break;
      case LT:
        if (this.htmlStart(false, lazy) !== HtmlKind.None) return;
        break;
      case BACKTICK:
      case TILDE: {
        const size = fenceOpening(body, start, this.lineEnd, code);
        if (size > 0) {
          this.fenceMarker = code;
          this.fenceSize = size;
          this.startLeaf(Flow.CodeFenced, start);
          return;
        }
        break;
      }
      default:
        break;
    }
    this.startContent();
  }

  /** Would a flow construct start here while a paragraph is open (micromark `interrupt` mode)? */
  private interruptsContent(code: number, lazy: boolean): boolean {
    const body = this.body;
    const start = this.firstNonSpace;
    switch (code) {
      case HASH:
        return atxOpeningEnd(body, start, this.lineEnd) !== -1;
      case STAR:
      case UNDERSCORE:
      case DASH:
        return isThematicBreak(body, start, this.lineEnd, code);
      case LT:
        return htmlOpening(body, start, this.lineEnd, true, lazy).kind !== HtmlKind.None;
      case BACKTICK:
      case TILDE:
        return fenceOpening(body, start, this.lineEnd, code) > 0;
      default:
        return false;
    }
  }

  // ---------------------------------------------------------------- leaves

  /** Record that a construct starting now contributes to, creating a top-level record if needed. */
  private ownerFor(depth: number, start: number): number {
    if (depth > 0) return this.topRecord;
    return this.blocks.add(start);
  }

  private leafContributes(depth: number, start: number, substantive: boolean): void {
    const record = this.ownerFor(depth, start);
    if (substantive) this.blocks.substantive[record] = 1;
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
    const blocks = this.blocks;
    if (blocks.substantive[this.leafRecord] !== 0) return;
    const body = this.body;
    for (let at = this.chunkPos; at < this.lineEnd; at++) {
      if (!isJsWhitespace(body.charCodeAt(at))) {
        blocks.substantive[this.leafRecord] = 1;
        return;
      }
    }
  }

  private atxHeading(depth: number): boolean {
    const start = this.firstNonSpace;
    const openEnd = atxOpeningEnd(this.body, start, this.lineEnd);
    if (openEnd === -1) return false;
    const from = atxContentStart(this.body, openEnd, this.lineEnd);
    const source = this.sources.addLine(from, atxContentEnd(this.body, from, this.lineEnd));
    this.headings.add(openEnd - start, start, this.lineEnd, source);
    if (depth > 0) this.blocks.pendOn(this.topRecord, source);
    return true;
  }

  // ---------------------------------------------------------------- html

  /** Starts an html block at the line's first non-space char; returns its kind or None. */
  private htmlStart(interrupt: boolean, lazy: boolean): HtmlKind {
    const opening = htmlOpening(this.body, this.firstNonSpace, this.lineEnd, interrupt, lazy);
    if (opening.kind === HtmlKind.None) return HtmlKind.None;
    this.htmlKind = opening.kind;
    this.startLeaf(Flow.Html, this.chunkPos);
    // The value starts with `<`, so an html block is always substantive.
    this.blocks.substantive[this.leafRecord] = 1;
    if (opening.kind <= HtmlKind.Cdata && opening.closesOnOpeningLine) this.endLeaf();
    return opening.kind;
  }

  // ---------------------------------------------------------------- content

  private startContent(): void {
    this.flow = Flow.Content;
    // Top-level content gets its records when it ends (definitions split it).
    this.owner = this.stack.length > 0 ? this.topRecord : -1;
    this.content.count = 0;
    this.addContentLine();
  }

  private addContentLine(): void {
    const content = this.content;
    const line = content.count;
    if (line === content.starts.length) {
      content.starts = widened(content.starts, line + 1);
      content.ends = widened(content.ends, line + 1);
      content.columns = widened(content.columns, line + 1);
    }
    content.starts[line] = this.firstNonSpace;
    content.ends[line] = this.lineEnd;
    content.columns[line] = this.firstNonSpaceColumn;
    content.count = line + 1;
  }

  /** See content.ts; false when a setext underline found only definitions. */
  private endContent(setext: boolean): boolean {
    this.flow = Flow.None;
    const level = setext ? (this.body.charCodeAt(this.firstNonSpace) === EQUALS ? 1 : 2) : 0;
    return endContent(this, this.content, this.owner, level, this.lineEnd);
  }
}

/** The empty start of the content columns (a note without paragraphs allocates none). */
const NO_INTS = new Int32Array(0);
