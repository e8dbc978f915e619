/**
 * micromark's autolink (autolink.js) for the inline pass (inline.ts): `<scheme:...>` or
 * `<local@domain>`, over the prepared inline source.
 *
 * Invariant: scanAutolink only reads; it answers the index after the autolink's `>` or -1, exactly
 * where micromark 4.0.3 would accept one.
 * Linear bound: a scan reads at most until the first char it refuses (a `<` or a space ends every
 * autolink), and the pass skips an accepted one whole.
 */
import * as chars from './chars';

// Imported values are bound once, at load (see chars.ts).
const { AT, COLON, DASH, DOT, GT, LT, PLUS, SPACE, isAsciiAlpha, isAsciiAlphanumeric, isAsciiAtext, isAsciiControl } = chars;

/** An autolink `<scheme:...>` or `<local@domain>` at p (src[p] === '<'); the index after `>` or -1. */
export function scanAutolink(src: string, p: number): number {
  let i = p + 1;
  let c = src.charCodeAt(i);
  if (c === AT) return -1;
  if (isAsciiAlpha(c)) {
    i++;
    c = src.charCodeAt(i);
    if (c === PLUS || c === DASH || c === DOT || isAsciiAlphanumeric(c)) {
      let size = 1;
      for (;;) {
        c = src.charCodeAt(i);
        if (c === COLON) return scanAutolinkUrl(src, i + 1);
        if ((c === PLUS || c === DASH || c === DOT || isAsciiAlphanumeric(c)) && size++ < 32) {
          i++;
          continue;
        }
        break;
      }
    }
  }
  return scanAutolinkEmail(src, i);
}

function scanAutolinkUrl(src: string, i: number): number {
  for (;;) {
    const c = src.charCodeAt(i);
    if (c === GT) return i + 1;
    if (Number.isNaN(c) || c === SPACE || c === LT || isAsciiControl(c)) return -1;
    i++;
  }
}

function scanAutolinkEmail(src: string, i: number): number {
  for (;;) {
    const c = src.charCodeAt(i);
    if (c === AT) break;
    if (!isAsciiAtext(c)) return -1;
    i++;
  }
  i++;
  if (!isAsciiAlphanumeric(src.charCodeAt(i))) return -1;
  let size = 0;
  let afterDash = false;
  for (;;) {
    const c = src.charCodeAt(i);
    if (!afterDash) {
      if (c === DOT) {
        i++;
        size = 0;
        if (!isAsciiAlphanumeric(src.charCodeAt(i))) return -1;
        continue;
      }
      if (c === GT) return i + 1;
    }
    if ((c === DASH || isAsciiAlphanumeric(c)) && size++ < 63) {
      afterDash = c === DASH;
      i++;
      continue;
    }
    return -1;
  }
}
