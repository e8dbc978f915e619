/**
 * The one seam between the block scan and the inline pass: heading plain
 * text, paragraph substance, definition labels and NFC all come through
 * here. Invariant: each function returns exactly what the micromark oracle
 * (dev/oracle.ts) yields for the same inline content.
 * Linear bound: that of inline.ts and normalize-nfc.ts (O(input length)).
 */
export { inlinePlainText, inlineSubstantive, inlineText, normalizeLabel } from './inline';
export type { InlineText } from './inline-edits';
export { normalizeNfc } from './normalize-nfc';
