/**
 * JSON Schemas (draft 2020-12 vocabulary) of the body-free payloads.
 * They are the MCP `outputSchema` of each tool and are mirrored in
 * openapi.yaml, so every object is closed (`additionalProperties: false`),
 * every key is required, and each constraint is one the builders guarantee:
 * a payload a builder returns always validates, and anything with an extra
 * key (for example a body, snippet or offset) never does. Each object's
 * `properties` are listed in the payload's key order
 * (test/src/contracts/key-order.test.ts holds that for every contract).
 *
 * Pure data: no runtime imports.
 */
/** Heading depth: ATX 1..6, Setext 1..2. */
const HEADING_LEVEL = { type: 'integer', minimum: 1, maximum: 6 } as const;

/**
 * `h<level>-<slug>-<NNNN>`: the slug is non-empty (fallback `heading`), has
 * no leading, trailing or doubled `-`; the ordinal is 0001..0500.
 */
const HEADING_ID = { type: 'string', pattern: '^h[1-6]-[a-z0-9]+(?:-[a-z0-9]+)*-[0-9]{4}$' } as const;

/** `<path slug or "note">:<heading id>`. */
const SECTION_ID = {
  type: 'string',
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*:h[1-6]-[a-z0-9]+(?:-[a-z0-9]+)*-[0-9]{4}$',
} as const;

/** Frontmatter title or cleaned file stem; null when both are empty. */
const TITLE = { type: ['string', 'null'] } as const;

/** At most 500 headings are ever returned. */
const MAX_HEADINGS = 500;
/** Levels strictly increase from a tree node to its children, so no chain of ancestors is longer than 6. */
const MAX_NESTING = 6;

/** A facet slug: normalized, capped at 256 characters, no trailing '-'. */
const FACET_SLUG = { type: 'string', minLength: 1, maxLength: 256, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' } as const;
const FACET_SLUG_OR_NULL = {
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 256,
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
} as const;
const FACET_SLUG_LIST = { type: 'array', maxItems: 100, items: FACET_SLUG } as const;
/** date / updated: the frontmatter value as a string (not slugged, not trimmed), capped at 256. */
const FACET_SCALAR_OR_NULL = { type: ['string', 'null'], maxLength: 256 } as const;

/** The keys of one SectionSource section, in wire order (the schema and the payload-size bound both use it). */
export const SECTION_KEYS = [
  'section_id',
  'heading_id',
  'level',
  'heading_path',
  'heading_text',
  'child_section_ids',
  'body_available',
  'body_returned',
  'snippet_returned',
] as const;

export const NOTE_OUTLINE_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['schema', 'path', 'title', 'headings', 'truncated'],
  properties: {
    schema: { type: 'string', const: 'knowtation.note_outline/v1' },
    // The outline rule drops empty segments without re-checking emptiness, so '' is possible (e.g. path '\').
    path: { type: 'string' },
    title: TITLE,
    headings: {
      type: 'array',
      maxItems: MAX_HEADINGS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['level', 'text', 'id'],
        properties: {
          level: HEADING_LEVEL,
          text: { type: 'string' },
          id: HEADING_ID,
        },
      },
    },
    truncated: { type: 'boolean' },
  },
} as const;

export const DOCUMENT_TREE_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['schema', 'path', 'title', 'root', 'truncated'],
  properties: {
    schema: { type: 'string', const: 'knowtation.document_tree/v0' },
    path: { type: 'string', minLength: 1 },
    title: TITLE,
    root: {
      type: 'object',
      additionalProperties: false,
      required: ['children'],
      properties: {
        children: { type: 'array', maxItems: MAX_HEADINGS, items: { $ref: '#/$defs/node' } },
      },
    },
    truncated: { type: 'boolean' },
  },
  $defs: {
    node: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'level', 'text', 'children'],
      properties: {
        id: HEADING_ID,
        level: HEADING_LEVEL,
        text: { type: 'string' },
        children: { type: 'array', maxItems: MAX_HEADINGS, items: { $ref: '#/$defs/node' } },
      },
    },
  },
} as const;

export const METADATA_FACETS_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['schema', 'path', 'facets', 'inferred', 'truncated'],
  properties: {
    schema: { type: 'string', const: 'knowtation.metadata_facets/v0' },
    path: { type: 'string', minLength: 1 },
    facets: {
      type: 'object',
      additionalProperties: false,
      required: ['project', 'tags', 'date', 'updated', 'causal_chain_id', 'entity', 'episode_id'],
      properties: {
        project: FACET_SLUG_OR_NULL,
        tags: FACET_SLUG_LIST,
        date: FACET_SCALAR_OR_NULL,
        updated: FACET_SCALAR_OR_NULL,
        causal_chain_id: FACET_SLUG_OR_NULL,
        entity: FACET_SLUG_LIST,
        episode_id: FACET_SLUG_OR_NULL,
      },
    },
    inferred: {
      type: 'object',
      additionalProperties: false,
      required: ['folder', 'source_type'],
      properties: {
        folder: { type: ['string', 'null'], minLength: 1 },
        source_type: { type: 'null' },
      },
    },
    truncated: { type: 'boolean' },
  },
} as const;

export const SECTION_SOURCE_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['schema', 'path', 'title', 'sections', 'truncated'],
  properties: {
    schema: { type: 'string', const: 'knowtation.section_source/v0' },
    path: { type: 'string', minLength: 1 },
    title: TITLE,
    sections: {
      type: 'array',
      maxItems: MAX_HEADINGS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: [...SECTION_KEYS],
        properties: {
          section_id: SECTION_ID,
          heading_id: HEADING_ID,
          level: HEADING_LEVEL,
          heading_path: { type: 'array', minItems: 1, maxItems: MAX_NESTING, items: { type: 'string' } },
          heading_text: { type: 'string' },
          child_section_ids: { type: 'array', maxItems: MAX_HEADINGS, items: SECTION_ID },
          body_available: { type: 'boolean' },
          body_returned: { type: 'boolean', const: false },
          snippet_returned: { type: 'boolean', const: false },
        },
      },
    },
    truncated: { type: 'boolean' },
  },
} as const;
