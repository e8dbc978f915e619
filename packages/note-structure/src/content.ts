/**
 * The end of a content run (micromark's `content`: definitions, then a
 * paragraph or, under a setext underline, a heading). Invariant: the
 * definitions micromark would take are taken first (each one a top-level
 * block of its own when the content is top level); the rest is one
 * paragraph or heading whose inline source is recorded for the inline pass,
 * unless a plain scan already proves the paragraph substantive or blank.
 * Linear bound: O(content length): the lines are joined (or sliced) once
 * for the definitions, and the substance scan reads each char at most once
 * (a character reference's chars by its scanner, a run's or an empty link's
 * by the loop that measures it, then skipped).
 */
import * as chars from './chars';
import * as references from './character-references';
import * as definitions from './definitions';
import type { CharacterReference } from './character-references';
import type { ContentHost } from './scan-types';

// Imported values are bound once, at load (see chars.ts).
const {
  AMP, APOS, BACKSLASH, BACKTICK, BANG, COLON, CR, LBRACKET, LF, LPAREN, LT, QUOTE, RBRACKET, RPAREN, STAR, UNDERSCORE,
  hasJsNonWhitespace, isAsciiAlphanumeric, isJsWhitespace, isPossiblyMarkup,
} = chars;
const { parseDefinition } = definitions;
const { scanCharacterReference } = references;

/** The content's lines: entries 0 .. count - 1 of the columns (which the block scan reuses and grows). */
export interface ContentLines {
  starts: Int32Array;
  ends: Int32Array;
  /** micromark column each line starts at. */
  columns: Int32Array;
  count: number;
}

/**
 * Ends the open content: definitions first, then the paragraph rest, or
 * (level 1/2, setext) a heading from the rest ending at `underlineEnd`.
 * `owner` is the top-level record the content belongs to, or -1 when it is
 * itself top level. Returns false when only definitions were found.
 */
export function endContent(
  host: ContentHost,
  lines: ContentLines,
  owner: number,
  level: number,
  underlineEnd: number,
): boolean {
  const { body } = host;
  const { starts, ends, count } = lines;
  const topLevel = owner === -1;
  const restLine = body.charCodeAt(starts[0]) === LBRACKET && holdsLabelEnd(body, lines) ? takeDefinitions(host, lines, topLevel) : 0;
  if (restLine >= count) return false;
  if (level > 0) {
    const index = host.sources.add(starts, ends, restLine, count);
    host.headings.add(level, starts[0], underlineEnd, index);
    if (!topLevel) host.blocks.pendOn(owner, index);
    return true;
  }
  const blocks = host.blocks;
  let record: number;
  if (topLevel) {
    record = blocks.add(starts[restLine]);
  } else {
    record = owner;
    if (blocks.substantive[record] !== 0) return true;
  }
  const substance = paragraphSubstance(body, starts[restLine], ends[count - 1]);
  if (substance === Substance.Substantive) blocks.substantive[record] = 1;
  else if (substance === Substance.Undecided) blocks.pendOn(record, host.sources.add(starts, ends, restLine, count));
  return true;
}

/** paragraphSubstance's answers: a non-blank value is certain, no value can be non-blank, or the inline pass decides. */
const enum Substance {
  Blank = 0,
  Substantive = 1,
  Undecided = 2,
}

