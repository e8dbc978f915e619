/**
 * The contract registry: each body-free contract declared once, with
 * everything the rest of the Worker derives from it (REST route, MCP tool,
 * ACL set, output schema, exact size, builder, the log's section count).
 * The router, REST, MCP, the ACL, the log, the OpenAPI checks, the bench
 * and the scripts read this table. A contract is named in src only here,
 * in its own module (payload type, schema id, builder, exact size) and in
 * its output schema (schemas.ts); test/src/contracts/contract-names.test.ts
 * holds that. A new contract is one entry here, those two and its tests.
 *
 * buildContract is the one way a payload is built, on the request path and
 * in the tests and bench, with the Markdown analyzer as a parameter. It
 * sizes the answer exactly before building it: an answer over the bound is
 * refused as ContractError('NoteTooComplex') and never built, and one within
 * it gets exactly the payload the contract's builder gives (same bytes).
 * Pure: no I/O, no env, no clock.
 */
import { conformsTo } from './output-conformance';
import { ContractError } from './errors';
import { MAX_NOTE_INPUT_CHARS, analyzeNoteColumns, columnsOf, type NoteStructure, type StructureColumns } from '@knowtation/note-structure';
import { MAX_NOTE_HEADINGS, outlineFromColumns, treeNodeCount, type Outline } from './outline';
import { normalizeOutlinePath } from './paths';
import { jsonValueBytes } from './payload-size';
import { NOTE_OUTLINE_SCHEMA, noteOutlineBytes, noteOutlineFromOutline, type NoteOutline } from './note-outline';
import { DOCUMENT_TREE_SCHEMA, documentTreeBytes, treeFromOutline, type DocumentTree } from './document-tree';
import { METADATA_FACETS_SCHEMA, buildMetadataFacets } from './metadata-facets';
import { SECTION_SOURCE_SCHEMA, bodyAvailability, sectionSourceBytes, sectionSourceFromOutline, type SectionSource } from './section-source';
import {
  DOCUMENT_TREE_JSON_SCHEMA,
  METADATA_FACETS_JSON_SCHEMA,
  NOTE_OUTLINE_JSON_SCHEMA,
  SECTION_SOURCE_JSON_SCHEMA,
} from './schemas';
import type { Frontmatter, PayloadBase } from './types';

/** 4 MiB: the largest serialized payload any route or tool answers with. */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

/** A Markdown analyzer: the note-structure engine on the request path; any analysis answering a NoteStructure in tests. */
export type ColumnsAnalyzer = (body: string, headingTextLimit: number) => StructureColumns;

/** What a metadata contract is assembled from: the note's path and decoded frontmatter, never its body. */
export interface NoteMetadata {
  path: string;
  frontmatter: Frontmatter;
}

/** A body-reading contract gets the body, its analysis and the outline built from that. */
export interface AnalyzedNote extends NoteMetadata {
  body: string;
  structure: StructureColumns;
  outline: Outline;
}

/** A payload with its exact serialized size (UTF-8 bytes of JSON.stringify), built only if it fits. */
export interface SizedPayload {
  bytes: number;
  build(): PayloadBase;
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
  /** The log line's `sections` for one of this contract's payloads; null for a contract without headings. */
  sectionCount(payload: PayloadBase): number | null;
  /** The Scooling smoke bridge's route, on the one contract the bridge serves (src/http/scooling.ts). */
  bridgeRoute?: string;
}

/** A contract whose payload depends on the Markdown body: it is assembled from the analysis. */
interface BodyContract extends ContractFacts {
  readsBody: true;
  assemble(note: AnalyzedNote): SizedPayload;
}

/** A contract of the path and frontmatter only: the body is neither analyzed nor handed to it. */
interface MetadataContract extends ContractFacts {
  readsBody: false;
  assemble(note: NoteMetadata): SizedPayload;
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
    sectionCount: (payload: NoteOutline) => payload.headings.length,
    bridgeRoute: '/scooling/note-outline/smoke',
    readsBody: true,
    assemble: ({ outline }) => ({ bytes: noteOutlineBytes(outline), build: () => noteOutlineFromOutline(outline) }),
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
    sectionCount: (payload: DocumentTree) => treeNodeCount(payload.root.children),
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
    sectionCount: () => null,
    readsBody: false,
    // Every facet value is capped, so the payload is small by construction; measured anyway.
    assemble: ({ path, frontmatter }) => {
      const facets = buildMetadataFacets(path, frontmatter);
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
    sectionCount: (payload: SectionSource) => payload.sections.length,
    readsBody: true,
    assemble: ({ structure, outline }) => {
      const bodyAvailable = bodyAvailability(structure);
      return { bytes: sectionSourceBytes(outline, bodyAvailable), build: () => sectionSourceFromOutline(outline, bodyAvailable) };
    },
  },
] as const satisfies readonly ContractSpec[];

