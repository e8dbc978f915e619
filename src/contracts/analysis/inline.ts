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
 * lookahead scanners (inline-scanners.ts) are memoized. The output is the source with the
 * recorded edits applied, copied once into a code-unit buffer. No recursion. Reference labels
 * (inline-labels.ts) cost O(n) over the whole pass whatever the defined labels' lengths: only
 * spans without a bare bracket are normalized, and those are disjoint.
 */

import { classifyCharacter } from 'micromark-util-classify-character';
import {
  HtmlScanner,
  LinkScanner,
  isAsciiPunctuation,
  scanAutolink,
  scanCharacterReference,
  scanReferenceLabel,
} from './inline-scanners';
import { Ints, fromCodeUnits } from './inline-buffers';
import { LabelLookup } from './inline-labels';

export { normalizeLabel } from './inline-labels';

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

/** micromark's classifyCharacter over one UTF-16 code unit (-1 = start or end of the source). */
function classify(code: number): number {
  if (code < 0) return WHITESPACE;
  if (code < 128) return ASCII_CLASS[code] as number;
  return classifyCharacter(code) ?? OTHER;
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

// Item kinds: the places where the output differs (or may differ) from the source.
/** Replace [start, end) with strings[aux]. */
const REPLACE = 0;
/** Replace [start, end) with a boundary, strings[aux], a boundary (code span, raw HTML, autolink). */
const WRAP = 1;
/** Replace [start, end) with a boundary (hard break). */
const BREAK = 2;
/** Drop [start, end) (spaces before a soft line ending). */
const DROP = 3;
/** An emphasis delimiter run; aux = delimiter index. */
const DELIMITER = 4;
/** `[` or `![`; aux = bracket index. */
const OPENER = 5;
/** `]` and the resource or reference that closed a link / an image. */
const LINK_CLOSE = 6;
const IMAGE_CLOSE = 7;

const NONE = -1;
const CAN_OPEN = 1;
const CAN_CLOSE = 2;
const BEFORE_NUL = 4;
const STAR_BIT = 8;

/**
 * Raw plain text (before NFC and whitespace folding) of the inline content `lines` (paragraph,
 * setext text lines, or one ATX content line; container prefixes removed, no line endings),
 * given the normalized labels the note defines (each as normalizeLabel gives a definition's
 * label: the lookup relies on it holding no unescaped bracket, see inline-labels.ts).
 */
export function inlinePlainText(lines: readonly string[], definitions: ReadonlySet<string>): string {
  const source = prepareSource(lines);
  if (!source.includes('\0')) return new InlinePass(source, definitions, null).run();
  // micromark reads NUL as U+FFFD; remember where, for the one place its output still differs.
  // (One code-unit copy: a global regex replace of many NULs grows superlinearly in V8.)
  const n = source.length;
  const nul = new Uint8Array(n + 1);
  const units = new Uint16Array(n);
  for (let at = 0; at < n; at++) {
    const c = source.charCodeAt(at);
    if (c === 0) {
      units[at] = 0xfffd;
      nul[at] = 1;
    } else units[at] = c;
  }
  return new InlinePass(fromCodeUnits(units, n), definitions, nul).run();
}

/** One pass; all state in flat integer arrays (struct of arrays), linked lists by index. */
class InlinePass {
  private readonly n: number;
  // Items, in source order.
  /** aux * 8 + kind. */
  private readonly itemKindAux = new Ints();
  private readonly itemStart = new Ints();
  private readonly itemEnd = new Ints();
  private readonly strings: string[] = [];
  // Delimiter runs: a doubly linked list of the live ones (NONE = no link).
  /** length * 16 + (8 when the marker is `*`) + flags (CAN_OPEN, CAN_CLOSE, BEFORE_NUL). */
  private readonly dInfo = new Ints();
  private readonly dSize = new Ints();
  private readonly dLeft = new Ints();
  private readonly dRight = new Ints();
  private readonly dPrev = new Ints();
  private readonly dNext = new Ints();
  private head = NONE;
  private tail = NONE;
  // Brackets: image flag, label start, newest delimiter at push time, state (0 literal, 1 link, 2 image).
  /** labelStart * 4 + state (0 literal, 1 link, 2 image); an image's state is set only when it closes. */
  private readonly bLabel = new Ints();
  /** (newest delimiter at push time + 1) * 2 + (1 for `![`, 0 for `[`). */
  private readonly bBottomImage = new Ints();
  /** Open brackets (indices), innermost last. */
  private readonly stack = new Ints();
  /** Link openers at stack indices below this are inactive (a link formed after them). */
  private linkFloor = 0;
  private html: HtmlScanner | null = null;
  private links: LinkScanner | null = null;
  private codeRuns: Map<number, { starts: number[]; cursor: number }> | null = null;
  private readonly labels: LabelLookup;

  constructor(
    private readonly src: string,
    definitions: ReadonlySet<string>,
    /** 1 where the source held NUL (now U+FFFD), or null when it held none. */
    private readonly nul: Uint8Array | null,
  ) {
    this.n = src.length;
    this.labels = new LabelLookup(src, definitions);
  }

  run(): string {
    const src = this.src;
    const n = this.n;
    let p = 0;
    // Start of the current stretch of plain text (for trailing spaces before a line ending).
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
          if (!tabs && p - end >= 2) this.item(BREAK, end, p + 1, 0);
          else if (end < p) this.item(DROP, end, p, 0);
          p++;
          textStart = p;
          break;
        }
        case BACKSLASH: {
          const d = src.charCodeAt(p + 1);
          if (d === LF) {
            this.item(BREAK, p, p + 2, 0);
            p += 2;
            textStart = p;
          } else if (isAsciiPunctuation(d)) {
            this.item(DROP, p, p + 1, 0);
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
          this.item(REPLACE, p, reference.end, this.strings.push(reference.value) - 1);
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
          this.item(WRAP, p, end, this.strings.push(codeValue(src.slice(q, close))) - 1);
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
          this.item(WRAP, p, end, this.strings.push(value) - 1);
          p = end;
          textStart = p;
          break;
        }
        case EXCLAMATION: {
          if (src.charCodeAt(p + 1) !== LBRACKET) {
            p++;
            break;
          }
          this.bracket(true, p, p + 2);
          p += 2;
          textStart = p;
          break;
        }
        case LBRACKET: {
          this.bracket(false, p, p + 1);
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
    return this.render();
  }

  private item(kind: number, start: number, end: number, aux: number): void {
    this.itemKindAux.push(aux * 8 + kind);
    this.itemStart.push(start);
    this.itemEnd.push(end);
  }

  private delimiter(marker: number, start: number, end: number): void {
    const before = classify(start > 0 ? this.src.charCodeAt(start - 1) : -1);
    const after = classify(end < this.n ? this.src.charCodeAt(end) : -1);
    const open = after === OTHER || (after === PUNCTUATION && before !== OTHER);
    const close = before === OTHER || (before === PUNCTUATION && after !== OTHER);
    const canOpen = marker === STAR ? open : open && (before !== OTHER || !close);
    const canClose = marker === STAR ? close : close && (after !== OTHER || !open);
    const index = this.dSize.length;
    const flags = (canOpen ? CAN_OPEN : 0) | (canClose ? CAN_CLOSE : 0) | (this.nul !== null && this.nul[end] === 1 ? BEFORE_NUL : 0);
    this.dInfo.push((end - start) * 16 + (marker === STAR ? STAR_BIT : 0) + flags);
    this.dSize.push(end - start);
    this.dLeft.push(0);
    this.dRight.push(0);
    this.dPrev.push(this.tail);
    this.dNext.push(NONE);
    if (this.tail !== NONE) this.dNext.data[this.tail] = index;
    else this.head = index;
    this.tail = index;
    this.item(DELIMITER, start, end, index);
  }

  private unlink(d: number): void {
    const prev = this.dPrev.data[d] as number;
    const next = this.dNext.data[d] as number;
    if (prev !== NONE) this.dNext.data[prev] = next;
    else this.head = next;
    if (next !== NONE) this.dPrev.data[next] = prev;
    else this.tail = prev;
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

  private bracket(image: boolean, start: number, labelStart: number): void {
    const stack = this.stack;
    if (this.linkFloor > stack.length) this.linkFloor = stack.length;
    const index = this.bLabel.length;
    stack.push(index);
    this.bLabel.push(labelStart * 4);
    this.bBottomImage.push((this.tail + 1) * 2 + (image ? 1 : 0));
    this.item(OPENER, start, labelStart, index);
  }

  /** A `]` at p: the index after the link or image it closes, or -1 when it stays literal. */
  private closeBracket(p: number): number {
    const stack = this.stack;
    if (stack.length === 0) return -1;
    const opener = stack.data[stack.length - 1] as number;
    const bottomImage = this.bBottomImage.data[opener] as number;
    const image = (bottomImage & 1) === 1;
    if (!image && stack.length - 1 < this.linkFloor) {
      stack.length--;
      return -1;
    }
    const src = this.src;
    const labelStart = (this.bLabel.data[opener] as number) / 4;
    const next = src.charCodeAt(p + 1);
    let end = -1;
    if (next === LPAREN) {
      this.links ??= new LinkScanner(src);
      end = this.links.resource(p + 1);
      if (end < 0 && this.labels.defined(labelStart, p)) end = p + 1;
    } else if (next === LBRACKET) {
      const labelEnd = scanReferenceLabel(src, p + 1);
      if (labelEnd >= 0 && this.labels.definedLabel(p + 2, labelEnd - 1)) end = labelEnd;
      else if (this.labels.defined(labelStart, p) && src.charCodeAt(p + 2) === RBRACKET) end = p + 3;
    } else if (this.labels.defined(labelStart, p)) end = p + 1;
    stack.length--;
    if (end < 0) return -1;
    this.processEmphasis((bottomImage >> 1) - 1);
    this.bLabel.data[opener] = labelStart * 4 + (image ? 2 : 1);
    this.item(image ? IMAGE_CLOSE : LINK_CLOSE, p, end, 0);
    if (!image) this.linkFloor = stack.length;
    return end;
  }

  /** Matches emphasis among the delimiters above `bottom`, then drops them all from the list. */
  private processEmphasis(bottom: number): void {
    const dInfo = this.dInfo.data;
    const dSize = this.dSize.data;
    const dPrev = this.dPrev.data;
    const dNext = this.dNext.data;
    // Delimiter indices grow in source order: the floor and openers-bottom are indices.
    const floor = bottom;
    // openersBottom[key]: openers whose item index is below this cannot match closers of that key.
    const openersBottom = [floor, floor, floor, floor, floor, floor, floor, floor, floor, floor, floor, floor];
    let closer = bottom === NONE ? this.head : (dNext[bottom] as number);
    while (closer !== NONE) {
      const closerFlags = dInfo[closer] as number;
      if ((closerFlags & CAN_CLOSE) === 0) {
        closer = dNext[closer] as number;
        continue;
      }
      const marker = closerFlags & STAR_BIT;
      const closerSize = dSize[closer] as number;
      const closerOpens = (closerFlags & CAN_OPEN) !== 0;
      const key = (marker !== 0 ? 0 : 6) + (closerOpens ? 3 : 0) + (closerSize % 3);
      const limit = openersBottom[key] as number;
      let opener = dPrev[closer] as number;
      while (opener !== NONE) {
        if (opener <= floor || opener < limit) {
          opener = NONE;
          break;
        }
        const flags = dInfo[opener] as number;
        if (
          (flags & CAN_OPEN) !== 0 &&
          (flags & STAR_BIT) === marker &&
          !(((flags & CAN_CLOSE) !== 0 || closerOpens) && closerSize % 3 !== 0 && ((dSize[opener] as number) + closerSize) % 3 === 0)
        ) {
          break;
        }
        opener = dPrev[opener] as number;
      }
      if (opener === NONE) {
        openersBottom[key] = closer;
        const next = dNext[closer] as number;
        if (!closerOpens) this.unlink(closer);
        closer = next;
        continue;
      }
      const openerSize = dSize[opener] as number;
      const use = openerSize > 1 && closerSize > 1 ? 2 : 1;
      dSize[opener] = openerSize - use;
      this.dRight.data[opener] = (this.dRight.data[opener] as number) + use;
      dSize[closer] = closerSize - use;
      this.dLeft.data[closer] = (this.dLeft.data[closer] as number) + use;
      let between = dPrev[closer] as number;
      while (between !== opener) {
        const prev = dPrev[between] as number;
        this.unlink(between);
        between = prev;
      }
      if (openerSize === use) this.unlink(opener);
      else {
        // The opener's size changed: it may now suit closers it was ruled out for.
        const base = marker !== 0 ? 0 : 6;
        for (let k = base; k < base + 6; k++) {
          if ((openersBottom[k] as number) > opener) openersBottom[k] = opener;
        }
      }
      if (closerSize === use) {
        const next = dNext[closer] as number;
        this.unlink(closer);
        closer = next;
      }
    }
    // Whatever is left above the bottom stays literal.
    if (bottom === NONE) {
      this.head = NONE;
      this.tail = NONE;
    } else {
      dNext[bottom] = NONE;
      this.tail = bottom;
    }
  }

  /** The source with every item's edit applied; boundaries are spaces outside image labels and nothing inside. */
  private render(): string {
    const { src, strings } = this;
    const count = this.itemKindAux.length;
    if (count === 0) return src;
    const itemKindAux = this.itemKindAux.data;
    const itemStart = this.itemStart.data;
    const itemEnd = this.itemEnd.data;
    // Every edit is at most as long as its source span, except raw HTML (+2 boundary spaces).
    const out = new Uint16Array(this.n + 2 * count + 2);
    let w = 0;
    let copied = 0;
    let depth = 0;
    for (let i = 0; i < count; i++) {
      const kind = (itemKindAux[i] as number) & 7;
      const aux = Math.floor((itemKindAux[i] as number) / 8);
      const start = itemStart[i] as number;
      if (kind === DELIMITER) {
        const d = aux;
        const left = this.dLeft.data[d] as number;
        const right = this.dRight.data[d] as number;
        if (left === 0 && right === 0) continue;
        const info = this.dInfo.data[d] as number;
        const length = Math.floor(info / 16);
        let rest = length - left - right;
        // micromark 4.0.3 slices a partly used opener that ends right before a NUL (a U+FFFD
        // chunk) from its original end, so its leftover text shows the whole run.
        if ((info & BEFORE_NUL) !== 0 && right > 0 && rest > 0) rest = length - left;
        for (let k = copied; k < start; k++) out[w++] = src.charCodeAt(k);
        if (left > 0 && depth === 0) out[w++] = SPACE;
        const marker = (info & STAR_BIT) !== 0 ? STAR : UNDERSCORE;
        for (let k = 0; k < rest; k++) out[w++] = marker;
        if (right > 0 && depth === 0) out[w++] = SPACE;
        copied = itemEnd[i] as number;
        continue;
      }
      if (kind === OPENER) {
        const state = (this.bLabel.data[aux] as number) & 3;
        if (state === 0) continue;
        for (let k = copied; k < start; k++) out[w++] = src.charCodeAt(k);
        if (depth === 0) out[w++] = SPACE;
        if (state === 2) depth++;
        copied = itemEnd[i] as number;
        continue;
      }
      for (let k = copied; k < start; k++) out[w++] = src.charCodeAt(k);
      copied = itemEnd[i] as number;
      if (kind === IMAGE_CLOSE) depth--;
      if (kind === DROP) continue;
      if (kind === REPLACE || kind === WRAP) {
        if (kind === WRAP && depth === 0) out[w++] = SPACE;
        const value = strings[aux] as string;
        for (let k = 0; k < value.length; k++) out[w++] = value.charCodeAt(k);
        if (kind === WRAP && depth === 0) out[w++] = SPACE;
        continue;
      }
      // BREAK, LINK_CLOSE, IMAGE_CLOSE: one boundary.
      if (depth === 0) out[w++] = SPACE;
    }
    for (let k = copied; k < this.n; k++) out[w++] = src.charCodeAt(k);
    return fromCodeUnits(out, w);
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
