/**
 * A paragraph's substance (whether some value or alt in it is non-blank) is decided by the block
 * scan's proofs (content.ts, paragraphSubstance) when it can, else by the inline pass without
 * building the text (inlineSubstantive). Both are checked here on paragraphs made mostly of what
 * can leave them blank: character references to whitespace, empty links and images, markup,
 * escapes, code and HTML, whitespace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasJsNonWhitespace } from '../src/chars';
import { inlineSubstantive, inlineText } from '../src/inline';
import { differential } from './support/differential';
import { definitionSet, oracleTexts } from './support/inline-oracle';

/** Pieces that leave a paragraph blank on their own (mostly). */
const BLANK = [
  '&nbsp;', '&#32;', '&#x20;', '&#9;', '&#10;', '&ThickSpace;', '&NewLine;', '&Tab;', '&#x2028;', '&#x3000;', '&#xA0;',
  '![](x)', '![](x "t")', '[](x)', '[](&nbsp;)', '![&nbsp;](x)', '[&nbsp;](x)', '![](&amp;)', '[&nbsp;][x]', '![*&nbsp;*](x)',
  '*&nbsp;*', '**&#32;**', '` `', '[&nbsp;]', '![&nbsp;]', '[&nbsp;][]', ' ', '  ', '\t', '\u00a0', '\u3000',
];
/** Markup that may have nothing to pair with, or stay text: what the block scan proves from alone. */
const LONE = ['_', '__', '*', '[', ']', '![', '<', '>', '`', '``', '!', '(', ')', '"', "'", '\\'];
/** Pieces that may make it non-blank, or not: one of them decides it. */
const STRAY = [
  '&amp;', '&#0;', '&#x200B;', '&bogus;', '&nbsp', '&', '&#;', '&#x;', '\\&nbsp;', '`&nbsp;`', '` `', '``', '[x]', '[x][]',
  '<!-- -->', '<a>', '<a title="&nbsp;">', '<http://a&nbsp;>', '*', '**', '_', '[', ']', '](', '(', ')', '!', '<', '>', '"', "'",
  '\\', '\\*', ';', '#', 'x',
];
const piece = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...BLANK) },
  { weight: 4, arbitrary: fc.constantFrom(...LONE) },
  { weight: 1, arbitrary: fc.constantFrom(...STRAY) },
);
/** Defined labels: none, a plain one, one whose link text is blank. */
const LABELS = fc.constantFrom<string[]>([], ['x'], ['&nbsp;'], ['x', '&nbsp;']);
const nearBlankLines = fc
  .array(fc.array(piece, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 })
  .map((lines) => lines.map((pieces) => pieces.join('')).filter((line) => line.trim() !== ''))
  .filter((lines) => lines.length > 0);

