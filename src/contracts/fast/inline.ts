/**
 * Heading plain text without a micromark run, for inline sources whose only
 * syntax is emphasis (`*`, `_`) and code spans. It mirrors micromark's
 * codeText tokenizer and its attention resolver, and relies on one property
 * of the reference plain text: every boundary between inline nodes becomes
 * a space and whitespace runs are folded afterwards. So the text is the
 * source with each consumed delimiter (emphasis markers, code-span backtick
 * runs) turned into a space, and every other character kept.
 */

const SPACE = 32;
const TAB = 9;
const LF = 10;
const CR = 13;
const STAR = 42;
const UNDERSCORE = 95;
const BACKTICK = 96;
const BACKSLASH = 92;
const LBRACKET = 91;
const LT = 60;
const AMP = 38;

const OTHER = 0;
const WHITESPACE = 1;
const PUNCTUATION = 2;

const UNICODE_PUNCTUATION = /\p{P}|\p{S}/u;
const UNICODE_WHITESPACE = /\s/;

/** micromark's classifyCharacter over one UTF-16 code unit (-1 = start or end of the text). */
function classify(code: number): number {
  if (code === -1 || code === SPACE || code === TAB || code === LF || code === CR) return WHITESPACE;
  const char = String.fromCharCode(code);
  if (UNICODE_WHITESPACE.test(char)) return WHITESPACE;
  if (UNICODE_PUNCTUATION.test(char)) return PUNCTUATION;
  return OTHER;
}

interface Sequence {
  marker: number;
  /** Remaining (unused) run: [start, end). */
  start: number;
  end: number;
  open: boolean;
  close: boolean;
  active: boolean;
}

/**
 * Raw plain text (before NFC and whitespace folding) of an inline source in
 * which only emphasis and code spans can be syntax; null when the source
 * holds anything else that micromark could read as syntax (escapes, links,
 * images, html, autolinks, character references, NUL).
 */
export function emphasisAndCodePlainText(source: string): string | null {
  const length = source.length;
  let hasSyntax = false;
  for (let at = 0; at < length; at++) {
    const code = source.charCodeAt(at);
    if (code === BACKSLASH || code === LBRACKET || code === LT || code === AMP || code === 0) return null;
    if (code === STAR || code === UNDERSCORE || code === BACKTICK) hasSyntax = true;
  }
  if (!hasSyntax) return source;

  const removed = new Uint8Array(length);
  const sequences: Sequence[] = [];
  let at = 0;
  while (at < length) {
    const code = source.charCodeAt(at);
    if (code === BACKTICK) {
      let runEnd = at;
      while (runEnd < length && source.charCodeAt(runEnd) === BACKTICK) runEnd++;
      const size = runEnd - at;
      // The closing run is the next run of exactly the same size; others are code data.
      let search = runEnd;
      let closeAt = -1;
      while (search < length) {
        if (source.charCodeAt(search) !== BACKTICK) {
          search++;
          continue;
        }
        let closeEnd = search;
        while (closeEnd < length && source.charCodeAt(closeEnd) === BACKTICK) closeEnd++;
        if (closeEnd - search === size) {
          closeAt = search;
          break;
        }
        search = closeEnd;
      }
      if (closeAt === -1) {
        at = runEnd;
        continue;
      }
      removed.fill(1, at, runEnd);
      removed.fill(1, closeAt, closeAt + size);
      at = closeAt + size;
      continue;
    }
    if (code === STAR || code === UNDERSCORE) {
      let runEnd = at;
      while (runEnd < length && source.charCodeAt(runEnd) === code) runEnd++;
      const before = classify(at > 0 ? source.charCodeAt(at - 1) : -1);
      const after = classify(runEnd < length ? source.charCodeAt(runEnd) : -1);
      const open = after === OTHER || (after === PUNCTUATION && before !== OTHER);
      const close = before === OTHER || (before === PUNCTUATION && after !== OTHER);
      sequences.push({
        marker: code,
        start: at,
        end: runEnd,
        open: code === STAR ? open : open && (before !== OTHER || !close),
        close: code === STAR ? close : close && (after !== OTHER || !open),
        active: true,
      });
      at = runEnd;
      continue;
    }
    at++;
  }
  resolveAttention(sequences, removed);

  let text = '';
  let runStart = 0;
  for (let index = 0; index < length; index++) {
    if (removed[index] === 1) {
      text += source.slice(runStart, index) + ' ';
      runStart = index + 1;
    }
  }
  return text + source.slice(runStart);
}

/** micromark's resolveAllAttention: closers left to right, nearest eligible opener, inner runs resolved apart. */
function resolveAttention(sequences: Sequence[], removed: Uint8Array): void {
  for (let index = 0; index < sequences.length; index++) {
    const closer = sequences[index];
    if (!closer.active || !closer.close) continue;
    for (let open = index - 1; open >= 0; open--) {
      const opener = sequences[open];
      if (!opener.active || !opener.open || opener.marker !== closer.marker) continue;
      const openSize = opener.end - opener.start;
      const closeSize = closer.end - closer.start;
      if ((opener.close || closer.open) && closeSize % 3 !== 0 && (openSize + closeSize) % 3 === 0) continue;
      const use = openSize > 1 && closeSize > 1 ? 2 : 1;
      removed.fill(1, opener.end - use, opener.end);
      removed.fill(1, closer.start, closer.start + use);
      opener.end -= use;
      closer.start += use;
      if (opener.end === opener.start) opener.active = false;
      const inner = sequences.slice(open + 1, index).filter((sequence) => sequence.active);
      resolveAttention(inner, removed);
      for (let between = open + 1; between < index; between++) sequences[between].active = false;
      if (closer.end === closer.start) closer.active = false;
      else index--;
      break;
    }
  }
  for (const sequence of sequences) sequence.active = false;
}
