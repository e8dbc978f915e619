/**
 * The end of a content run (micromark's `content`: definitions, then a
 * paragraph or, under a setext underline, a heading). Invariant: the
 * definitions micromark would take are taken first (each one a top-level
 * block of its own when the content is top level); the rest is one
 * paragraph or heading whose inline source is recorded for the inline pass,
 * unless a plain scan already proves the paragraph substantive.
 * Linear bound: O(content length): the lines are joined (or sliced) once
 * for the definitions, and the substance scan reads each char at most once
 * (a character reference's chars are read by its scanner, then skipped).
 */
import * as chars from './chars';
import * as definitions from './definitions';
import * as scanners from './inline-scanners';
import type { CharacterReference } from './inline-scanners';
import type { ContentHost } from './scan-types';

// Imported values are bound once, at load (see chars.ts).
const {
  AMP, APOS, BACKSLASH, BACKTICK, BANG, COLON, CR, LBRACKET, LF, LPAREN, LT, QUOTE, RBRACKET, RPAREN, STAR, UNDERSCORE,
  hasJsNonWhitespace, isJsWhitespace, isPossiblyMarkup,
} = chars;
const { parseDefinition } = definitions;
const { scanCharacterReference } = scanners;

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
  if (paragraphIsSubstantive(body, starts[restLine], ends[count - 1])) {
    blocks.substantive[record] = 1;
  } else {
    blocks.pendOn(record, host.sources.add(starts, ends, restLine, count));
  }
  return true;
}

/**
 * True when the paragraph must have a non-blank value; false means "not proven" (the inline pass
 * decides). Container prefixes between the lines are `>` and blanks only.
 * Why it is sound: before the first `](` / `][` no char is in a link destination, title or
 * reference label, the only places whose chars reach no value; every other char reaches a text,
 * code, HTML or alt value as written, unless it is markup a construct can drop (isPossiblyMarkup)
 * or part of a character reference. So before it, these prove substance: a char that is neither
 * markup nor whitespace; `(`, `)`, `"`, `'` (dropped only in a resource); `!` not before `[`;
 * `<` (text, or an autolink's non-empty text, or raw HTML, whose value starts with it); `\` not
 * before a line ending (it escapes a punctuation char, which is text, or is text); `&` (a
 * reference to a non-whitespace value, or else the `&` as written). And when the paragraph holds
 * no `](` / `][` at all, so does markup with nothing in it to pair with: `[` and no `]` or the
 * reverse, one run of backticks, of `*` or of `_` (a run starts where the char before differs).
 */
function paragraphIsSubstantive(body: string, from: number, to: number): boolean {
  let reference: CharacterReference | null = null;
  let openBrackets = 0;
  let closeBrackets = 0;
  let backtickRuns = 0;
  let starRuns = 0;
  let underscoreRuns = 0;
  for (let at = from; at < to; at++) {
    const code = body.charCodeAt(at);
    if (code === RBRACKET) {
      const next = at + 1 < to ? body.charCodeAt(at + 1) : -1;
      if (next === LPAREN || next === LBRACKET) return false;
      closeBrackets++;
    } else if (code === LBRACKET) openBrackets++;
    else if (code === BACKTICK || code === STAR || code === UNDERSCORE) {
      if (at === from || body.charCodeAt(at - 1) !== code) {
        if (code === BACKTICK) backtickRuns++;
        else if (code === STAR) starRuns++;
        else underscoreRuns++;
      }
    } else if (code === BANG) {
      if (at + 1 === to || body.charCodeAt(at + 1) !== LBRACKET) return true;
    } else if (code === BACKSLASH) {
      const next = at + 1 < to ? body.charCodeAt(at + 1) : -1;
      if (next !== LF && next !== CR) return true;
    } else if (code === AMP) {
      // A reference never spans a line: it ends within the paragraph's last line at the latest.
      const decoded = scanCharacterReference(body, at, (reference ??= { end: 0, value: '' }));
      if (decoded === null || hasJsNonWhitespace(decoded.value)) return true;
      at = decoded.end - 1;
    } else if (code === LT || code === LPAREN || code === RPAREN || code === QUOTE || code === APOS) return true;
    else if (!isPossiblyMarkup(code) && !isJsWhitespace(code)) return true;
  }
  return (openBrackets > 0) !== (closeBrackets > 0) || backtickRuns === 1 || starRuns === 1 || underscoreRuns === 1;
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
