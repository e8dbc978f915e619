/**
 * The analysis's one character vocabulary: every character code the scans name, every class of
 * characters they test, and the one table of inline trigger characters from which every inline
 * character set is derived. No other module of the analysis declares a character constant or a
 * character class.
 *
 * Invariant: every class here is exactly the one micromark 4.0.3 (or ECMAScript `\s`) uses. A
 * class test answers false for NaN (charCodeAt past the end) and for -1 (the scans' "no char").
 * Linear bound: O(1) per test; the tables are built once per isolate.
 *
 * Every module of the analysis binds the values it imports from the analysis once, at load
 * (`const { LF, ... } = chars`); classes, const enums and types are imported by name. Loaded as
 * separate ES modules (as the bench and the tests load them), an imported binding is read through
 * its module cell at every use, a call through one is not to a known function, and a `switch`
 * over imported case values compiles to loads and compares, where a module's own constants are
 * folded: about 20% of the inline pass on the pathological shapes. The values live here only.
 */
import { classifyCharacter } from 'micromark-util-classify-character';

export const NUL = 0;
export const TAB = 9;
export const LF = 10;
export const CR = 13;
export const SPACE = 32;
export const BANG = 33;
export const QUOTE = 34;
export const HASH = 35;
export const AMP = 38;
export const APOS = 39;
export const LPAREN = 40;
export const RPAREN = 41;
export const STAR = 42;
export const PLUS = 43;
export const DASH = 45;
export const DOT = 46;
export const SLASH = 47;
export const DIGIT_ZERO = 48;
export const DIGIT_ONE = 49;
export const COLON = 58;
export const SEMICOLON = 59;
export const LT = 60;
export const EQUALS = 61;
export const GT = 62;
export const QUESTION = 63;
export const AT = 64;
export const UPPER_X = 88;
export const LBRACKET = 91;
export const BACKSLASH = 92;
export const RBRACKET = 93;
export const UNDERSCORE = 95;
export const BACKTICK = 96;
export const LOWER_X = 120;
export const TILDE = 126;
export const DEL = 127;
/** The byte order mark (U+FEFF), dropped at the start of a note. */
export const BOM = 0xfeff;
/** U+FFFD REPLACEMENT CHARACTER: what micromark's preprocessing makes of a NUL. */
export const REPLACEMENT = 0xfffd;
/** The first code point at or above which a char can have a non-zero combining class (U+0300). */
export const FIRST_COMBINING = 0x300;
/** COMBINING GREEK YPOGEGRAMMENI (class 240, the highest) and COMBINING TILDE OVERLAY (class 1). */
export const HIGHEST_CLASS_MARK_CODE = 0x345;
export const LOWEST_CLASS_MARK_CODE = 0x334;

// ---------------------------------------------------------------- ASCII classes

const ALPHA = 1;
const DIGIT = 2;
/** micromark's asciiAtext: [#-'*+\--9=?A-Z^-~]. */
const ATEXT = 4;
/** CommonMark ASCII punctuation (the escapable chars). */
const PUNCTUATION = 8;
/** ASCII classes by table: one load and mask per test. */
const ASCII_CLASSES = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const upper = c >= 65 && c <= 90;
  const lower = c >= 97 && c <= 122;
  const digit = c >= DIGIT_ZERO && c <= 57;
  let bits = 0;
  if (upper || lower) bits |= ALPHA;
  if (digit) bits |= DIGIT;
  const atext = (c >= HASH && c <= APOS) || c === STAR || c === PLUS || (c >= DASH && c <= 57) || c === EQUALS || c === QUESTION;
  if (atext || upper || (c >= 94 && c <= TILDE)) bits |= ATEXT;
  const punctuation = (c >= BANG && c <= SLASH) || (c >= COLON && c <= AT) || (c >= LBRACKET && c <= BACKTICK);
  if (punctuation || (c >= 123 && c <= TILDE)) bits |= PUNCTUATION;
  ASCII_CLASSES[c] = bits;
}

