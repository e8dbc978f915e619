/**
 * Flat buffers for the inline pass: a growable Int32Array (its struct-of-arrays state) and
 * strings built from UTF-16 code-unit buffers.
 *
 * Invariant: fromCodeUnits(units, n) is the string of units[0, n), lone surrogates included.
 * Linear bound: push is amortized O(1) (capacity doubles); fromCodeUnits is O(n), in chunks
 * of 4096 units so no call exceeds engine argument limits.
 */

/** A growable Int32Array (doubling), for the pass's struct-of-arrays state. */
export class Ints {
  data = new Int32Array(16);
  length = 0;
  push(value: number): number {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length] = value;
    return this.length++;
  }
}

/** The string of units[0, length), built in chunks (no argument-count limits). */
export function fromCodeUnits(units: Uint16Array, length: number): string {
  const chunks: string[] = [];
  for (let k = 0; k < length; k += 4096) {
    chunks.push(String.fromCharCode.apply(null, units.subarray(k, Math.min(length, k + 4096)) as unknown as number[]));
  }
  return chunks.join('');
}
