/**
 * Heading extraction against the CommonMark 0.31.2 spec examples: for every
 * example, the analysis's heading levels (in order) equal the <h1>..<h6> elements of
 * the example's expected HTML. This covers ATX/Setext edge cases, headings in
 * containers, and everything that merely looks like a heading.
 */
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeNote } from '../src';

interface SpecExample {
  markdown: string;
  html: string;
  section: string;
  number: number;
}

const examples: SpecExample[] = createRequire(import.meta.url)('commonmark-spec').tests;
const TAB_MARKER = /→/g;

/** Levels of the heading elements in rendered HTML, in document order. */
function htmlHeadingLevels(html: string): number[] {
  return Array.from(html.matchAll(/<h([1-6])(?=[\s>])/g), (match) => Number(match[1]));
}

describe('CommonMark 0.31.2 spec examples: heading count and levels', () => {
  let checked = 0;
  let matched = 0;
  let withHeadings = 0;
  let headingElements = 0;

  it('loads all 652 examples', () => {
    expect(examples).toHaveLength(652);
  });

  for (const example of examples) {
    it(`example ${example.number} (${example.section})`, () => {
      const markdown = example.markdown.replace(TAB_MARKER, '\t');
      const html = example.html.replace(TAB_MARKER, '\t');
      const expectedLevels = htmlHeadingLevels(html);
      checked += 1;
      if (expectedLevels.length > 0) withHeadings += 1;
      headingElements += expectedLevels.length;
      expect(analyzeNote(markdown).headings.map((heading) => heading.level)).toEqual(expectedLevels);
      matched += 1;
    });
  }

  afterAll(() => {
    console.log(
      `commonmark 0.31.2: ${checked} examples checked, ${matched} matched, ` +
        `${withHeadings} with headings (${headingElements} heading elements)`,
    );
  });
});
