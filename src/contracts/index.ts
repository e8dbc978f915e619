/**
 * The pure core: the contract registry (every payload is built through
 * buildContract), the wire-frontmatter decoder and the path rules. Nothing
 * here does I/O, reads env or a clock; the only errors thrown are
 * ContractError values.
 */
export { decodeWireFrontmatter } from './frontmatter';
export { normalizeHostedPath, normalizeOutlinePath, normalizeTreePath, normalizeFacetPath } from './paths';
export { normalizeSlug } from './slug';
export {
  buildAllContracts,
  buildContract,
  conformsToOutputSchema,
  contractForTool,
  contractNamed,
  linearAnalyzer,
  structureAnalyzer,
  CONTRACT_NAMES,
  MAX_PAYLOAD_BYTES,
  type ColumnsAnalyzer,
  type ContractName,
  type ContractPayload,
  type ContractSpec,
  type PayloadOf,
} from './registry';
export type { Outline, OutlineHeading, TreeNode } from './outline';
export { jsonStringBytes, jsonValueBytes } from './payload-size';
export { ContractError, type ContractErrorKind } from './errors';
export { MAX_NOTE_HEADINGS } from './outline';
export { MAX_NOTE_INPUT_CHARS, type NoteStructure, type HeadingInfo, type BlockInfo } from '@knowtation/note-structure';
export * from './types';
