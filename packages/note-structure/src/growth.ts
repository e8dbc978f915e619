/**
 * The analysis's one way to grow a typed array: `grown` copies an array into a longer one of its
 * kind; `widened` sizes that by doubling; `grownLength` sizes a record stream of the inline pass
 * from its records so far, capped by a bound on what the rest of the source can still record.
 *
 * Invariant: a grown array holds the old array's values at the same indices, then zeros.
 * Linear bound: a copy is O(new length). An array that only ever grows by `widened` at least
 * doubles each time, so its copies cost O(final length) in all; a record stream grown by
 * `grownLength` at least doubles until it reaches its cap, after which it never grows again.
 */

type GrowableArray = Int32Array | Uint16Array | Uint8Array;

/** `array` copied into a new array of its kind, `length` long (at least `array.length`). */
export function grown<T extends GrowableArray>(array: T, length: number): T {
  const larger = new (array.constructor as new (length: number) => T)(length);
  larger.set(array);
  return larger;
}

/** `array` copied into one at least twice as long (at least 16) and at least `needed` long. */
export function widened<T extends GrowableArray>(array: T, needed: number): T {
  let capacity = Math.max(16, 2 * array.length);
  while (capacity < needed) capacity *= 2;
  return grown(array, capacity);
}

/**
 * The length (ints) a stream of `stride`-int records grows to when the one at `at` does not fit,
 * written at `position` of an `n`-char source: the records so far projected over the whole
 * source plus an eighth, at least twice `at`, and never past `cap`, an upper bound on the ints
 * the pass can write to it in all (one scan of the rest of the source at the stream's first
 * growth: each stream module's bound). On a source whose records are spread evenly it allocates
 * about the need, where the bound alone can be 3-4x the need.
 */
export function grownLength(at: number, stride: number, position: number, n: number, cap: number): number {
  const projected = Math.ceil(((at / stride) * n * 1.125) / Math.max(position, 1)) * stride;
  return Math.max(at + stride, Math.min(cap, Math.max(2 * at, projected)));
}