function inAsciiClass(c: number, bits: number): boolean {
  return c < 128 && ((ASCII_CLASSES[c] as number) & bits) !== 0;
}

export function isDigit(code: number): boolean {
  return code >= DIGIT_ZERO && code <= 57;
}

export function isAsciiAlpha(code: number): boolean {
  return inAsciiClass(code, ALPHA);
}

export function isAsciiAlphanumeric(code: number): boolean {
  return inAsciiClass(code, ALPHA | DIGIT);
}

/** micromark's asciiAtext. */
export function isAsciiAtext(code: number): boolean {
  return inAsciiClass(code, ATEXT);
}

/** CommonMark ASCII punctuation (the escapable chars). */
export function isAsciiPunctuation(code: number): boolean {
  return inAsciiClass(code, PUNCTUATION);
}

/** ASCII a-z. */
export function isAsciiLower(code: number): boolean {
  return code >= 97 && code <= 122;
}

/** An ASCII lower-case letter's upper-case code. */
export function asciiUpper(lower: number): number {
  return lower - 32;
}

/** micromark's asciiControl: C0 controls and DEL. */
export function isAsciiControl(code: number): boolean {
  return code < SPACE || code === DEL;
}

/** markdownSpace: a space or a tab. */
export function isSpaceOrTab(code: number): boolean {
  return code === SPACE || code === TAB;
}

/** markdownLineEndingOrSpace: a space, a tab or a line ending. */
export function isSpaceOrEol(code: number): boolean {
  return code === SPACE || code === TAB || code === LF || code === CR;
}

