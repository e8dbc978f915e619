/**
 * fast-check generators of Markdown notes for the differential tests
 * (test/differential.test.ts) and the offline run
 * (test/offline/differential.ts): block grammar, inline-heavy notes, inline
 * floods biased toward delimiters, brackets, html and references, deep
 * container nesting, and the chars micromark preprocesses (BOM, NUL, CR,
 * tabs).
 */
import fc from 'fast-check';

const indent = fc.constantFrom('', '', '', ' ', '  ', '   ', '    ', '     ', '\t', ' \t', '  \t', '\t\t');
const containerPrefix = fc.constantFrom(
  '>', '> ', '>  ', '>\t', '- ', '-', '-\t', '-   ', '-     ', '* ', '+ ', '1. ', '1.\t', '2) ', '1) ', '10. ', '0. ',
);
const blockStart = fc.constantFrom(
  // headings (ATX, setext underlines), thematic breaks
  '# ', '## ', '###### ', '####### ', '#', '#\t', '#5', '===', '=', '--', '-', '---', '***', '___', '- - -', '* * *',
  // fences
  '```', '````', '~~~', '```js', '``` a`b', '~~~ x`y',
  // html blocks of the seven kinds and their ends
  '<script>', '</style>', '<pre>', '</pre>', '<!-- ', '-->', '<!-->', '<?', '?>', '<!A', '<![CDATA[', ']]>', '<div>',
  '</div>', '<div/>', '<a href="x">', '<a b=c=d>', '<a>', '</a>', '<span', '<x-y z>',
  // link reference definitions, whole and split over lines
  '[foo]: /url', '[foo]: /url "title"', '[foo]:', '[Foo]:\t<a b>', '/url', '"title"', "'t'", '(t)', '[bar]: (x) y',
  '[a\\]]: x', '[ ]: x', '\\[foo]: x',
  // inline content
  '[foo]', '[Foo]', '![img](x)', '![](x)', '[](x)', '&nbsp;', '&amp;', '`code`', '*em*', '_em_', '**strong**', '\\', '\\#',
  '<http://a.b>', '[x][foo]', '[x](y "t")', 'text', 'foo bar', 'a', '1.', '2.', ' ', '', '\u00a0', 'é',
);
const lineTail = fc.constantFrom('', '', '', 'x', ' text', ' #', ' ##', '  ', '\t', ' *a*', ' [foo]', ' `c`', ']', ' -->', ' ?>', ' >', ' </pre>', ' ]]>', '"');
const grammarLine = fc
  .tuple(indent, fc.array(fc.tuple(containerPrefix, indent), { maxLength: 3 }), blockStart, lineTail)
  .map(([lead, prefixes, start, tail]) => lead + prefixes.map(([prefix, gap]) => prefix + gap).join('') + start + tail);
const lineEnding = fc.constantFrom('\n', '\n', '\n', '\n', '\r\n', '\r');
/** Lines from a grammar of block starts: indentation, container markers, leaf starts, lazy and blank lines. */
export const grammarNote = fc
  .tuple(fc.array(grammarLine, { minLength: 1, maxLength: 14 }), lineEnding)
  .map(([lines, ending]) => lines.join(ending));

