/**
 * Strings built from UTF-16 code-unit buffers, for the inline pass and label normalization.
 *
 * Invariant: fromCodeUnits(units, n) is the string of units[0, n), lone surrogates and a
 * leading U+FEFF included. Linear bound: O(n): one scan that classifies the units, then one
 * decode (utf16-units.ts).
 */
import { unitsToString } from './utf16-units';

/** The string of units[0, length). */
export function fromCodeUnits(units: Uint16Array, length: number): string {
  let bits = 0;
  for (let k = 0; k < length; k++) {
    const unit = units[k] as number;
    if ((unit & 0xf800) === 0xd800) return unitsToString(units, 0, length, 'any');
    bits |= unit;
  }
  return unitsToString(units, 0, length, bits < 0x80 ? 'ascii' : 'well-formed');
}
