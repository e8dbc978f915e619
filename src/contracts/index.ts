/**
 * The pure core: four body-free contract builders, the wire-frontmatter
 * decoder and the path rules. Nothing here does I/O, reads env or a clock;
 * the only errors thrown are ContractError values.
 */
export { buildNoteOutline } from './note-outline';
export { buildDocumentTree } from './document-tree';
export { buildMetadataFacets } from './metadata-facets';
export { buildSectionSource } from './section-source';
export { decodeWireFrontmatter } from './frontmatter';
export { normalizeHostedPath, normalizeOutlinePath, normalizeTreePath, normalizeFacetPath } from './paths';
export { normalizeSlug } from './slug';
export { buildContractWithinBound, MAX_PAYLOAD_BYTES } from './bounded';
export { jsonStringBytes, jsonValueBytes, noteOutlineBytes, documentTreeBytes, sectionSourceBytes } from './payload-size';
export { ContractError, type ContractErrorKind } from './errors';
export { MAX_NOTE_INPUT_CHARS, MAX_NOTE_HEADINGS, type NoteStructure, type HeadingInfo, type BlockInfo } from './analysis/structure';
export * from './types';

import { buildNoteOutline } from './note-outline';
import { buildDocumentTree } from './document-tree';
import { buildMetadataFacets } from './metadata-facets';
import { buildSectionSource } from './section-source';
import type { ContractPayload, Frontmatter } from './types';

/** The four contracts by their public name; REST routes and MCP tools are both keyed off this table. */
export const CONTRACTS = {
  note_outline: buildNoteOutline,
  document_tree: buildDocumentTree,
  metadata_facets: buildMetadataFacets,
  section_source: buildSectionSource,
} as const satisfies Record<string, (path: string, frontmatter: Frontmatter, body: string) => ContractPayload>;

export type ContractName = keyof typeof CONTRACTS;
export const CONTRACT_NAMES = Object.keys(CONTRACTS) as ContractName[];