const inlinePiece = fc.constantFrom(
  '[foo]', '[Foo]', '[FOO ]', '[bar]', '![foo]', '![](x)', '[](x)', '![]', '[![](a)](b)', '&nbsp;', '&#32;', '&#x2003;', '&amp;',
  '&bogus;', '` `', '``a``', '<!-- -->', '<b>', '</b>', '<http://a.b>', '<a@b.c>', '*', '**', '_', '__', '\\', '\\*', ' ',
  '\t', 'a', 'é', '\u00a0', '\u3000', '[x][foo]', '[x][]', '[x](y "t")', '[x](<y z>)', '![a *b*](c)', '\\[foo]', '[foo]:',
  '"t"', '(', ')', ']', '#', 'e\u0301', '\u2028',
);
const inlineText = fc.array(inlinePiece, { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(''));
const definitionText = fc.constantFrom(
  '[foo]: /url', '[Foo]: /url "t"', '[foo]:\n/url', '[foo]: /url\n"title"', '[foo\nbar]: /u', '[bar]: <x y>', "[bar]: /u 'a\nb'",
  '[foo]: /u (x(y)', '[ foo ]: x', '[foo]: x "t" junk', '[foo]: <>', '[foo]: a(b)c', '[foo]: a(b', '[\\]]: x',
  '[foo]: /url\n===', '[foo]: /url\nbar\n===', '[foo]: /url\n---',
);
const inlineLeaf = fc.oneof(
  inlineText,
  inlineText.map((text) => `# ${text}`),
  inlineText.map((text) => `## ${text} ##`),
  fc.tuple(inlineText, inlineText).map(([first, second]) => `${first}\n${second}\n===`),
  fc.tuple(inlineText, fc.constantFrom('---', '-', '=', '  ===  ')).map(([text, underline]) => `${text}\n${underline}`),
  definitionText,
  fc.constantFrom('', '```', '~~~', '<div>', '---', '    code', '\u00a0'),
);
/** Inline-heavy notes: references with and without definitions, empty links and images, entities, code spans. */
export const inlineNote = fc
  .tuple(
    fc.array(
      fc.tuple(fc.constantFrom('', ' ', '   ', '    ', '\t'), fc.array(fc.constantFrom('> ', '>', '- ', '* ', '1. ', '2) ', '  '), { maxLength: 3 }), inlineLeaf)
        .map(([lead, prefixes, leaf]) => lead + prefixes.join('') + leaf),
      { minLength: 1, maxLength: 12 },
    ),
    fc.constantFrom('\n', '\n', '\r\n'),
  )
  .map(([lines, ending]) => lines.join('\n').replace(/\n/g, ending));

const headingChar = fc.constantFrom('*', '*', '*', '_', '_', '_', '`', '`', 'a', 'b', ' ', ' ', '.', '!', ']', '(', '"', 'é', '—', '\u00a0', '\t', '1', '¡', '$', '💡', '\u3000', '#', '-');
const headingContent = fc.array(headingChar, { minLength: 1, maxLength: 18 }).map((chars) => chars.join(''));
/** Headings whose text is decided by emphasis and code-span rules (flanking, rule of 3, backtick runs). */
export const emphasisNote = fc.oneof(
  headingContent.map((content) => `# ${content}`),
  fc.tuple(headingContent, headingContent).map(([first, second]) => `${first}\n${second}\n===`),
  fc.tuple(headingContent, headingContent).map(([first, second]) => `> ${first}\n> ${second}\n> ---`),
  fc.tuple(headingContent, headingContent).map(([first, second]) => `- ## ${first}\n\n${second}`),
);

const rawChar = fc.constantFrom(
  '#', '>', '-', '*', '+', '1', '2', '.', ')', ' ', ' ', ' ', '\t', '`', '~', '<', '[', ']', ':', '=', '_', 'a', 'b', '!', '(', '"',
  "'", '\\', '&', ';', '/', '\n', '\n', '\u00a0', 'x',
);
const rawChunk = fc.constantFrom(
  '<div>', '<!--', '-->', '<pre>', '</pre>', '<a b="c">', '```', '~~~', '[a]: b', '[a]', '&nbsp;', '<?', '?>', '<!X', ']]>', '<![CDATA[',
  '    ', '\n\n', '</a>', '- ', '1. ', '> ',
);
/** Character soup over Markdown-significant characters, for what the grammars do not think of. */
export const rawNote = fc
  .array(fc.oneof({ weight: 4, arbitrary: rawChar }, { weight: 1, arbitrary: rawChunk }), { maxLength: 60 })
  .map((pieces) => pieces.join(''));

const nestingMarker = fc.constantFrom('- ', '* ', '+ ', '1. ', '2. ', '1) ', '> ', '>', '-\t', '10. ', '-    ', '- ');
const nestingContent = fc.constantFrom(
  'text', '# h *a*', '## h `c`', '```', '~~~', 'code x', '    indented', '<div>', '<b>', '<!-- c -->', '---', '===', '[foo]: /u',
  '[foo]', '', '', '  ', '\u00a0', '![](x)', 'a\\', '2. x', '- ', '-', '> q', '   | a | b |',
);
const nestingStep = fc.record({
  depth: fc.nat(4),
  newMarker: fc.boolean(),
  marker: nestingMarker,
  dropOne: fc.nat(3),
  content: nestingContent,
  gap: fc.constantFrom('', '', ' ', '  ', '\t', '     '),
});
export const nestedNote = fc.array(nestingStep, { minLength: 1, maxLength: 16 }).map((steps) => {
  const open: string[] = [];
  const lines: string[] = [];
  for (const step of steps) {
    while (open.length > step.depth) open.pop();
    let prefix = '';
    const kept = Math.max(0, open.length - (step.dropOne === 0 ? 1 : 0));
    for (let index = 0; index < kept; index++) {
      prefix += open[index].startsWith('>') ? '> ' : ' '.repeat(open[index].replace('\t', '   ').length);
    }
    if (step.newMarker || open.length === 0) {
      prefix += step.marker;
      open.push(step.marker);
    }
    lines.push(prefix + step.gap + step.content);
  }
  return lines.join('\n');
});

// ---------------------------------------------------------------- inline floods

const floodPiece = fc.constantFrom(
  '*', '*', '**', '***', '_', '_', '__', '[', '[', ']', ']', '![', '](', '](x)', ')', '(', '`', '`', '``', '```', '<', '>', '<a>', '</a>',
  '<!--', '-->', '<?', '?>', '<!A', '<![CDATA[', ']]>', '<a href="x">', '<http://a>', '<a@b.c>', '&', '&amp;', '&nbsp;', '&#35;', '&#x41;',
  '&#0;', '&bogus;', '&amp', '\\', '\\*', '\\[', '\\`', '\\\\', ' ', ' ', '  ', '\t', 'a', 'b', 'é', '.', ',', '"', "'", '-', '!', '#',
  '[foo]', '[Foo]', '[bar][]', '[x][foo]', '[x][bar]', '[x]', ' "t")', '(<y z>', '\u00a0', '\u2003', 'e\u0301', '\u0000', '💡',
);
const floodText = fc.array(floodPiece, { minLength: 1, maxLength: 24 }).map((pieces) => pieces.join(''));
const floodDefinition = fc.constantFrom('', '', '[foo]: /u\n', '[FOO]: <a b> "t"\n', '[bar]: /x\n[foo]:\n/y\n', '[x]: y\n', '[ Foo\tbar ]: u\n');
/** Inline content biased toward delimiters, brackets, code spans, html, entities and escapes, in every inline position. */
export const inlineFloodNote = fc
  .tuple(
    floodDefinition,
    fc.array(
      fc.tuple(
        fc.constantFrom('', '', '> ', '- ', '1. ', '> - '),
        fc.oneof(
          floodText.map((text) => `# ${text}`),
          floodText.map((text) => `### ${text} ###`),
          fc.tuple(floodText, floodText).map(([first, second]) => `${first}\n${second}\n===`),
          fc.tuple(floodText, fc.constantFrom('---', '=')).map(([text, underline]) => `${text}\n${underline}`),
          floodText,
          fc.tuple(floodText, floodText).map(([first, second]) => `${first}\n${second}`),
        ),
      ).map(([prefix, leaf]) => prefix + leaf),
      { minLength: 1, maxLength: 6 },
    ),
    fc.constantFrom('\n', '\n\n', '\r\n', '\r\n\r\n'),
  )
  .map(([definitions, leaves, ending]) => (definitions + leaves.join('\n\n')).replace(/\n/g, ending));

// ---------------------------------------------------------------- deep containers and preprocessing

/** Container runs deeper than 32, with continued, lazy, blank and sibling lines after them. */
export const deepNestingNote = fc
  .tuple(
    fc.constantFrom('> ', '>', '- ', '* ', '1. ', '> - ', '- > '),
    fc.integer({ min: 20, max: 80 }),
    fc.array(
      fc.constantFrom('text', '# h', '', '', '  ', '- x', '> y', '  - z', '    code', '```', '***', 'a\\', '*a*'),
      { maxLength: 8 },
    ),
    fc.constantFrom('text', '# deep *h*', '', '- item', '```'),
  )
  .map(([unit, depth, after, content]) => [unit.repeat(depth) + content, ...after.map((line, index) => (index % 2 === 0 ? unit.repeat(depth >> 1) : '') + line)].join('\n'));

/** Notes with what micromark's preprocessing rewrites or measures: a leading BOM, NUL, CR/CRLF, tabs. */
export const preprocessNote = fc
  .tuple(
    fc.constantFrom('', '', '\uFEFF', '\uFEFF\uFEFF'),
    fc.array(
      fc.constantFrom('# a\u0000b', 'x\u0000', '\u0000', '\t# t', '-\tx', '>\t\tcode', '[a\tb]: u', '[a\tb]', '\tx', '  \t> y', '\uFEFF', 'a\tb', '* \t*\t*'),
      { minLength: 1, maxLength: 8 },
    ),
    fc.constantFrom('\n', '\r', '\r\n', '\n\n'),
  )
  .map(([bom, lines, ending]) => bom + lines.join(ending));
