/**
 * The linear inline pass: the plain text that `headingPlainText` (src/contracts/markdown.ts)
 * returns for the mdast of one inline source under mdast-util-from-markdown 2.1.0 /
 * micromark 4.0.3 (plain CommonMark 0.31.2), without building that tree.
 *
 * Invariant: `normalizeHeadingText(inlinePlainText(lines, defs))` equals the reference
 * pipeline's heading text for the same content, and the result is blank exactly when the
 * reference paragraph has no non-blank value or alt. Every node boundary is emitted as a
 * space (the reference joins siblings with ' ' and folds whitespace) except inside an image
 * label, whose alt is the children's text concatenated without separators.
 *
 * Linear bound: one left-to-right pass over the source. Emphasis uses a delimiter list with
 * openers-bottom per (marker, closer can-open, closer length mod 3), and every delimiter is
 * removed at most once; brackets use a stack with a floor below which link openers are
 * inactive; code spans find their closer through per-length cursors over the backtick runs;
 * lookahead scanners (inline-scanners.ts) are memoized. No recursion.
 */

import { classifyCharacter } from 'micromark-util-classify-character';
import {
  HtmlScanner,
  LinkScanner,
  isAsciiPunctuation,
  isSpaceOrEol,
  scanAutolink,
  scanCharacterReference,
  scanReferenceLabel,
} from './inline-scanners';

const TAB = 9;
const LF = 10;
const SPACE = 32;
const EXCLAMATION = 33;
const AMPERSAND = 38;
const LPAREN = 40;
const STAR = 42;
const LT = 60;
const LBRACKET = 91;
const BACKSLASH = 92;
const RBRACKET = 93;
const UNDERSCORE = 95;
const BACKTICK = 96;

/** Characters at which an inline construct may start. */
const SPECIAL = new Uint8Array(128);
for (const c of [LF, EXCLAMATION, AMPERSAND, STAR, LT, LBRACKET, BACKSLASH, RBRACKET, UNDERSCORE, BACKTICK]) SPECIAL[c] = 1;

const OTHER = 0;
const WHITESPACE = 1;
const PUNCTUATION = 2;
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_CLASS[c] = classifyCharacter(c) ?? OTHER;

/** micromark's classifyCharacter over one UTF-16 code unit (NaN = start or end of the source). */
function classify(code: number): number {
  if (Number.isNaN(code)) return WHITESPACE;
  if (code < 128) return ASCII_CLASS[code] as number;
  return classifyCharacter(code) ?? OTHER;
}

/** micromark's normalizeIdentifier: collapse [\t\n\r ]+ to ' ', trim, toLowerCase().toUpperCase(). */
export function normalizeLabel(label: string): string {
  return label
    .replace(/[\t\n\r ]+/g, ' ')
    .replace(/^ | $/g, '')
    .toLowerCase()
    .toUpperCase();
}

/** Joins the content lines as micromark's text tokenizer sees them: line prefixes stripped (NUL is replaced by the caller). */
function prepareSource(lines: readonly string[]): string {
  const parts: string[] = [];
  for (const line of lines) {
    let start = 0;
    while (start < line.length && (line.charCodeAt(start) === SPACE || line.charCodeAt(start) === TAB)) start++;
    parts.push(start === 0 ? line : line.slice(start));
  }
  let src = parts.join('\n');
  let end = src.length;
  while (end > 0 && (src.charCodeAt(end - 1) === SPACE || src.charCodeAt(end - 1) === TAB)) end--;
  if (end < src.length) src = src.slice(0, end);
  return src;
}

// Piece kinds of the output list.
const TEXT = 0;
const BOUNDARY = 1;
const DELIMITER = 2;
const OPENER = 3;
const LINK_CLOSE = 4;
const IMAGE_CLOSE = 5;

