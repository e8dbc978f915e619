/**
 * The one seam between the block scan and the inline pass: heading plain
 * text, paragraph substance, definition labels and NFC all come through
 * here. Invariant: each function returns exactly what the micromark oracle
 * (src/contracts/markdown.ts) yields for the same inline content.
 * Linear bound: that of inline.ts (O(source length)); NFC is still the
 * engine's String.prototype.normalize until normalize-nfc.ts lands.
 */
export { inlinePlainText, normalizeLabel } from './inline';

export function normalizeNfc(text: string): string {
  return text.normalize('NFC');
}
