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
export {
  buildAllContracts,
  buildContract,
  contractForTool,
  contractNamed,
  linearAnalyzer,
  structureAnalyzer,
  CONTRACT_NAMES,
  MAX_PAYLOAD_BYTES,
  type ColumnsAnalyzer,
  type ContractName,
  type ContractSpec,
} from './registry';
export { jsonStringBytes, jsonValueBytes, noteOutlineBytes, documentTreeBytes, sectionSourceBytes } from './payload-size';
export { ContractError, type ContractErrorKind } from './errors';
export { MAX_NOTE_INPUT_CHARS, MAX_NOTE_HEADINGS, type NoteStructure, type HeadingInfo, type BlockInfo } from './analysis/structure';
export * from './types';