/**
 * Whether the paragraph [from, to) must have a non-blank value (Substantive), can have none
 * (Blank), or neither is proven (Undecided). Container prefixes between the lines are `>` and
 * blanks only.
 * Why Substantive is sound: before the first `](` / `][` no char is in a link destination, title
 * or reference label, the only places whose chars reach no value; every other char reaches a
 * text, code, HTML or alt value as written, unless it is markup a construct can drop
 * (isPossiblyMarkup) or part of a character reference. So before it, these prove substance: a
 * char that is neither markup nor whitespace; `(`, `)`, `"`, `'` (dropped only in a resource);
 * `!` not before `[`; `<` (text, or an autolink's non-empty text, or raw HTML, whose value
 * starts with it); `\` not before a line ending (it escapes a punctuation char, which is text, or
 * is text); `&` (a reference to a non-whitespace value, or else the `&` as written); `[]` not
 * before `(` or `[` (that `]` closes that `[` or nothing, and an empty label is never defined, so
 * both stay text, or code). And when the paragraph holds no `](` / `][` at all, so does markup
 * with nothing in it to pair with: `[` and no `]` or the reverse, one run of backticks, of `*` or
 * of `_` (a run starts where the char before differs).
 * Why Blank is sound: it is proven when the paragraph is, left to right: whitespace; character
 * references to whitespace; code spans whose content is whitespace (a backtick run, whitespace,
 * then the next run, of its size); and empty links and images with a plain resource (`[](` or
 * `![](`, then EMPTY_LINK_DESTINATION chars, then `)`). Each such piece starts where nothing is
 * open (no code span, no label start: every `[` so far was one of the empty links, no delimiter
 * run), so it is read as what it looks like: a backtick run opens a span that closes at the first
 * run of its size after it; `&` starts a reference (no code is open); `[` or `![` starts a label
 * that the `]` right after it closes (no label start is nearer, and only a link formed after it
 * makes one inactive), and `(`, a destination without whitespace, control chars, `<`, `\`,
 * parentheses or backticks, then `)` is its resource: a link with no children or an image with
 * an empty alt. Whitespace is text or a line ending (a container prefix's `>` is none of these
 * pieces: not proven). Every value is then whitespace.
 * After such pieces up to an empty link nothing is open either, so the rest of the paragraph has
 * the values it would have as a paragraph of its own: both proofs start again after each one.
 */
function paragraphSubstance(body: string, from: number, to: number): Substance {
  let reference: CharacterReference | null = null;
  let openBrackets = 0;
  let closeBrackets = 0;
  let backtickRuns = 0;
  let starRuns = 0;
  let underscoreRuns = 0;
  /** Whether every char since `start` is in one of the pieces Blank allows. */
  let blank = true;
  /** The size of the run that opened the current code span while `blank` holds (0: none open). */
  let openCode = 0;
  for (let at = from; at < to; at++) {
    const code = body.charCodeAt(at);
    if (code === RBRACKET) {
      const next = at + 1 < to ? body.charCodeAt(at + 1) : -1;
      if (next === LPAREN || next === LBRACKET) return Substance.Undecided;
      if (at > from && body.charCodeAt(at - 1) === LBRACKET) return Substance.Substantive;
      closeBrackets++;
      blank = false;
    } else if (code === LBRACKET || code === BANG) {
      if (blank && openCode === 0) {
        const end = emptyLinkEnd(body, code === BANG ? at + 1 : at, to);
        if (end >= 0) {
          at = end - 1;
          openBrackets = closeBrackets = backtickRuns = starRuns = underscoreRuns = 0;
          continue;
        }
      }
      if (code === LBRACKET) {
        openBrackets++;
        blank = false;
      } else if (at + 1 === to || body.charCodeAt(at + 1) !== LBRACKET) return Substance.Substantive;
    } else if (code === BACKTICK || code === STAR || code === UNDERSCORE) {
      // The whole run at once: only its start and size count.
      let end = at + 1;
      while (end < to && body.charCodeAt(end) === code) end++;
      if (code === BACKTICK) {
        backtickRuns++;
        if (openCode === 0) openCode = end - at;
        else if (openCode === end - at) openCode = 0;
        else blank = false;
      } else {
        if (code === STAR) starRuns++;
        else underscoreRuns++;
        blank = false;
      }
      at = end - 1;
    } else if (code === BACKSLASH) {
      const next = at + 1 < to ? body.charCodeAt(at + 1) : -1;
      if (next !== LF && next !== CR) return Substance.Substantive;
      blank = false;
    } else if (code === AMP) {
      // A reference never spans a line: it ends within the paragraph's last line at the latest.
      const decoded = scanCharacterReference(body, at, (reference ??= { end: 0, value: '' }));
      if (decoded === null || hasJsNonWhitespace(decoded.value)) return Substance.Substantive;
      if (openCode !== 0) blank = false;
      at = decoded.end - 1;
    } else if (code === LT || code === LPAREN || code === RPAREN || code === QUOTE || code === APOS) return Substance.Substantive;
    else if (!isJsWhitespace(code)) {
      if (!isPossiblyMarkup(code)) return Substance.Substantive;
      blank = false;
    }
  }
  if ((openBrackets > 0) !== (closeBrackets > 0) || backtickRuns === 1 || starRuns === 1 || underscoreRuns === 1) return Substance.Substantive;
  return blank && openCode === 0 ? Substance.Blank : Substance.Undecided;
}

