/**
 * The cursor over one line that the block scan moves through container
 * prefixes. Invariant: `col` is micromark's column (tabs expand to the next
 * multiple of 4, and a cursor inside a tab keeps `pos` on the tab with
 * `col` past its start); the cursor only moves forward within a line except
 * back to a position saved on the same line.
 * Linear bound: eatSpace is O(columns eaten); restIsBlank and
 * restIsThematicBreak are O(1) after one backward scan of the line each.
 */
import * as chars from './chars';
import * as leafLines from './leaf-lines';

// Imported values are bound once, at load (see chars.ts).
const { DASH, SPACE, STAR, TAB, isSpaceOrTab } = chars;
const { isThematicBreak } = leafLines;

export abstract class LineCursor {
  readonly body: string;
  protected readonly len: number;

  protected lineStart = 0;
  protected lineEnd = 0;
  /** 1-based serial of the current line. */
  protected lineSerial = 0;
  protected pos = 0;
  protected col = 0;
  // Per-line memos (see restIsBlank and restIsThematicBreak).
  private blankLine = -1;
  private lastNonBlank = -1;
  private thematicLine = -1;
  private lastNonStar = -1;
  private lastNonDash = -1;

  constructor(body: string) {
    this.body = body;
    this.len = body.length;
  }

  /** Consumes up to `max` columns of spaces/tabs (one column of a tab at a time); returns columns eaten. */
  protected eatSpace(max: number): number {
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

  protected atSpace(): boolean {
    if (this.pos >= this.lineEnd) return false;
    const code = this.body.charCodeAt(this.pos);
    return isSpaceOrTab(code);
  }

  /** Only spaces/tabs from the cursor to the line end: O(1) after one backward scan per line. */
  protected restIsBlank(): boolean {
    if (this.blankLine !== this.lineSerial) {
      this.blankLine = this.lineSerial;
      this.lastNonBlank = this.lastOther(-1);
    }
    return this.lastNonBlank < this.pos;
  }

  /**
   * `marker` (`*` or `-`) repeated 3+ times from the cursor, only spaces/tabs
   * between, nothing after. The last char that is neither is found once per
   * line and marker, so the common "no" answer is O(1).
   */
  protected restIsThematicBreak(marker: number): boolean {
    if (this.thematicLine !== this.lineSerial) {
      this.thematicLine = this.lineSerial;
      this.lastNonStar = this.lastOther(STAR);
      this.lastNonDash = this.lastOther(DASH);
    }
    if ((marker === STAR ? this.lastNonStar : this.lastNonDash) >= this.pos) return false;
    return isThematicBreak(this.body, this.pos, this.lineEnd, marker);
  }

  /** Offset of the line's last char that is neither `marker` nor a space/tab (lineStart - 1 if none). */
  protected lastOther(marker: number): number {
    const body = this.body;
    for (let at = this.lineEnd - 1; at >= this.lineStart; at--) {
      const code = body.charCodeAt(at);
      if (code !== marker && !isSpaceOrTab(code)) return at;
    }
    return this.lineStart - 1;
  }
}
