/**
 * micromark's html (flow) construct, reduced to what the block scan needs:
 * which of the seven kinds opens at a line's first non-space char, and
 * whether a kind's end condition is met on a given line. Invariant: these
 * are micromark 4.0.3's state machines (html-flow.js), one char at a time.
 * Linear bound: every function reads the line once from its start offset,
 * O(line length), with at most 8 chars of look-behind state.
 */
import * as chars from './chars';

// Imported values are bound once, at load (see chars.ts).
const {
  APOS, BACKTICK, BANG, COLON, DASH, DOT, EQUALS, GT, LBRACKET, LT, QUESTION, QUOTE, RBRACKET, SLASH, SPACE, TAB, UNDERSCORE,
  codeAt, isAsciiAlpha, isAsciiAlphanumeric, isSpaceOrTab,
} = chars;

export const HTML_RAW_NAMES = ['pre', 'script', 'style', 'textarea'];
const HTML_BLOCK_NAMES = new Set([
  'address', 'article', 'aside', 'base', 'basefont', 'blockquote', 'body', 'caption', 'center', 'col',
  'colgroup', 'dd', 'details', 'dialog', 'dir', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'frame', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header', 'hr',
  'html', 'iframe', 'legend', 'li', 'link', 'main', 'menu', 'menuitem', 'nav', 'noframes', 'ol',
  'optgroup', 'option', 'p', 'param', 'search', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot',
  'th', 'thead', 'title', 'tr', 'track', 'ul',
]);

export const enum HtmlKind {
  None = 0,
  Raw = 1,
  Comment = 2,
  Instruction = 3,
  Declaration = 4,
  Cdata = 5,
  Basic = 6,
  Complete = 7,
}

/** States of micromark's html-flow end-condition machine, per line. */
export const enum HtmlEnd {
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

export interface HtmlOpening {
  kind: HtmlKind;
  /** For kinds 1-5: the end condition is already met on the opening line. */
  closesOnOpeningLine: boolean;
}

const NO_HTML: HtmlOpening = { kind: HtmlKind.None, closesOnOpeningLine: false };

/**
 * micromark html-flow opening at `start` (a `<`) on the line ending at
 * `end`. In interrupt mode (a paragraph is open), kind 7 only starts on a
 * lazy line.
 */
export function htmlOpening(body: string, start: number, end: number, interrupt: boolean, lazy: boolean): HtmlOpening {
  let at = start + 1;
  const code = at < end ? body.charCodeAt(at) : -1;
  if (code === BANG) {
    at++;
    const next = at < end ? body.charCodeAt(at) : -1;
    if (next === DASH) {
      at++;
      if (at < end && body.charCodeAt(at) === DASH) {
        return opened(HtmlKind.Comment, htmlLineCloses(body, at + 1, end, HtmlEnd.DeclarationInside, HtmlKind.Comment));
      }
      return NO_HTML;
    }
    if (next === LBRACKET) {
      const cdata = 'CDATA[';
      for (let index = 0; index < cdata.length; index++) {
        at++;
        if (at >= end || body.charCodeAt(at) !== cdata.charCodeAt(index)) return NO_HTML;
      }
      return opened(HtmlKind.Cdata, htmlLineCloses(body, at + 1, end, HtmlEnd.Continuation, HtmlKind.Cdata));
    }
    if (isAsciiAlpha(next)) {
      return opened(HtmlKind.Declaration, htmlLineCloses(body, at + 1, end, HtmlEnd.DeclarationInside, HtmlKind.Declaration));
    }
    return NO_HTML;
  }
  if (code === QUESTION) {
    return opened(HtmlKind.Instruction, htmlLineCloses(body, at + 1, end, HtmlEnd.DeclarationInside, HtmlKind.Instruction));
  }
  let closing = false;
  if (code === SLASH) {
    closing = true;
    at++;
  }
  const nameStart = at;
  if (at >= end || !isAsciiAlpha(body.charCodeAt(at))) return NO_HTML;
  at++;
  while (at < end) {
    const c = body.charCodeAt(at);
    if (c === DASH || isAsciiAlphanumeric(c)) at++;
    else break;
  }
  const terminator = at < end ? body.charCodeAt(at) : -1;
  if (!(terminator === -1 || terminator === SLASH || terminator === GT || terminator === SPACE || terminator === TAB)) return NO_HTML;
  // Tag names longer than any known name cannot match; do not copy them.
  const name = at - nameStart <= 10 ? body.slice(nameStart, at).toLowerCase() : '';
  if (terminator !== SLASH && !closing && HTML_RAW_NAMES.includes(name)) {
    return opened(HtmlKind.Raw, htmlLineCloses(body, at, end, HtmlEnd.Continuation, HtmlKind.Raw));
  }
  if (HTML_BLOCK_NAMES.has(name)) {
    if (terminator === SLASH) {
      if (at + 1 < end && body.charCodeAt(at + 1) === GT) return opened(HtmlKind.Basic, false);
      return NO_HTML;
    }
    return opened(HtmlKind.Basic, false);
  }
  if (interrupt && !lazy) return NO_HTML;
  return completeTag(body, at, end, closing) ? opened(HtmlKind.Complete, false) : NO_HTML;
}

function opened(kind: HtmlKind, closesOnOpeningLine: boolean): HtmlOpening {
  return { kind, closesOnOpeningLine };
}

/** micromark's condition-7 tag: the whole tag, then only spaces/tabs, on this line. */
function completeTag(body: string, at: number, end: number, closing: boolean): boolean {
  if (closing) {
    while (isSpaceOrTab(codeAt(body, at, end))) at++;
  } else {
    let state = Attr.NameBefore;
    let quote = 0;
    attributes: for (;;) {
      const c = codeAt(body, at, end);
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
  if (codeAt(body, at, end) !== GT) return false;
  at++;
  while (at < end) {
    const c = body.charCodeAt(at);
    if (c !== SPACE && c !== TAB) return false;
    at++;
  }
  return true;
}

/** Runs the end-condition machine over the line from `from` to `end`; true when the block closes here. */
export function htmlLineCloses(body: string, from: number, end: number, initial: HtmlEnd, kind: HtmlKind): boolean {
  let state = initial;
  let rawName = '';
  for (let at = from; at < end; at++) {
    let code = body.charCodeAt(at);
    // A state that does not take `code` hands it to Continuation (micromark's `return continuation(code)`).
    switch (state) {
      case HtmlEnd.CommentInside:
      case HtmlEnd.CdataInside:
        // `--` of a comment's `-->`, or `]]` of a CDATA's `]]>`: the `>` may come next.
        if (code === (state === HtmlEnd.CommentInside ? DASH : RBRACKET)) {
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
