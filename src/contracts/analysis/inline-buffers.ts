/**
 * Strings built from UTF-16 code-unit buffers, for the inline pass and label normalization.
 *
 * Invariant: fromCodeUnits(units, n) is the string of units[0, n), lone surrogates and a
 * leading U+FEFF included. Linear bound: O(n): one scan for surrogates, then one decoder call
 * (or, when a surrogate is present, String.fromCharCode in chunks of 4096 units so no call
 * exceeds engine argument limits).
 */

// ignoreBOM keeps a leading U+FEFF; without surrogates every unit is its own code point, so
// the decoder (which would replace a lone surrogate with U+FFFD) is exact.
const UTF16 = new TextDecoder('utf-16le', { fatal: false, ignoreBOM: true });

/** The string of units[0, length). */
export function fromCodeUnits(units: Uint16Array, length: number): string {
  const view = units.subarray(0, length);
  for (let k = 0; k < length; k++) {
    if (((view[k] as number) & 0xf800) === 0xd800) return fromCodeUnitsInChunks(view);
  }
  return UTF16.decode(view);
}

function fromCodeUnitsInChunks(units: Uint16Array): string {
  const chunks: string[] = [];
  for (let k = 0; k < units.length; k += 4096) {
    chunks.push(String.fromCharCode.apply(null, units.subarray(k, Math.min(units.length, k + 4096)) as unknown as number[]));
  }
  return chunks.join('');
}
