/**
 * The four contracts with the Markdown analyzer as a parameter, so one
 * process can run the reference pipeline and the fast one side by side
 * (bench, differential tests). Each step mirrors its builder: the same
 * path checks first, one analysis per body-reading contract, and the
 * builders' own assembly functions. Invariant: equal to CONTRACTS for the
 * same analyzer (test/unit/differential.test.ts). Linear bound: that of the analyzer.
 */
import type { NoteStructure } from './structure';
import { buildMetadataFacets } from '../metadata-facets';
import { outlineFromStructure } from '../note-outline';
import { treeFromOutline } from '../document-tree';
import { normalizeOutlinePath } from '../paths';
import { sectionSourceFromStructure } from '../section-source';
import type { DocumentTree, Frontmatter, MetadataFacets, NoteOutline, SectionSource } from '../types';

export type Analyzer = (body: string) => NoteStructure;

export interface ContractPayloads {
  note_outline: NoteOutline;
  document_tree: DocumentTree;
  metadata_facets: MetadataFacets;
  section_source: SectionSource;
}

export function runContractsWith(analyze: Analyzer, path: string, frontmatter: Frontmatter, body: string): ContractPayloads {
  return {
    note_outline: noteOutlineWith(analyze, path, frontmatter, body),
    document_tree: documentTreeWith(analyze, path, frontmatter, body),
    metadata_facets: buildMetadataFacets(path, frontmatter, body),
    section_source: sectionSourceWith(analyze, path, frontmatter, body),
  };
}

export function noteOutlineWith(analyze: Analyzer, path: string, frontmatter: Frontmatter, body: string): NoteOutline {
  normalizeOutlinePath(path);
  return outlineFromStructure(path, frontmatter, analyze(body));
}

export function documentTreeWith(analyze: Analyzer, path: string, frontmatter: Frontmatter, body: string): DocumentTree {
  normalizeOutlinePath(path);
  return treeFromOutline(outlineFromStructure(path, frontmatter, analyze(body)));
}

export function sectionSourceWith(analyze: Analyzer, path: string, frontmatter: Frontmatter, body: string): SectionSource {
  normalizeOutlinePath(path);
  return sectionSourceFromStructure(path, frontmatter, analyze(body));
}
