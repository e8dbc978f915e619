/**
 * The builders behind every answer, with the output bound: no payload whose
 * serialization exceeds MAX_PAYLOAD_BYTES is ever built. The size is
 * computed exactly from the outline first (payload-size.ts); a note over the
 * bound is refused with ContractError('NoteTooComplex'), and a note within
 * it gets exactly the payload its plain builder gives (same bytes).
 */
import { ContractError } from './errors';
import { analyzeNoteColumns } from './analysis/analyze';
import { MAX_NOTE_HEADINGS } from './analysis/structure';
import { buildMetadataFacets } from './metadata-facets';
import { outlineFromColumns } from './note-outline';
import { treeFromOutline } from './document-tree';
import { normalizeOutlinePath } from './paths';
import { documentTreeBytes, jsonValueBytes, noteOutlineBytes, sectionSourceBytes } from './payload-size';
import { bodyAvailability, sectionSourceFromOutline } from './section-source';
import type { ContractPayload, Frontmatter } from './types';

/** 4 MiB: the largest serialized payload any route or tool answers with. */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

export type BoundedContractName = 'note_outline' | 'document_tree' | 'metadata_facets' | 'section_source';

function refuseOver(bytes: number, maxBytes: number): void {
  if (bytes > maxBytes) throw new ContractError('NoteTooComplex');
}

export function buildContractWithinBound(
  contract: BoundedContractName,
  path: string,
  frontmatter: Frontmatter,
  body: string,
  maxBytes: number = MAX_PAYLOAD_BYTES,
): ContractPayload {
  if (contract === 'metadata_facets') {
    // Facets never read the body and every value is capped, so the payload is small by construction; measure it anyway.
    const facets = buildMetadataFacets(path, frontmatter, body);
    refuseOver(jsonValueBytes(facets), maxBytes);
    return facets;
  }
  normalizeOutlinePath(path);
  const structure = analyzeNoteColumns(body, MAX_NOTE_HEADINGS);
  const outline = outlineFromColumns(path, frontmatter, structure);
  switch (contract) {
    case 'note_outline':
      refuseOver(noteOutlineBytes(outline), maxBytes);
      return outline;
    case 'document_tree':
      refuseOver(documentTreeBytes(outline), maxBytes);
      return treeFromOutline(outline);
    case 'section_source': {
      const bodyAvailable = bodyAvailability(structure);
      refuseOver(sectionSourceBytes(outline, bodyAvailable), maxBytes);
      return sectionSourceFromOutline(outline, bodyAvailable);
    }
  }
}
