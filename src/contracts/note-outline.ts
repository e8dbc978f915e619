import { normalizeOutlinePath, posixBasename } from './paths';
import { analyzeNote } from './analysis/analyze';
import { MAX_NOTE_HEADINGS, type NoteStructure } from './analysis/structure';
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
  const safePath = normalizeOutlinePath(path);
  const visible = structure.headings.slice(0, MAX_NOTE_HEADINGS);
  const headings: OutlineHeading[] = visible.map(({ level, text }, index) => ({
    level,
    text,
    id: headingId(level, text, index + 1),
  }));
  return {
    schema: NOTE_OUTLINE_SCHEMA,
    path: safePath,
    title: deriveTitle(frontmatter, safePath),
    headings,
    truncated: structure.headings.length > MAX_NOTE_HEADINGS,
  };
}

export function buildNoteOutline(path: string, frontmatter: Frontmatter, body: string): NoteOutline {
  normalizeOutlinePath(path);
  return outlineFromStructure(path, frontmatter, analyzeNote(body, MAX_NOTE_HEADINGS));
}
