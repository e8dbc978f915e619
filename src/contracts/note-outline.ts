import { normalizeOutlinePath, posixBasename } from './paths';
import { analyzeNoteColumns } from './analysis/analyze';
import { MAX_NOTE_HEADINGS, columnsOf, type NoteStructure, type StructureColumns } from './analysis/structure';
import { jsString, normalizeSlug } from './slug';
import { NOTE_OUTLINE_SCHEMA, type Frontmatter, type NoteOutline, type OutlineHeading } from './types';

/** Title: a non-blank frontmatter `title` (stringified, trimmed), else the cleaned file stem, else null. */
export function deriveTitle(frontmatter: unknown, normalizedPath: string): string | null {
  const fm =
    frontmatter !== null && typeof frontmatter === 'object' && !Array.isArray(frontmatter)
      ? (frontmatter as Frontmatter)
      : {};
  if (fm.title != null) {
    const title = jsString(fm.title).trim();
    if (title !== '') return title;
  }
  const stem = posixBasename(normalizedPath).replace(/\.(md|markdown)$/i, '');
  return stem.replace(/[-_]+/g, ' ').trim() || null;
}

/** `h<level>-<slug|heading>-<NNNN>`: the ordinal is global across levels, zero-padded to 4 digits. */
export function headingId(level: number, text: string, ordinal: number): string {
  return `h${level}-${normalizeSlug(text) || 'heading'}-${String(ordinal).padStart(4, '0')}`;
}

/** Outline from an analyzed body; the shared step for every body-reading contract. */
export function outlineFromStructure(path: string, frontmatter: Frontmatter, structure: NoteStructure): NoteOutline {
  return outlineFromColumns(path, frontmatter, columnsOf(structure));
}

/** outlineFromStructure over the columns (the request path's form). */
export function outlineFromColumns(path: string, frontmatter: Frontmatter, structure: StructureColumns): NoteOutline {
  const safePath = normalizeOutlinePath(path);
  const headings: OutlineHeading[] = new Array(Math.min(structure.headingCount, MAX_NOTE_HEADINGS));
  for (let index = 0; index < headings.length; index++) {
    const level = structure.headingLevel[index];
    const text = index < structure.headingTexts.length ? structure.headingTexts[index] : '';
    headings[index] = { level, text, id: headingId(level, text, index + 1) };
  }
  return {
    schema: NOTE_OUTLINE_SCHEMA,
    path: safePath,
    title: deriveTitle(frontmatter, safePath),
    headings,
    truncated: structure.headingCount > MAX_NOTE_HEADINGS,
  };
}

export function buildNoteOutline(path: string, frontmatter: Frontmatter, body: string): NoteOutline {
  normalizeOutlinePath(path);
  return outlineFromColumns(path, frontmatter, analyzeNoteColumns(body, MAX_NOTE_HEADINGS));
}