/** ECMAScript WhiteSpace + LineTerminator: exactly what `\s` and String#trim use. */
export function isJsWhitespace(code: number): boolean {
  if (code <= SPACE) return code === SPACE || (code >= TAB && code <= CR);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * The code unit at `at` when it is before `end`, else -1 (the scans' "no char"). A module
 * function rather than a closure per call: under keepNames each closure costs a defineProperty.
 * `end` has no default, which keeps it under V8's small-function size (27 bytes of bytecode: it is
 * 22, and 41 with a default): parseDefinition's dozen calls are then inlined at once, leaving its
 * inlining budget to the destination scanner.
 */
export function codeAt(text: string, at: number, end: number): number {
  return at < end ? text.charCodeAt(at) : -1;
}

export function hasJsNonWhitespace(text: string, from = 0, to = text.length): boolean {
  for (let at = from; at < to; at++) if (!isJsWhitespace(text.charCodeAt(at))) return true;
  return false;
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** A high or a low surrogate (a code point in U+D800-U+DFFF). */
export function isSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdfff;
}

// ---------------------------------------------------------------- emphasis flanking

/** micromark's classifyCharacter: other (letters, digits, symbols...), whitespace, punctuation. */
export const FLANK_OTHER = 0;
export const FLANK_WHITESPACE = 1;
export const FLANK_PUNCTUATION = 2;
/** flankClass of each ASCII code unit (the emphasis scan reads it directly on its fast path). */
export const ASCII_FLANKS = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_FLANKS[c] = classifyCharacter(c) ?? FLANK_OTHER;

/** classifyCharacter over one UTF-16 code unit; -1 (the start or end of the source) is whitespace. */
export function flankClass(code: number): number {
  if (code >= 0 && code < 128) return ASCII_FLANKS[code] as number;
  if (code < 0) return FLANK_WHITESPACE;
  return classifyCharacter(code) ?? FLANK_OTHER;
}

// ---------------------------------------------------------------- inline syntax

/** The record streams of the inline pass (inline-items.ts, inline-delimiters.ts, inline-brackets.ts). */
export const ITEM_RECORD = 1;
export const RUN_RECORD = 2;
export const BRACKET_RECORD = 4;

interface InlineTrigger {
  code: number;
  /** The stream of the records the pass may write for a construct triggered here; 0: none of its own. */
  records: number;
  /** Its records change only whitespace (which heading text folds and the substance test ignores). */
  whitespaceOnly?: boolean;
}

/**
 * The one table of inline trigger characters: every char at which the inline pass (inline.ts)
 * may begin or end a construct, with the stream its records go to. An item is triggered by its
 * char at or after the item's start, never two by one char; a delimiter run by its first char;
 * a bracket by its `[`. Every other inline char set is derived from this table.
 */
const INLINE_TRIGGERS: readonly InlineTrigger[] = [
  // Spaces before a soft line ending (dropped), or a hard break of two spaces.
  { code: LF, records: ITEM_RECORD, whitespaceOnly: true },
  // An escape (its backslash dropped), or a hard break before a line ending.
  { code: BACKSLASH, records: ITEM_RECORD },
  { code: AMP, records: ITEM_RECORD },
  { code: BACKTICK, records: ITEM_RECORD },
  // An autolink or raw HTML.
  { code: LT, records: ITEM_RECORD },
  // The end of a link or an image, with its resource or reference.
  { code: RBRACKET, records: ITEM_RECORD },
  { code: STAR, records: RUN_RECORD },
  { code: UNDERSCORE, records: RUN_RECORD },
  { code: LBRACKET, records: BRACKET_RECORD },
  // `![`: an image opener, recorded (and counted) at its `[`.
  { code: BANG, records: 0 },
];

/**
 * Chars that sit in a non-value part of an inline construct (a link's resource, an autolink's
 * end, an HTML tag's attribute quotes) without beginning one.
 */
const CONSTRUCT_PARTS = [GT, LPAREN, RPAREN, QUOTE, APOS];

/** Per ASCII char: 1 where the inline pass stops to look for syntax (every trigger). */
export const PASS_TRIGGERS = new Uint8Array(128);
/** Per ASCII char: 1 where an item record can be triggered (the items stream's growth bound). */
export const ITEM_TRIGGERS = new Uint8Array(128);
/** Per ASCII char: 1 for a delimiter run's marker (the delimiter stream's growth bound). */
export const RUN_MARKERS = new Uint8Array(128);
const POSSIBLY_MARKUP = new Uint8Array(128);
for (const { code, records, whitespaceOnly } of INLINE_TRIGGERS) {
  PASS_TRIGGERS[code] = 1;
  if ((records & ITEM_RECORD) !== 0) ITEM_TRIGGERS[code] = 1;
  if ((records & RUN_RECORD) !== 0) RUN_MARKERS[code] = 1;
  if (!whitespaceOnly) POSSIBLY_MARKUP[code] = 1;
}
for (const code of CONSTRUCT_PARTS) POSSIBLY_MARKUP[code] = 1;

/** The chars whose every occurrence can push one bracket (the bracket stream's growth bound). */
export const BRACKET_OPENERS = INLINE_TRIGGERS.filter((trigger) => (trigger.records & BRACKET_RECORD) !== 0).map((trigger) =>
  String.fromCharCode(trigger.code),
);

/**
 * A char after which an inline source may read other than its lines as written beyond
 * whitespace: a trigger whose records change text, or NUL (micromark reads it as U+FFFD, which
 * the inline pass writes). A source without one needs no inline pass.
 */
export const INLINE_SYNTAX = new RegExp(
  `[${[...INLINE_TRIGGERS.filter((trigger) => trigger.records !== 0 && !trigger.whitespaceOnly).map((trigger) => trigger.code), NUL]
    .map((code) => `\\u${code.toString(16).padStart(4, '0')}`)
    .join('')}]`,
);

/**
 * Chars that can be markup or sit in a non-value part of an inline construct: the triggers that
 * are not whitespace, and the construct parts. A paragraph char outside this set (and outside
 * whitespace) before the first `](` / `][` lands in some text, code or alt value.
 */
export function isPossiblyMarkup(code: number): boolean {
  return code < 128 && POSSIBLY_MARKUP[code] === 1;
}