interface Delimiter {
  piece: number;
  marker: number;
  length: number;
  /** Still unmatched. */
  size: number;
  /** Consumed as a closer (from the left) and as an opener (from the right). */
  left: number;
  right: number;
  /** Directly followed by a NUL in the source. */
  beforeNul: boolean;
  canOpen: boolean;
  canClose: boolean;
  prev: Delimiter | null;
  next: Delimiter | null;
}

interface Bracket {
  image: boolean;
  /** Index just after `[` or `![`. */
  labelStart: number;
  /** The newest delimiter when this bracket was pushed. */
  bottom: Delimiter | null;
  /** 0 = literal, 1 = link, 2 = image. */
  state: number;
}

/**
 * Raw plain text (before NFC and whitespace folding) of the inline content `lines` (paragraph,
 * setext text lines, or one ATX content line; container prefixes removed, no line endings),
 * given the normalized labels the note defines.
 */
export function inlinePlainText(lines: readonly string[], definitions: ReadonlySet<string>): string {
  const source = prepareSource(lines);
  if (!source.includes('\0')) return new InlinePass(source, definitions, null).run();
  // micromark reads NUL as U+FFFD; remember where, for the one place its output still differs.
  const nul = new Uint8Array(source.length + 1);
  for (let at = source.indexOf('\0'); at >= 0; at = source.indexOf('\0', at + 1)) nul[at] = 1;
  return new InlinePass(source.replace(/\0/g, '\uFFFD'), definitions, nul).run();
}

class InlinePass {
  private readonly n: number;
  private readonly pieces: string[] = [];
  private readonly kinds: number[] = [];
  private readonly aux: number[] = [];
  private readonly delimiters: Delimiter[] = [];
  private head: Delimiter | null = null;
  private tail: Delimiter | null = null;
  private readonly brackets: Bracket[] = [];
  private readonly bracketStack: number[] = [];
  /** Link openers at stack indices below this are inactive (a link formed after them). */
  private linkFloor = 0;
  private html: HtmlScanner | null = null;
  private links: LinkScanner | null = null;
  private codeRuns: Map<number, { starts: number[]; cursor: number }> | null = null;
  private maxDefinition = -1;
  private nonSpaceCount: Int32Array | null = null;

  constructor(
    private readonly src: string,
    private readonly definitions: ReadonlySet<string>,
    /** 1 where the source held NUL (now U+FFFD), or null when it held none. */
    private readonly nul: Uint8Array | null,
  ) {
    this.n = src.length;
  }

