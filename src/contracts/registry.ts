/**
 * The contract registry: each body-free contract declared once, with
 * everything the rest of the Worker derives from it (REST route, MCP tool,
 * ACL set, output schema, exact size, builder). The router, REST, MCP, the
 * ACL, the OpenAPI checks, the bench and the scripts read this table; a new
 * contract is one entry here, its builder and its tests.
 *
 * buildContract is the one way a payload is built, on the request path and
 * in the tests and bench, with the Markdown analyzer as a parameter. It
 * sizes the answer exactly before building it: an answer over the bound is
 * refused as ContractError('NoteTooComplex') and never built, and one within
 * it gets exactly the payload its plain builder gives (same bytes). Pure: no
 * I/O, no env, no clock.
 */
import { ContractError } from './errors';
import { analyzeNoteColumns } from './analysis/analyze';
import { MAX_NOTE_HEADINGS, columnsOf, type NoteStructure, type StructureColumns } from './analysis/structure';
import { buildMetadataFacets } from './metadata-facets';
import { outlineFromColumns } from './note-outline';
import { treeFromOutline } from './document-tree';
import { normalizeOutlinePath } from './paths';
import { documentTreeBytes, jsonValueBytes, noteOutlineBytes, sectionSourceBytes } from './payload-size';
import { bodyAvailability, sectionSourceFromOutline } from './section-source';
import {
  DOCUMENT_TREE_JSON_SCHEMA,
  METADATA_FACETS_JSON_SCHEMA,
  NOTE_OUTLINE_JSON_SCHEMA,
  SECTION_SOURCE_JSON_SCHEMA,
} from './schemas';
import {
  DOCUMENT_TREE_SCHEMA,
  METADATA_FACETS_SCHEMA,
  NOTE_OUTLINE_SCHEMA,
  SECTION_SOURCE_SCHEMA,
  type ContractPayload,
  type Frontmatter,
  type NoteOutline,
} from './types';

/** 4 MiB: the largest serialized payload any route or tool answers with. */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

/** A Markdown analyzer: the linear one on the request path, the micromark oracle in tests and the bench. */
export type ColumnsAnalyzer = (body: string, headingTextLimit: number) => StructureColumns;

/** What a contract is assembled from: the note as read. */
export interface Note {
  path: string;
  frontmatter: Frontmatter;
  body: string;
}

/** A body-reading contract also gets the body's analysis and the outline built from it. */
export interface AnalyzedNote extends Note {
  structure: StructureColumns;
  outline: NoteOutline;
}

/** A payload with its exact serialized size (UTF-8 bytes of JSON.stringify), built only if it fits. */
export interface SizedPayload {
  bytes: number;
  build(): ContractPayload;
}

interface ContractFacts {
  /** The contract's public name, the key of every table derived from this one. */
  name: string;
  /** The payload's `schema` string. */
  schema: string;
  /** The Hub REST route serving it. */
  route: string;
  /** The MCP tool serving it, and its entry in the role ACL. */
  tool: string;
  /** The ACL set that grants the tool (src/auth/acl.ts). */
  acl: 'read';
  title: string;
  description: string;
  /** The MCP outputSchema and openapi.yaml's payload schema. */
  outputSchema: object;
  /** The REST 503 text when the Worker is not configured. */
  unavailableMessage: string;
}

/** A contract whose payload depends on the Markdown body: it is assembled from the analysis. */
interface BodyContract extends ContractFacts {
  readsBody: true;
  assemble(note: AnalyzedNote): SizedPayload;
}

/** A contract of the path and frontmatter only: the body is never analyzed for it. */
interface MetadataContract extends ContractFacts {
  readsBody: false;
  assemble(note: Note): SizedPayload;
}

export type ContractSpec = BodyContract | MetadataContract;

