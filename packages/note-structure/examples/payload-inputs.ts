/**
 * What a Node service (the Hub's gateway, for example) computes from a note's Markdown to build the
 * payloads the Worker builds: note_outline, document_tree and section_source take the first
 * 500 headings (level and text; the ids are the contracts' slugs of them), whether later headings
 * were cut, and, for section_source, whether each heading's section has a body; metadata_facets
 * takes the note's path and frontmatter only, so nothing here. Linear in the note (one analysis, one
 * stack pass, a binary search per heading). test/payload-inputs.test.ts holds it to the reference
 * payloads of the shared corpus.
 */
import { analyzeNote } from '@knowtation/note-structure';

/** The outline publishes the first 500 headings; later ones only set `truncated`. */
const MAX_HEADINGS = 500;

export interface PayloadInputs {
  headings: { level: number; text: string }[];
  truncated: boolean;
  bodyAvailable: boolean[];
}

export function payloadInputs(markdown: string): PayloadInputs {
  const { headings, blocks } = analyzeNote(markdown, MAX_HEADINGS);
  const starts = blocks.filter((block) => block.substantive).map((block) => block.start ?? 0);
  // A section's window runs from its heading's end to the next heading of the same or a shallower level.
  const windowEnd: number[] = new Array(headings.length);
  const open: number[] = [];
  for (let index = headings.length - 1; index >= 0; index--) {
    while (open.length > 0 && headings[open[open.length - 1]].level > headings[index].level) open.pop();
    windowEnd[index] = open.length > 0 ? (headings[open[open.length - 1]].start ?? 0) : Number.POSITIVE_INFINITY;
    open.push(index);
  }
  const published = headings.slice(0, MAX_HEADINGS);
  return {
    headings: published.map(({ level, text }) => ({ level, text })),
    truncated: headings.length > MAX_HEADINGS,
    // The section has a body when a substantive top-level block starts inside its window.
    bodyAvailable: published.map((heading, index) => {
      const first = firstAtLeast(starts, heading.end ?? 0);
      return first < starts.length && starts[first] < windowEnd[index];
    }),
  };
}

/** The index of the first value >= `at` in ascending `values` (values.length when none). */
function firstAtLeast(values: readonly number[], at: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (values[middle] < at) low = middle + 1;
    else high = middle;
  }
  return low;
}