  run(): string {
    const src = this.src;
    const n = this.n;
    let p = 0;
    let textStart = 0;
    while (p < n) {
      const c = src.charCodeAt(p);
      if (c >= 128 || SPECIAL[c] === 0) {
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
            if (end > textStart && (d === SPACE || d === TAB)) {
              if (d === TAB) tabs = true;
              end--;
            } else break;
          }
          this.text(textStart, end);
          if (!tabs && p - end >= 2) this.push(BOUNDARY, '', 0);
          else this.push(TEXT, '\n', 0);
          p++;
          textStart = p;
          break;
        }
        case BACKSLASH: {
          const d = src.charCodeAt(p + 1);
          if (d === LF) {
            this.text(textStart, p);
            this.push(BOUNDARY, '', 0);
            p += 2;
            textStart = p;
          } else if (isAsciiPunctuation(d)) {
            this.text(textStart, p);
            this.push(TEXT, src[p + 1] as string, 0);
            p += 2;
            textStart = p;
          } else p++;
          break;
        }
        case AMPERSAND: {
          const reference = scanCharacterReference(src, p);
          if (reference === null) {
            p++;
            break;
          }
          this.text(textStart, p);
          this.push(TEXT, reference.value, 0);
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
          this.text(textStart, p);
          this.push(BOUNDARY, '', 0);
          this.push(TEXT, codeValue(src.slice(q, close)), 0);
          this.push(BOUNDARY, '', 0);
          p = close + (q - p);
          textStart = p;
          break;
        }
        case STAR:
        case UNDERSCORE: {
          let q = p + 1;
          while (src.charCodeAt(q) === c) q++;
          this.text(textStart, p);
          this.delimiter(c, p, q);
          p = q;
          textStart = p;
          break;
        }
        case LT: {
          let end = scanAutolink(src, p);
          let value: string;
          if (end >= 0) value = src.slice(p + 1, end - 1);
          else {
            this.html ??= new HtmlScanner(src);
            end = this.html.scan(p);
            if (end < 0) {
              p++;
              break;
            }
            value = src.slice(p, end);
          }
          this.text(textStart, p);
          this.push(BOUNDARY, '', 0);
          this.push(TEXT, value, 0);
          this.push(BOUNDARY, '', 0);
          p = end;
          textStart = p;
          break;
        }
        case EXCLAMATION: {
          if (src.charCodeAt(p + 1) !== LBRACKET) {
            p++;
            break;
          }
          this.text(textStart, p);
          this.bracket(true, p + 2);
          p += 2;
          textStart = p;
          break;
        }
        case LBRACKET: {
          this.text(textStart, p);
          this.bracket(false, p + 1);
          p++;
          textStart = p;
          break;
        }
        default: {
          // RBRACKET
          const end = this.closeBracket(p, textStart);
          if (end < 0) p++;
          else {
            p = end;
            textStart = p;
          }
        }
      }
    }
    this.text(textStart, n);
    this.processEmphasis(null);
    return this.render();
  }

  private push(kind: number, piece: string, aux: number): void {
    this.kinds.push(kind);
    this.pieces.push(piece);
    this.aux.push(aux);
  }

  private text(start: number, end: number): void {
    if (end > start) this.push(TEXT, this.src.slice(start, end), 0);
  }

  private delimiter(marker: number, start: number, end: number): void {
    const before = classify(start > 0 ? this.src.charCodeAt(start - 1) : Number.NaN);
    const after = classify(end < this.n ? this.src.charCodeAt(end) : Number.NaN);
    const open = after === OTHER || (after === PUNCTUATION && before !== OTHER);
    const close = before === OTHER || (before === PUNCTUATION && after !== OTHER);
    const delimiter: Delimiter = {
      piece: this.pieces.length,
      marker,
      length: end - start,
      size: end - start,
      left: 0,
      right: 0,
      beforeNul: this.nul !== null && this.nul[end] === 1,
      canOpen: marker === STAR ? open : open && (before !== OTHER || !close),
      canClose: marker === STAR ? close : close && (after !== OTHER || !open),
      prev: this.tail,
      next: null,
    };
    if (this.tail) this.tail.next = delimiter;
    else this.head = delimiter;
    this.tail = delimiter;
    this.push(DELIMITER, '', this.delimiters.length);
    this.delimiters.push(delimiter);
  }

  private unlink(delimiter: Delimiter): void {
    if (delimiter.prev) delimiter.prev.next = delimiter.next;
    else this.head = delimiter.next;
    if (delimiter.next) delimiter.next.prev = delimiter.prev;
    else this.tail = delimiter.prev;
    delimiter.prev = null;
    delimiter.next = null;
  }

  /** The index of the next backtick run of exactly `size` starting at or after `from`, or -1. */
  private codeClose(size: number, from: number): number {
    if (this.codeRuns === null) {
      const runs = new Map<number, { starts: number[]; cursor: number }>();
      const src = this.src;
      let at = src.indexOf('`');
      while (at >= 0) {
        let end = at + 1;
        while (src.charCodeAt(end) === BACKTICK) end++;
        let entry = runs.get(end - at);
        if (entry === undefined) runs.set(end - at, (entry = { starts: [], cursor: 0 }));
        entry.starts.push(at);
        at = src.indexOf('`', end);
      }
      this.codeRuns = runs;
    }
    const entry = this.codeRuns.get(size);
    if (entry === undefined) return -1;
    while (entry.cursor < entry.starts.length && (entry.starts[entry.cursor] as number) < from) entry.cursor++;
    return entry.cursor < entry.starts.length ? (entry.starts[entry.cursor] as number) : -1;
  }

  private bracket(image: boolean, labelStart: number): void {
    const stack = this.bracketStack;
    if (this.linkFloor > stack.length) this.linkFloor = stack.length;
    stack.push(this.brackets.length);
    this.push(OPENER, '', this.brackets.length);
    this.brackets.push({ image, labelStart, bottom: this.tail, state: 0 });
  }

  /** A `]` at p: the index after the link or image it closes, or -1 when it stays literal. */
  private closeBracket(p: number, textStart: number): number {
    const stack = this.bracketStack;
    if (stack.length === 0) return -1;
    const opener = this.brackets[stack[stack.length - 1] as number] as Bracket;
    if (!opener.image && stack.length - 1 < this.linkFloor) {
      stack.pop();
      return -1;
    }
    const src = this.src;
    const next = src.charCodeAt(p + 1);
    let end = -1;
    if (next === LPAREN) {
      this.links ??= new LinkScanner(src);
      end = this.links.resource(p + 1);
      if (end < 0 && this.defined(opener.labelStart, p)) end = p + 1;
    } else if (next === LBRACKET) {
      const labelEnd = scanReferenceLabel(src, p + 1);
      if (labelEnd >= 0 && this.definitions.has(normalizeLabel(src.slice(p + 2, labelEnd - 1)))) end = labelEnd;
      else if (this.defined(opener.labelStart, p) && src.charCodeAt(p + 2) === RBRACKET) end = p + 3;
    } else if (this.defined(opener.labelStart, p)) end = p + 1;
    stack.pop();
    if (end < 0) return -1;
    this.text(textStart, p);
    this.processEmphasis(opener.bottom);
    opener.state = opener.image ? 2 : 1;
    this.push(opener.image ? IMAGE_CLOSE : LINK_CLOSE, '', 0);
    if (!opener.image) this.linkFloor = stack.length;
    return end;
  }

  /** Whether the label text [start, end) normalizes to a defined label (bounded work per call). */
  private defined(start: number, end: number): boolean {
    if (this.definitions.size === 0) return false;
    if (this.maxDefinition < 0) {
      for (const label of this.definitions) this.maxDefinition = Math.max(this.maxDefinition, label.length);
    }
    if (end - start > 4 * this.maxDefinition + 8) {
      // A long label can only match when it is mostly whitespace: count its other characters first.
      if (this.nonSpaceCount === null) {
        const src = this.src;
        const counts = new Int32Array(this.n + 1);
        for (let k = 0; k < this.n; k++) counts[k + 1] = (counts[k] as number) + (isSpaceOrEol(src.charCodeAt(k)) ? 0 : 1);
        this.nonSpaceCount = counts;
      }
      const nonSpace = (this.nonSpaceCount[end] as number) - (this.nonSpaceCount[start] as number);
      if (nonSpace > 2 * this.maxDefinition) return false;
      this.links ??= new LinkScanner(this.src);
      const parts: string[] = [];
      let k = start;
      while (k < end) {
        if (isSpaceOrEol(this.src.charCodeAt(k))) {
          parts.push(' ');
          k = this.links.skipSpace(k);
        } else {
          parts.push(this.src[k] as string);
          k++;
        }
      }
      return this.definitions.has(normalizeLabel(parts.join('')));
    }
    return this.definitions.has(normalizeLabel(this.src.slice(start, end)));
  }

  /** Matches emphasis among the delimiters above `bottom`, then drops them all from the list. */
  private processEmphasis(bottom: Delimiter | null): void {
    const floor = bottom ? bottom.piece : -1;
    // openersBottom[key]: openers with a piece index below this cannot match closers of that key.
    const openersBottom = [floor, floor, floor, floor, floor, floor, floor, floor, floor, floor, floor, floor];
    let closer = bottom ? bottom.next : this.head;
    while (closer !== null) {
      if (!closer.canClose) {
        closer = closer.next;
        continue;
      }
      const key = (closer.marker === STAR ? 0 : 6) + (closer.canOpen ? 3 : 0) + (closer.size % 3);
      const limit = openersBottom[key] as number;
      let opener = closer.prev;
      while (opener !== null && opener.piece > floor && opener.piece >= limit) {
        if (
          opener.canOpen &&
          opener.marker === closer.marker &&
          !((opener.canClose || closer.canOpen) && closer.size % 3 !== 0 && (opener.size + closer.size) % 3 === 0)
        ) {
          break;
        }
        opener = opener.prev;
      }
      if (opener === null || opener.piece <= floor || opener.piece < limit) {
        openersBottom[key] = closer.piece;
        const next: Delimiter | null = closer.next;
        if (!closer.canOpen) this.unlink(closer);
        closer = next;
        continue;
      }
      const use = opener.size > 1 && closer.size > 1 ? 2 : 1;
      opener.size -= use;
      opener.right += use;
      closer.size -= use;
      closer.left += use;
      let between = closer.prev;
      while (between !== null && between !== opener) {
        const prev: Delimiter | null = between.prev;
        this.unlink(between);
        between = prev;
      }
      if (opener.size === 0) this.unlink(opener);
      else {
        // The opener's size changed: it may now suit closers it was ruled out for.
        const base = opener.marker === STAR ? 0 : 6;
        for (let k = base; k < base + 6; k++) {
          if ((openersBottom[k] as number) > opener.piece) openersBottom[k] = opener.piece;
        }
      }
      if (closer.size === 0) {
        const next: Delimiter | null = closer.next;
        this.unlink(closer);
        closer = next;
      }
    }
    let rest = bottom ? bottom.next : this.head;
    while (rest !== null) {
      const next: Delimiter | null = rest.next;
      this.unlink(rest);
      rest = next;
    }
  }

  private render(): string {
    const out: string[] = [];
    const { pieces, kinds, aux } = this;
    let depth = 0;
    for (let i = 0; i < kinds.length; i++) {
      switch (kinds[i]) {
        case TEXT:
          out.push(pieces[i] as string);
          break;
        case BOUNDARY:
        case LINK_CLOSE:
          if (depth === 0) out.push(' ');
          break;
        case IMAGE_CLOSE:
          depth--;
          if (depth === 0) out.push(' ');
          break;
        case DELIMITER: {
          const d = this.delimiters[aux[i] as number] as Delimiter;
          let rest = d.length - d.left - d.right;
          // micromark 4.0.3 slices a partly used opener that ends right before a NUL (a U+FFFD
          // chunk) from its original end, so its leftover text shows the whole run.
          if (d.beforeNul && d.right > 0 && rest > 0) rest = d.length - d.left;
          if (d.left > 0 && depth === 0) out.push(' ');
          if (rest > 0) out.push((d.marker === STAR ? '*' : '_').repeat(rest));
          if (d.right > 0 && depth === 0) out.push(' ');
          break;
        }
        default: {
          const b = this.brackets[aux[i] as number] as Bracket;
          if (b.state === 0) out.push(b.image ? '![' : '[');
          else {
            if (depth === 0) out.push(' ');
            if (b.state === 2) depth++;
          }
        }
      }
    }
    return out.join('');
  }
}

/** micromark's code text value: one padding space or line ending is stripped from each side when both exist and the rest is not all padding. */
function codeValue(content: string): string {
  const n = content.length;
  if (n < 2) return content;
  const first = content.charCodeAt(0);
  const last = content.charCodeAt(n - 1);
  if ((first !== SPACE && first !== LF) || (last !== SPACE && last !== LF)) return content;
  for (let i = 1; i < n - 1; i++) {
    const c = content.charCodeAt(i);
    if (c !== SPACE && c !== LF) return content.slice(1, n - 1);
  }
  return content;
}