describe('paragraph substance', () => {
  it('inlineSubstantive is whether the rendered text holds a non-whitespace char, and whether the oracle paragraph is non-blank', () => {
    let compared = 0;
    let blank = 0;
    fc.assert(
      fc.property(nearBlankLines, LABELS, (lines, labels) => {
        const definitions = definitionSet(labels);
        const substantive = inlineSubstantive(lines, definitions);
        expect({ lines, labels, substantive }).toEqual({ lines, labels, substantive: hasJsNonWhitespace(inlineText(lines, definitions).text) });
        const expected = oracleTexts(lines, labels);
        if (expected === null) return;
        compared++;
        if (expected.paragraph === '') blank++;
        expect({ lines, labels, substantive }).toEqual({ lines, labels, substantive: expected.paragraph !== '' });
      }),
      { seed: 20261127, numRuns: 1200 },
    );
    expect(compared).toBeGreaterThan(1000);
    expect(blank).toBeGreaterThan(150);
  });

  it('agrees with the oracle on notes of such paragraphs, top level and in containers (the block scan proof, then the pass)', () => {
    const prefixes = ['', '', '> ', '- ', '1. ', '> - '];
    const note = fc
      .array(fc.tuple(fc.constantFrom(...prefixes), nearBlankLines), { minLength: 1, maxLength: 6 })
      .map((paragraphs) => paragraphs.map(([prefix, lines]) => lines.map((line) => prefix + line).join('\n')).join('\n\n') + '\n');
    fc.assert(
      fc.property(note, LABELS, (body, labels) => {
        const text = labels.map((label) => `[${label}]: /u\n`).join('') + '\n' + body;
        expect({ text, difference: differential(text) }).toEqual({ text, difference: null });
      }),
      { seed: 20261128, numRuns: 600 },
    );
  });

  it('reads a character reference as its value and anything else after `&` as text', () => {
    for (const body of ['&nbsp;\n', '&#32;&NewLine;\n', '&ThickSpace;\n', '&amp;\n', '&#0;\n', '&bogus;\n', '& \n', '\\&nbsp;\n', '> &nbsp;\n> &#x20;\n']) {
      expect({ body, difference: differential(body) }).toEqual({ body, difference: null });
    }
  });

  it('proves blank only what is whitespace, references to it and code spans of it, paired run by run', () => {
    const paragraphs = [
      // Blank: every backtick run pairs with the next one, of its size, around whitespace.
      '` `', '``  ``', '` ` ` `', '`\t`', '`\u00a0`', '&nbsp;` `&#32;', '` `\n` `', '`\n`', '`` \n ``', '&nbsp;  \n&nbsp;', '\t&#9;\n  &nbsp;',
      // Not blank: a run of another size inside, a lone run, a reference in code, other markup.
      '` `` `', '`` ` ``', '` ` `', '`&nbsp;`', '` `&amp;', '` `\\', '` `*', '` `_ _', '` ` [', '``` ```', '`` ` ` ``', '` ``', '&nbsp; >', '` ` >',
    ];
    for (const paragraph of paragraphs) {
      for (const body of [`${paragraph}\n`, `> ${paragraph.replaceAll('\n', '\n> ')}\n`, `- ${paragraph.replaceAll('\n', '\n  ')}\n`]) {
        expect({ body, difference: differential(body) }).toEqual({ body, difference: null });
      }
    }
  });

  it('reads an empty bracket pair as text unless a resource or reference follows it', () => {
    const paragraphs = [
      '[]', '[] ', '![]', '[[]]', '[[]](x)', '[]](x)', '[](x)', '![](x)', '[][x]', '[][]', '![][x]', '[] [x](y)', '[]: x', '\\[]',
      '`[]`', '[`]`', '&nbsp;[]', '[&nbsp;[]](x)', '[x]\n[]', '[]\n(x)', '[\n](x)', '[]&#40;x)', '[x][]', '[[]][x]', '[&nbsp;]', '[x]',
    ];
    for (const paragraph of paragraphs) {
      for (const labels of ['', '[x]: /u\n\n', '[&nbsp;]: /u\n\n']) {
        for (const body of [`${labels}${paragraph}\n`, `${labels}> ${paragraph.replaceAll('\n', '\n> ')}\n`]) {
          expect({ body, difference: differential(body) }).toEqual({ body, difference: null });
        }
      }
    }
  });

  it('proves blank empty links and images with a plain resource, and nothing that only looks like one', () => {
    const paragraphs = [
      // Blank.
      '[](x)', '![](img.png)', '[]()', '[](x)[](y)', '![](a/b-c.png?x=1#y) &nbsp; ` `', '` `[](x)` `', '[](x)\n![](y)',
      // Not blank, or not proven: another resource, text, markup or code around or inside.
      '[](<x>)', '[](x "t")', '[](x y)', '[](x\\))', '[](x(y))', '[](`x`)', '[](&amp;)', '[](x)]', '[ [](x)', '[](x) [', '`[](x)`',
      '[](x)*', '*[](x)*', '_[](x)_', '[[](x)]', '[](x)[x]', '[] (x)', '[](x', '![](x)!', '!![](x)', '[](x)\\', '[](x)&amp;', '` [](x) `',
      '[](x)_a_',
      // The rest after an empty link, read as a paragraph of its own.
      '[](x)[]', '[](x)`', '` `[](x)`', '` ` `` `` [](x) `', '` [](x) ` ` `', '[](x) ]', '[](x) [', '[](x)[a](b)', '[](x)*&nbsp;*', '![](x)*a*', '[](x)&nbsp;[](y)x',
    ];
    for (const paragraph of paragraphs) {
      for (const labels of ['', '[x]: /u\n\n']) {
        for (const body of [`${labels}${paragraph}\n`, `${labels}> ${paragraph.replaceAll('\n', '\n> ')}\n`, `${labels}- ${paragraph.replaceAll('\n', '\n  ')}\n`]) {
          expect({ body, difference: differential(body) }).toEqual({ body, difference: null });
        }
      }
    }
  });

  it('reads markup with nothing to pair with as text, and markup that pairs as the pass does', () => {
    const paragraphs = [
      '_', '__', '_ _', '_&nbsp;_', '**', '** **', '[', ']', '[]', '] [', '![', '![]', '<', '<>', '< >', '>', '`', '``', '` `', '`` ` ``',
      '!', '(', ')', '"', "'", '\\', '\\\n&nbsp;', '&nbsp;\\', '_\n_', '[\n]', '<\n>', '`\n`', '![](x)\n_', '[](x) [',
    ];
    for (const paragraph of paragraphs) {
      for (const body of [`${paragraph}\n`, `> ${paragraph.replaceAll('\n', '\n> ')}\n`, `- ${paragraph.replaceAll('\n', '\n  ')}\n`]) {
        expect({ body, difference: differential(body) }).toEqual({ body, difference: null });
      }
    }
  });
});