type Contract = (typeof CONTRACTS)[number];
export type ContractName = Contract['name'];
/** The payload one contract builds. */
export type PayloadOf<N extends ContractName> = ReturnType<ReturnType<Extract<Contract, { name: N }>['assemble']>['build']>;
/** Any contract's payload. */
export type ContractPayload = PayloadOf<ContractName>;

export const CONTRACT_NAMES: readonly ContractName[] = CONTRACTS.map((spec) => spec.name);

const BY_NAME = new Map<string, ContractSpec>(CONTRACTS.map((spec) => [spec.name, spec]));
const BY_TOOL = new Map<string, ContractSpec>(CONTRACTS.map((spec) => [spec.tool, spec]));
const BY_SCHEMA_ID = new Map<string, ContractSpec>(CONTRACTS.map((spec) => [spec.schema, spec]));

export function contractNamed(name: ContractName): ContractSpec {
  return BY_NAME.get(name) as ContractSpec;
}

/** The one contract the Scooling smoke bridge serves, with its route. */
export const BRIDGED_CONTRACT = CONTRACTS.find((spec) => 'bridgeRoute' in spec) as ContractSpec & { bridgeRoute: string };

/** The contract an MCP tool name serves, or undefined. */
export function contractForTool(tool: string): ContractSpec | undefined {
  return BY_TOOL.get(tool);
}

/**
 * True when `payload` names a contract by its `schema` id and validates
 * against that contract's output JSON schema (closed objects: no key the
 * schema does not list).
 */
export function conformsToOutputSchema(payload: unknown): boolean {
  const schemaId = payload !== null && typeof payload === 'object' ? (payload as { schema?: unknown }).schema : undefined;
  const spec = typeof schemaId === 'string' ? BY_SCHEMA_ID.get(schemaId) : undefined;
  return spec !== undefined && conformsTo(spec.outputSchema as Record<string, unknown>, payload);
}

/** The request path's analyzer: the linear analysis, heading texts computed for the headings answered. */
export const linearAnalyzer: ColumnsAnalyzer = (body, headingTextLimit) => analyzeNoteColumns(body, headingTextLimit);

/** An analysis that answers a NoteStructure (analyzeNote, or one built by hand) as a ColumnsAnalyzer. */
export function structureAnalyzer(analyze: (body: string) => NoteStructure): ColumnsAnalyzer {
  return (body) => columnsOf(analyze(body));
}

export interface BuildOptions {
  analyze?: ColumnsAnalyzer;
  maxBytes?: number;
}

/** The payload of one contract for one note, within the output bound; throws ContractError only. */
export function buildContract<N extends ContractName>(
  contract: N,
  path: string,
  frontmatter: Frontmatter,
  body: string,
  options?: BuildOptions,
): PayloadOf<N>;
export function buildContract(
  contract: ContractSpec,
  path: string,
  frontmatter: Frontmatter,
  body: string,
  options?: BuildOptions,
): ContractPayload;
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
    // The engine refuses a body over its cap too; the contract refuses it first, as NoteTooLarge.
    if (body.length > MAX_NOTE_INPUT_CHARS) throw new ContractError('NoteTooLarge');
    const structure = analyze(body, MAX_NOTE_HEADINGS);
    sized = spec.assemble({ path, frontmatter, body, structure, outline: outlineFromColumns(path, frontmatter, structure) });
  } else {
    sized = spec.assemble({ path, frontmatter });
  }
  if (sized.bytes > maxBytes) throw new ContractError('NoteTooComplex');
  return sized.build() as ContractPayload;
}

/** Every contract's payload for one note, each built by buildContract (tests and the bench compare analyzers with it). */
export function buildAllContracts(
  path: string,
  frontmatter: Frontmatter,
  body: string,
  options: BuildOptions = {},
): { [N in ContractName]: PayloadOf<N> } {
  return Object.fromEntries(CONTRACT_NAMES.map((name) => [name, buildContract(name, path, frontmatter, body, options)])) as {
    [N in ContractName]: PayloadOf<N>;
  };
}
