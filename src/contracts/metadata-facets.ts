import { normalizeFacetPath, posixDirname } from './paths';
import { jsString, normalizeSlug } from './slug';
import type { Frontmatter } from './types';

export const METADATA_FACETS_SCHEMA = 'knowtation.metadata_facets/v0';

/** Properties in serialized key order. */
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

export const METADATA_FACET_MAX_VALUES = 100;
export const METADATA_FACET_MAX_VALUE_CHARS = 256;

/**
 * MetadataFacets v0 from the seven allowlisted frontmatter keys and the path.
 * It is not given the body, and no other key is looked at; every value is
 * slugged or capped, and `truncated` records any cap that was hit.
 */
export function buildMetadataFacets(path: string, frontmatter: Frontmatter): MetadataFacets {
  const safePath = normalizeFacetPath(path);
  const fm =
    frontmatter !== null && typeof frontmatter === 'object' && !Array.isArray(frontmatter) ? frontmatter : {};
  let truncated = false;

  const capScalar = (value: string): string => {
    if (value.length <= METADATA_FACET_MAX_VALUE_CHARS) return value;
    truncated = true;
    return value.slice(0, METADATA_FACET_MAX_VALUE_CHARS);
  };
  const capSlug = (value: string): string => capScalar(normalizeSlug(value)).replace(/-+$/g, '');
  const slugOrNull = (value: unknown): string | null => (value != null ? capSlug(jsString(value)) || null : null);
  const slugArray = (value: unknown): string[] => {
    if (value == null) return [];
    const raw: unknown[] = Array.isArray(value) ? value : jsString(value).split(',').map((item) => item.trim());
    if (raw.length > METADATA_FACET_MAX_VALUES) truncated = true;
    const out: string[] = [];
    for (const entry of raw.slice(0, METADATA_FACET_MAX_VALUES)) {
      const slug = capSlug(jsString(entry));
      if (slug) out.push(slug);
    }
    return out;
  };
  const scalarOrNull = (value: unknown): string | null =>
    value != null ? capScalar(value instanceof Date ? value.toISOString() : jsString(value)) : null;

  const projectSlug = fm.project != null ? normalizeSlug(jsString(fm.project)) : inferProjectSlug(safePath);
  const folder = posixDirname(safePath);

  return {
    schema: METADATA_FACETS_SCHEMA,
    path: safePath,
    facets: {
      project: projectSlug ? capSlug(projectSlug) || null : null,
      tags: slugArray(fm.tags),
      date: scalarOrNull(fm.date),
      updated: scalarOrNull(fm.updated),
      causal_chain_id: slugOrNull(fm.causal_chain_id),
      entity: slugArray(fm.entity),
      episode_id: slugOrNull(fm.episode_id),
    },
    inferred: { folder: folder === '.' ? null : folder, source_type: null },
    truncated,
  };
}

function inferProjectSlug(path: string): string {
  const match = /^projects\/([^/]+)/.exec(path);
  return match ? normalizeSlug(match[1]) : '';
}