/** ASCII chars a plain resource's destination may hold (see paragraphSubstance): alphanumerics and `./-:#?=%~+@,_`. */
const EMPTY_LINK_DESTINATION = new Uint8Array(128);
for (let code = 0; code < 128; code++) if (isAsciiAlphanumeric(code) || './-:#?=%~+@,_'.includes(String.fromCharCode(code))) EMPTY_LINK_DESTINATION[code] = 1;

/** After the `[` at `at`: `](`, destination chars, `)`: the index after that `)`, or -1. */
function emptyLinkEnd(body: string, at: number, to: number): number {
  if (at + 2 >= to || body.charCodeAt(at) !== LBRACKET || body.charCodeAt(at + 1) !== RBRACKET || body.charCodeAt(at + 2) !== LPAREN) return -1;
  let end = at + 3;
  for (; end < to; end++) {
    const code = body.charCodeAt(end);
    if (code === RPAREN) return end + 1;
    if (code >= 128 || EMPTY_LINK_DESTINATION[code] === 0) return -1;
  }
  return -1;
}

/**
 * Whether some line of the content holds `]:`, which every definition does (its label's `]`
 * right before the `:`, on one line): without one, no definition is looked for (nor the
 * content joined for it).
 */
function holdsLabelEnd(body: string, lines: ContentLines): boolean {
  const { starts, ends, count } = lines;
  for (let line = 0; line < count; line++) {
    for (let at = starts[line]; at + 1 < ends[line]; at++) {
      if (body.charCodeAt(at) === RBRACKET && body.charCodeAt(at + 1) === COLON) return true;
    }
  }
  return false;
}

/**
 * micromark definitions from the start of the content's lines. Records the
 * labels, and a block per definition when the content is top level;
 * returns the index of the first non-definition line.
 */
function takeDefinitions(host: ContentHost, lines: ContentLines, topLevel: boolean): number {
  const { body } = host;
  const { starts, ends, columns, count } = lines;
  // The content as micromark's content tokenizer sees it after line prefixes, and each line's offset in
  // it. Lines that follow each other in the body with one LF between them (no prefix, indent or CR) are
  // one slice of the body, which V8 shares rather than copies; otherwise they are joined.
  const lineStarts = new Int32Array(count);
  let contiguous = true;
  for (let line = 1; line < count && contiguous; line++) contiguous = starts[line] === ends[line - 1] + 1 && body.charCodeAt(ends[line - 1]) === LF;
  let text: string;
  /** Where the labels' offsets point: the body (offsets shifted by `base`) or the joined text. */
  let labelText = -1;
  let base = 0;
  if (contiguous) {
    base = starts[0];
    for (let line = 0; line < count; line++) lineStarts[line] = starts[line] - starts[0];
    text = body.slice(starts[0], ends[count - 1]);
  } else {
    const parts: string[] = new Array(count);
    let offset = 0;
    for (let line = 0; line < count; line++) {
      parts[line] = body.slice(starts[line], ends[line]);
      lineStarts[line] = offset;
      offset += ends[line] - starts[line] + 1;
    }
    text = parts.join('\n');
    labelText = host.labels.addText(text);
  }
  let line = 0;
  while (line < count && text.charCodeAt(lineStarts[line]) === LBRACKET) {
    const end = parseDefinition(text, lineStarts[line], line, columns, host.labels, labelText, base);
    if (end === -1) break;
    if (topLevel) host.blocks.add(starts[line]);
    // The definition ends at a line end: the next one starts on the following line.
    let next = line + 1;
    while (next < count && lineStarts[next] <= end) next++;
    line = next;
  }
  return line;
}
