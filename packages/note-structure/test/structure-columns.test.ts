/**
 * analyzeNoteColumns answers StructureColumns (int32 columns, no object per
 * heading or block), the form the Worker builds from, while the oracle
 * answers a NoteStructure. The columns must hold the oracle's structure, and
 * the two forms must convert into each other without loss.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeNote, analyzeNoteColumns, columnsOf, structureOf } from '../src';
import { analyzeWithMdast } from '../dev/oracle';
import { grammarNote, nestedNote } from './support/arbitraries';

function columnsAgree(body: string): void {
  expect(structureOf(analyzeNoteColumns(body))).toEqual(analyzeWithMdast(body));
}

describe('StructureColumns', () => {
  it('hold the oracle structure on generated block grammar and nesting (headings in containers, definitions, floods)', () => {
    fc.assert(fc.property(fc.oneof(grammarNote, nestedNote), columnsAgree), { numRuns: 400, seed: 20261123 });
  }, 60_000);

  it('hold the oracle structure for many headings and for headings whose text decides a quote or item bit', () => {
    const headings = Array.from({ length: 520 }, (_, index) => `${'#'.repeat((index % 4) + 1)} h${index}\n\n${index % 3 === 0 ? '' : `w${index}\n\n`}`).join('');
    columnsAgree(headings);
    columnsAgree('> # *\n\n# a\n\n- # b\n- # `x`\n\n> # &amp;\n\n## c\n\n> ## [r]\n\n[r]: /u\n');
    columnsAgree('[a]: /u\n[b]:\n/v "t"\n\n# x\n\nw\n\n# y\n\n[c]: /w\n');
  });

  it('convert to and from NoteStructure without loss (null offsets included)', () => {
    for (const body of ['# a\n\nb\n\n> # c\n', '[a]: /u\n\n## [a]\n\n- x\n', '']) {
      expect(structureOf(analyzeNoteColumns(body))).toEqual(analyzeNote(body));
      expect(structureOf(columnsOf(analyzeNote(body)))).toEqual(analyzeNote(body));
    }
    const withNulls = {
      headings: [{ level: 2, text: 't', start: null, end: null }, { level: 1, text: 'u', start: 4, end: 7 }],
      blocks: [{ start: null, substantive: true }, { start: 9, substantive: false }],
    };
    expect(structureOf(columnsOf(withNulls))).toEqual(withNulls);
  });
});
