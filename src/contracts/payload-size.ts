/**
 * The parts every exact payload size is measured from, before a payload is
 * built or serialized: each function answers the UTF-8 byte length of
 * `JSON.stringify` of what it measures, without producing it. Each
 * contract's module sums these for its own payload; the heading-based sizes
 * start from measureOutline, which measures each heading text and id once.
 * test/src/payload-size.test.ts holds every contract's size equal to
 * Buffer.byteLength(JSON.stringify(payload)).
 */
import type { Outline } from './outline';

/** A code unit that JSON.stringify does not write as one byte: controls, `"`, `\`, DEL and above. */
const NOT_ONE_BYTE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

/** UTF-8 byte length of JSON.stringify(value) for a string: escapes as ES2019 well-formed JSON.stringify does. */
export function jsonStringBytes(value: string): number {
  // The printable-ASCII prefix is one byte per unit: found by the regex engine (about 3x the JS loop on
  // a long heading or id), then the loop goes on from the first other unit.
  const plain = value.search(NOT_ONE_BYTE);
  if (plain === -1) return value.length + 2;
  let bytes = 2 + plain;
  for (let i = plain; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    if (unit < 0x20) {
      // \b \t \n \f \r have two-character escapes; every other C0 control is \u00XX.
      bytes += unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d ? 2 : 6;
    } else if (unit === 0x22 || unit === 0x5c) {
      bytes += 2;
    } else if (unit < 0x80) {
      bytes += 1;
    } else if (unit < 0x800) {
      bytes += 2;
    } else if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i += 1;
      } else {
        bytes += 6; // lone high surrogate: \uXXXX
      }
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      bytes += 6; // lone low surrogate: \uXXXX
    } else {
      bytes += 3;
    }
  }
  return bytes;
}

/** Byte length of JSON.stringify(value) for plain JSON data (null, booleans, finite numbers, strings, arrays, plain objects). */
export function jsonValueBytes(value: unknown): number {
  if (value === null) return 4;
  switch (typeof value) {
    case 'boolean':
      return value ? 4 : 5;
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'string':
      return jsonStringBytes(value);
    case 'object': {
      if (Array.isArray(value)) {
        let bytes = 2 + Math.max(0, value.length - 1);
        for (const item of value) bytes += item === undefined || typeof item === 'function' ? 4 : jsonValueBytes(item);
        return bytes;
      }
      let bytes = 2;
      let fields = 0;
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        if (item === undefined || typeof item === 'function') continue;
        bytes += jsonStringBytes(key) + 1 + jsonValueBytes(item);
        fields += 1;
      }
      return bytes + Math.max(0, fields - 1);
    }
    default:
      // undefined, functions and symbols are not part of any payload.
      return 0;
  }
}

/** Bytes of an object's fixed parts: braces, `"key":` for each ASCII key, and the commas between fields. */
export function objectOverhead(keys: readonly string[]): number {
  return 2 + keys.reduce((sum, key) => sum + key.length + 3, 0) + (keys.length - 1);
}

/** An array of `count` items whose bytes sum to `itemBytes`: brackets and the commas between items. */
export const arrayBytes = (itemBytes: number, count: number): number => 2 + itemBytes + Math.max(0, count - 1);
export const boolBytes = (value: boolean): number => (value ? 4 : 5);
export const nullableStringBytes = (value: string | null): number => (value === null ? 4 : jsonStringBytes(value));

/**
 * The tree shape nestHeadings builds, as indices: a heading's parent is
 * the nearest earlier open heading of a shallower level (the same level
 * stack), -1 for a root.
 */
export interface OutlineMeasure {
  parent: Int32Array;
  childCount: Int32Array;
  rootCount: number;
  textBytes: Float64Array;
  idBytes: Float64Array;
  levelBytes: Float64Array;
}

export function measureOutline(outline: Outline): OutlineMeasure {
  const count = outline.headings.length;
  const measure: OutlineMeasure = {
    parent: new Int32Array(count),
    childCount: new Int32Array(count),
    rootCount: 0,
    textBytes: new Float64Array(count),
    idBytes: new Float64Array(count),
    levelBytes: new Float64Array(count),
  };
  const stack: number[] = [];
  outline.headings.forEach((heading, index) => {
    while (stack.length > 0 && outline.headings[stack[stack.length - 1]].level >= heading.level) stack.pop();
    const parent = stack.length > 0 ? stack[stack.length - 1] : -1;
    measure.parent[index] = parent;
    if (parent < 0) measure.rootCount += 1;
    else measure.childCount[parent] += 1;
    stack.push(index);
    measure.textBytes[index] = jsonStringBytes(heading.text);
    measure.idBytes[index] = jsonStringBytes(heading.id);
    measure.levelBytes[index] = String(heading.level).length;
  });
  return measure;
}
