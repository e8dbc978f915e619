/**
 * NoteOutline v1: the note's outline as it is, under its schema id.
 */
import type { Outline, OutlineHeading } from './outline';
import { arrayBytes, boolBytes, jsonStringBytes, nullableStringBytes, objectOverhead } from './payload-size';

export const NOTE_OUTLINE_SCHEMA = 'knowtation.note_outline/v1';

/** Properties in serialized key order. */
export interface NoteOutline {
  schema: typeof NOTE_OUTLINE_SCHEMA;
  path: string;
  title: string | null;
  headings: OutlineHeading[];
  truncated: boolean;
}

export function noteOutlineFromOutline(outline: Outline): NoteOutline {
  return {
    schema: NOTE_OUTLINE_SCHEMA,
    path: outline.path,
    title: outline.title,
    headings: outline.headings,
    truncated: outline.truncated,
  };
}

const OUTLINE_OVERHEAD = objectOverhead(['schema', 'path', 'title', 'headings', 'truncated']);
const OUTLINE_HEADING_OVERHEAD = objectOverhead(['level', 'text', 'id']);

/** Byte length of JSON.stringify(noteOutlineFromOutline(outline)). */
export function noteOutlineBytes(outline: Outline): number {
  let headings = 0;
  for (const heading of outline.headings) {
    headings +=
      OUTLINE_HEADING_OVERHEAD + String(heading.level).length + jsonStringBytes(heading.text) + jsonStringBytes(heading.id);
  }
  return (
    OUTLINE_OVERHEAD +
    jsonStringBytes(NOTE_OUTLINE_SCHEMA) +
    jsonStringBytes(outline.path) +
    nullableStringBytes(outline.title) +
    arrayBytes(headings, outline.headings.length) +
    boolBytes(outline.truncated)
  );
}