export const CONTRACTS = [
  {
    name: 'note_outline',
    schema: NOTE_OUTLINE_SCHEMA,
    route: '/api/v1/note-outline',
    tool: 'get_note_outline',
    acl: 'read',
    title: 'Note outline',
    description: 'Return a derived Markdown heading outline for one hosted note without body text.',
    outputSchema: NOTE_OUTLINE_JSON_SCHEMA,
    unavailableMessage: 'Hosted NoteOutline is not configured',
    readsBody: true,
    assemble: ({ outline }) => ({ bytes: noteOutlineBytes(outline), build: () => outline }),
  },
  {
    name: 'document_tree',
    schema: DOCUMENT_TREE_SCHEMA,
    route: '/api/v1/document-tree',
    tool: 'get_document_tree',
    acl: 'read',
    title: 'Document tree',
    description: 'Return a derived nested Markdown heading tree for one hosted note without body text.',
    outputSchema: DOCUMENT_TREE_JSON_SCHEMA,
    unavailableMessage: 'Hosted DocumentTree is not configured',
    readsBody: true,
    assemble: ({ outline }) => ({ bytes: documentTreeBytes(outline), build: () => treeFromOutline(outline) }),
  },
  {
    name: 'metadata_facets',
    schema: METADATA_FACETS_SCHEMA,
    route: '/api/v1/metadata-facets',
    tool: 'get_metadata_facets',
    acl: 'read',
    title: 'Metadata facets',
    description: 'Return bounded body-free MetadataFacets v0 for one hosted note.',
    outputSchema: METADATA_FACETS_JSON_SCHEMA,
    unavailableMessage: 'Hosted MetadataFacets is not configured',
    readsBody: false,
    // Facets never read the body and every value is capped, so the payload is small by construction; measured anyway.
    assemble: ({ path, frontmatter, body }) => {
      const facets = buildMetadataFacets(path, frontmatter, body);
      return { bytes: jsonValueBytes(facets), build: () => facets };
    },
  },
  {
    name: 'section_source',
    schema: SECTION_SOURCE_SCHEMA,
    route: '/api/v1/section-source',
    tool: 'get_section_source',
    acl: 'read',
    title: 'Section source',
    description: 'Return body-free SectionSource v0 metadata for one hosted note.',
    outputSchema: SECTION_SOURCE_JSON_SCHEMA,
    unavailableMessage: 'Hosted SectionSource is not configured',
    readsBody: true,
    assemble: ({ structure, outline }) => {
      const bodyAvailable = bodyAvailability(structure);
      return { bytes: sectionSourceBytes(outline, bodyAvailable), build: () => sectionSourceFromOutline(outline, bodyAvailable) };
    },
  },
] as const satisfies readonly ContractSpec[];

export type ContractName = (typeof CONTRACTS)[number]['name'];
export const CONTRACT_NAMES: readonly ContractName[] = CONTRACTS.map((spec) => spec.name);

const BY_NAME = new Map<string, ContractSpec>(CONTRACTS.map((spec) => [spec.name, spec]));
const BY_TOOL = new Map<string, ContractSpec>(CONTRACTS.map((spec) => [spec.tool, spec]));

export function contractNamed(name: ContractName): ContractSpec {
  return BY_NAME.get(name) as ContractSpec;
}

/** The contract an MCP tool name serves, or undefined. */
export function contractForTool(tool: string): ContractSpec | undefined {
  return BY_TOOL.get(tool);
}

/** The request path's analyzer: the linear analysis, heading texts computed for the headings answered. */
export const linearAnalyzer: ColumnsAnalyzer = (body, headingTextLimit) => analyzeNoteColumns(body, headingTextLimit);

/** An analysis that answers a NoteStructure (the micromark oracle, analyzeNote) as a ColumnsAnalyzer. */
export function structureAnalyzer(analyze: (body: string) => NoteStructure): ColumnsAnalyzer {
  return (body) => columnsOf(analyze(body));
}

export interface BuildOptions {
  analyze?: ColumnsAnalyzer;
  maxBytes?: number;
}

/** The payload of one contract for one note, within the output bound; throws ContractError only. */
export function buildContract(
  contract: ContractSpec | ContractName,
  path: string,
  frontmatter: Frontmatter,
  body: string,
  { analyze = linearAnalyzer, maxBytes = MAX_PAYLOAD_BYTES }: BuildOptions = {},
): ContractPayload {
  const spec = typeof contract === 'string' ? contractNamed(contract) : contract;
  let sized: SizedPayload;
  if (spec.readsBody) {
    normalizeOutlinePath(path);
    const structure = analyze(body, MAX_NOTE_HEADINGS);
    sized = spec.assemble({ path, frontmatter, body, structure, outline: outlineFromColumns(path, frontmatter, structure) });
  } else {
    sized = spec.assemble({ path, frontmatter, body });
  }
  if (sized.bytes > maxBytes) throw new ContractError('NoteTooComplex');
  return sized.build();
}

/** Every contract's payload for one note, each built by buildContract (tests and the bench compare analyzers with it). */
export function buildAllContracts(
  path: string,
  frontmatter: Frontmatter,
  body: string,
  options: BuildOptions = {},
): Record<ContractName, ContractPayload> {
  return Object.fromEntries(CONTRACT_NAMES.map((name) => [name, buildContract(name, path, frontmatter, body, options)])) as Record<
    ContractName,
    ContractPayload
  >;
}
