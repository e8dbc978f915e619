/**
 * Exact serialized sizes, computed before a payload is built or serialized.
 *
 * Every function here returns the UTF-8 byte length of `JSON.stringify` of
 * the payload the matching builder would produce, without producing it. The
 * heading-based sizes are derived from the NoteOutline alone (plus the
 * body_available bits for SectionSource): each heading text is measured
 * once, and the SectionSource ancestor repetition (`heading_path`) is a
 * running sum over the level stack, so the cost is linear in the outline
 * even when the payload would be quadratic. test/unit/payload-size.test.ts
 * holds each function equal to Buffer.byteLength(JSON.stringify(payload)).
 */
import { normalizeTreePath } from './paths';
import { SECTION_KEYS } from './schemas';
import { normalizeSlug } from './slug';
import {
  DOCUMENT_TREE_SCHEMA,
  SECTION_SOURCE_SCHEMA,
  type NoteOutline,
} from './types';

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
function objectOverhead(keys: readonly string[]): number {
  return 2 + keys.reduce((sum, key) => sum + key.length + 3, 0) + (keys.length - 1);
}

const arrayBytes = (itemBytes: number, count: number): number => 2 + itemBytes + Math.max(0, count - 1);
const boolBytes = (value: boolean): number => (value ? 4 : 5);
const nullableStringBytes = (value: string | null): number => (value === null ? 4 : jsonStringBytes(value));

const OUTLINE_OVERHEAD = objectOverhead(['schema', 'path', 'title', 'headings', 'truncated']);
const OUTLINE_HEADING_OVERHEAD = objectOverhead(['level', 'text', 'id']);
const TREE_OVERHEAD = objectOverhead(['schema', 'path', 'title', 'root', 'truncated']);
const TREE_ROOT_OVERHEAD = objectOverhead(['children']);
const TREE_NODE_OVERHEAD = objectOverhead(['id', 'level', 'text', 'children']);
const SECTIONS_OVERHEAD = objectOverhead(['schema', 'path', 'title', 'sections', 'truncated']);
const SECTION_OVERHEAD = objectOverhead(SECTION_KEYS);
/** `"body_returned":false` and `"snippet_returned":false` values. */
const SECTION_FIXED_FALSES = 5 + 5;

/**
 * The tree shape treeFromOutline builds, as indices: a heading's parent is
 * the nearest earlier open heading of a shallower level (the same level
 * stack), -1 for a root.
 */
interface OutlineMeasure {
  parent: Int32Array;
  childCount: Int32Array;
  rootCount: number;
  textBytes: Float64Array;
  idBytes: Float64Array;
  levelBytes: Float64Array;
}

function measureOutline(outline: NoteOutline): OutlineMeasure {
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

/** Byte length of JSON.stringify(outline). */
export function noteOutlineBytes(outline: NoteOutline): number {
  let headings = 0;
  for (const heading of outline.headings) {
    headings +=
      OUTLINE_HEADING_OVERHEAD + String(heading.level).length + jsonStringBytes(heading.text) + jsonStringBytes(heading.id);
  }
  return (
    OUTLINE_OVERHEAD +
    jsonStringBytes(outline.schema) +
    jsonStringBytes(outline.path) +
    nullableStringBytes(outline.title) +
    arrayBytes(headings, outline.headings.length) +
    boolBytes(outline.truncated)
  );
}

/** Byte length of JSON.stringify(treeFromOutline(outline)). */
export function documentTreeBytes(outline: NoteOutline): number {
  const measure = measureOutline(outline);
  let nodes = 0;
  for (let i = 0; i < outline.headings.length; i += 1) {
    // Each node: fixed keys, id, level, text, and its children array's brackets and separating commas.
    nodes +=
      TREE_NODE_OVERHEAD +
      measure.idBytes[i] +
      measure.levelBytes[i] +
      measure.textBytes[i] +
      arrayBytes(0, measure.childCount[i]);
  }
  const title = outline.title == null ? null : String(outline.title);
  return (
    TREE_OVERHEAD +
    jsonStringBytes(DOCUMENT_TREE_SCHEMA) +
    jsonStringBytes(normalizeTreePath(outline.path)) +
    nullableStringBytes(title) +
    TREE_ROOT_OVERHEAD +
    arrayBytes(nodes, measure.rootCount) +
    boolBytes(outline.truncated)
  );
}

/**
 * Byte length of JSON.stringify(sectionSourceFromStructure(...)) for the
 * note whose outline is given; `bodyAvailable(i)` is section i's bit.
 */
export function sectionSourceBytes(outline: NoteOutline, bodyAvailable: (index: number) => boolean): number {
  const measure = measureOutline(outline);
  const count = outline.headings.length;
  const treePath = normalizeTreePath(outline.path);
  const slugBytes = jsonStringBytes(normalizeSlug(treePath) || 'note');
  // section_id = `${pathSlug}:${heading id}`: both parts are ASCII, so their bytes add (one pair of quotes, plus ':').
  const sectionIdBytes = (index: number): number => slugBytes + measure.idBytes[index] - 1;

  const pathTextBytes = new Float64Array(count);
  const depth = new Int32Array(count);
  const childIdBytes = new Float64Array(count);
  let sections = 0;
  for (let i = 0; i < count; i += 1) {
    const parent = measure.parent[i];
    // Parents precede their children in outline order, so their sums are final here.
    pathTextBytes[i] = (parent < 0 ? 0 : pathTextBytes[parent]) + measure.textBytes[i];
    depth[i] = (parent < 0 ? 0 : depth[parent]) + 1;
    if (parent >= 0) childIdBytes[parent] += sectionIdBytes(i);
  }
  for (let i = 0; i < count; i += 1) {
    sections +=
      SECTION_OVERHEAD +
      sectionIdBytes(i) +
      measure.idBytes[i] +
      measure.levelBytes[i] +
      arrayBytes(pathTextBytes[i], depth[i]) +
      measure.textBytes[i] +
      arrayBytes(childIdBytes[i], measure.childCount[i]) +
      boolBytes(bodyAvailable(i)) +
      SECTION_FIXED_FALSES;
  }
  const title = outline.title == null ? null : String(outline.title);
  return (
    SECTIONS_OVERHEAD +
    jsonStringBytes(SECTION_SOURCE_SCHEMA) +
    jsonStringBytes(treePath) +
    nullableStringBytes(title) +
    arrayBytes(sections, count) +
    boolBytes(outline.truncated)
  );
}
