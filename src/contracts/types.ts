/**
 * Payload shapes of the four body-free contracts. Property order in these
 * interfaces is the serialized key order the reference emits; the builders
 * construct object literals in exactly this order.
 */
export type Frontmatter = Record<string, unknown>;

export const NOTE_OUTLINE_SCHEMA = 'knowtation.note_outline/v1';
export const DOCUMENT_TREE_SCHEMA = 'knowtation.document_tree/v0';
export const METADATA_FACETS_SCHEMA = 'knowtation.metadata_facets/v0';
export const SECTION_SOURCE_SCHEMA = 'knowtation.section_source/v0';

export interface OutlineHeading {
  level: number;
  text: string;
  id: string;
}

export interface NoteOutline {
  schema: typeof NOTE_OUTLINE_SCHEMA;
  path: string;
  title: string | null;
  headings: OutlineHeading[];
  truncated: boolean;
}

export interface TreeNode {
  id: string;
  level: number;
  text: string;
  children: TreeNode[];
}

export interface DocumentTree {
  schema: typeof DOCUMENT_TREE_SCHEMA;
  path: string;
  title: string | null;
  root: { children: TreeNode[] };
  truncated: boolean;
}

export interface MetadataFacets {
  schema: typeof METADATA_FACETS_SCHEMA;
  path: string;
  facets: {
    project: string | null;
    tags: string[];
    date: string | null;
    updated: string | null;
    causal_chain_id: string | null;
    entity: string[];
    episode_id: string | null;
  };
  inferred: { folder: string | null; source_type: null };
  truncated: boolean;
}

export interface Section {
  section_id: string;
  heading_id: string;
  level: number;
  heading_path: string[];
  heading_text: string;
  child_section_ids: string[];
  body_available: boolean;
  body_returned: false;
  snippet_returned: false;
}

export interface SectionSource {
  schema: typeof SECTION_SOURCE_SCHEMA;
  path: string;
  title: string | null;
  sections: Section[];
  truncated: boolean;
}

export type ContractPayload = NoteOutline | DocumentTree | MetadataFacets | SectionSource;
