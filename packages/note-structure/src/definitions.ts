/**
 * micromark's definition construct (`[label]: destination "title"`) over
 * the text of one content run: its lines joined by `\n`, each starting at
 * its first non-space char. Invariant: accepts exactly what micromark
 * 4.0.3 accepts, including the 999-code label cap, where a tab counts as
 * the 1-4 codes micromark's preprocessing turns it into, and NUL is the
 * U+FFFD that preprocessing makes of it (the label keeps the NUL).
 * The labels found are kept in a DefinitionLabels table (here too), for
 * the inline pass's reference lookups.
 * Linear bound: one call reads forward from `start` once, O(chars read);
 * the caller stops at the first failure, so a content run is read O(1)
 * times in total (a title scan that fails ends the definitions);
 * DefinitionLabels.add is O(1) amortized, .label O(label length).
 */
import * as chars from './chars';
import * as growth from './growth';
import * as destinations from './link-destination';
import { ScanStop } from './link-destination';

// Imported values are bound once, at load (see chars.ts).
const { APOS, BACKSLASH, COLON, CR, LBRACKET, LF, LPAREN, LT, QUOTE, RBRACKET, RPAREN, SPACE, TAB, codeAt, isSpaceOrTab } = chars;
const { widened } = growth;
const { NO_PAREN_LIMIT, scanEnclosedDestination, scanRawDestination, startsRawDestination } = destinations;

/** Where a definition's destination scan stopped reading (not read: only a budgeted scan needs it). */
const destinationStop = new ScanStop();

/** micromark's label cap: more codes than this and it is not a label. */
const MAX_LABEL_CODES = 999;

/**
 * The definition starting at `start` (a `[` at the start of line `line`):
 * the index of the line ending (or text end) that closes it, its label's
 * range added to `labels` (in text `labelText`, offsets shifted by `base`:
 * see DefinitionLabels.add); or -1 and nothing added (no object or string
 * per definition). `lineColumns` holds the micromark column (0-based, tabs
 * to multiples of 4) each line starts at.
 */
export function parseDefinition(
  text: string,
  start: number,
  line: number,
  lineColumns: ArrayLike<number>,
  labels: DefinitionLabels,
  labelText: number,
  base: number,
): number {
  const textEnd = text.length;
  // Label.
  let at = start + 1;
  let column = lineColumns[line] + 1;
  let seen = false;
  let codes = 0;
  for (;;) {
    const code = codeAt(text, at, textEnd);
    if (code === -1 || code === LBRACKET) return -1;
    if (code === RBRACKET) {
      if (!seen) return -1;
      break;
    }
    if (code === LF) {
      at++;
      line++;
      column = lineColumns[line];
      continue;
    }
    if (code === TAB) {
      codes += 4 - (column % 4);
      column += 4 - (column % 4);
    } else {
      if (code !== SPACE) seen = true;
      codes++;
      column++;
    }
    if (code === BACKSLASH) {
      const next = codeAt(text, at + 1, textEnd);
      if (next === LBRACKET || next === BACKSLASH || next === RBRACKET) {
        at++;
        codes++;
        column++;
      }
    }
    at++;
    if (codes > MAX_LABEL_CODES) return -1;
  }
  const labelEnd = at;
  at++;
  if (codeAt(text, at, textEnd) !== COLON) return -1;
  at++;
  // Whitespace, including at most the line endings content can hold.
  at = skipWhitespaceAndLineEndings(text, at);
  // Destination: micromark's factoryDestination without a paren depth limit, and no budget (the
  // rest of the text and its end are within reach).
  let code = codeAt(text, at, textEnd);
  if (code === LT) at = scanEnclosedDestination(text, at + 1);
  else if (startsRawDestination(code)) at = scanRawDestination(text, at, NO_PAREN_LIMIT, textEnd - at + 1, destinationStop);
  else return -1;
  if (at < 0) return -1;
  const destinationEnd = at;
  // Optional title, which needs whitespace (or a line ending) before it.
  const titleEnd = parseTitleAfter(text, destinationEnd);
  if (titleEnd !== -1) {
    labels.add(labelText, base + start + 1, base + labelEnd);
    return titleEnd;
  }
  at = destinationEnd;
  while (isSpaceOrTab(codeAt(text, at, textEnd))) at++;
  code = codeAt(text, at, textEnd);
  if (code === -1 || code === LF) {
    labels.add(labelText, base + start + 1, base + labelEnd);
    return at;
  }
  return -1;
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
  const textEnd = text.length;
  let code = codeAt(text, at, textEnd);
  if (!(code === SPACE || code === TAB || code === LF)) return -1;
  at = skipWhitespaceAndLineEndings(text, at);
  code = codeAt(text, at, textEnd);
  if (code !== QUOTE && code !== APOS && code !== LPAREN) return -1;
  const marker = code === LPAREN ? RPAREN : code;
  at++;
  for (;;) {
    code = codeAt(text, at, textEnd);
    if (code === marker) {
      at++;
      break;
    }
    if (code === -1) return -1;
    if (code === LF) {
      at++;
      // A title may continue on the next line, after its line prefix.
      while (isSpaceOrTab(codeAt(text, at, textEnd))) at++;
      continue;
    }
    if (code === BACKSLASH) {
      const next = codeAt(text, at + 1, textEnd);
      if (next === marker || next === BACKSLASH) at++;
    }
    at++;
  }
  while (isSpaceOrTab(codeAt(text, at, textEnd))) at++;
  code = codeAt(text, at, textEnd);
  return code === -1 || code === LF ? at : -1;
}

/**
 * The label with every whitespace run (line endings included) folded to one space. Most labels
 * need nothing folded and are returned as they are: a global regex replace allocates about 100 bytes
 * per call even without a match (1 MB for 10,000 definitions).
 */
export function foldLabel(raw: string): string {
  for (let at = 0; at < raw.length; at++) {
    const code = raw.charCodeAt(at);
    if (code === TAB || code === LF || code === CR || (code === SPACE && raw.charCodeAt(at + 1) === SPACE)) {
      return raw.replace(/[\t\n\r ]+/g, ' ');
    }
  }
  return raw;
}

/** The empty start of the label columns (a note without definitions allocates none). */
const NO_INTS = new Int32Array(0);

/**
 * The raw label of every definition, in order, as a [start, end) range of a text: the scanned body
 * (text -1) or a content run joined from its lines (text i >= 0, when its lines were not one slice of
 * the body). Labels become strings only when asked for (an inline pass needs them).
 */
export class DefinitionLabels {
  count = 0;
  private readonly texts: string[] = [];
  private text: Int32Array = NO_INTS;
  private start: Int32Array = NO_INTS;
  private end: Int32Array = NO_INTS;

  constructor(private readonly body: string) {}

  /** Registers a joined content text; returns its index for `add`. */
  addText(text: string): number {
    this.texts.push(text);
    return this.texts.length - 1;
  }

  add(text: number, start: number, end: number): void {
    if (this.count === this.text.length) {
      const needed = this.count + 1;
      this.text = widened(this.text, needed);
      this.start = widened(this.start, needed);
      this.end = widened(this.end, needed);
    }
    this.text[this.count] = text;
    this.start[this.count] = start;
    this.end[this.count] = end;
    this.count++;
  }

  /** Label `index` as written, whitespace runs (line endings included) folded to one space. */
  label(index: number): string {
    const text = this.text[index] === -1 ? this.body : this.texts[this.text[index]];
    return foldLabel(text.slice(this.start[index], this.end[index]));
  }
}
