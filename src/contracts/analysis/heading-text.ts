/**
 * Heading text as the contracts publish it. Invariant: equal to the
 * oracle's normalizeHeadingText (NFC, every whitespace run folded to one
 * space, trimmed) but with an NFC that stays linear on long runs of
 * combining marks. Linear bound: O(text length).
 */
import { normalizeNfc } from './inline-engine';

export function normalizeHeadingText(raw: string): string {
  return normalizeNfc(raw).replace(/\s+/g, ' ').trim();
}
