/**
 * Property tests of the contract builders over generated Markdown.
 *
 * The generator places a unique sentinel wherever body content may hide
 * (paragraph text, inline and block code, HTML comments and blocks, link and
 * image destinations and titles, link definitions, fake headings in code),
 * but never in text a heading exposes. The payloads are body-free, so the
 * sentinel must never surface in any of them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Validator, type Schema } from '@cfworker/json-schema';
import {
  CONTRACT_NAMES,
  buildAllContracts,
  buildContract,
  ContractError,
  decodeWireFrontmatter,
  type ContractName,
  type ContractPayload,
  type Frontmatter,
  type TreeNode,
} from '../../src/contracts';
import { contractNamed } from '../../src/contracts/registry';

const NUM_RUNS = 250;
/** Stands for the sentinel in templates; never used in any heading-visible text. */
const MARK = '§';

const validators = Object.fromEntries(
  CONTRACT_NAMES.map((name) => [name, new Validator(contractNamed(name).outputSchema as Schema, '2020-12', false)]),
) as Record<ContractName, Validator>;

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('');
const sentinelArb = fc
  .string({ unit: fc.constantFrom(...ALNUM), minLength: 10, maxLength: 10 })
  .map((suffix) => `ZQX${suffix}`);

// ---- heading-visible text: no sentinel anywhere a heading's plain text could take it from ----
const wordArb = fc.constantFrom(
  'alpha', 'beta', 'gamma', 'Delta', 'Café', 'déjà', 'e\u0301', '日本語', 'İstanbul', '\u212Aelvin', '😀',
  'x\u00a0y', 'AT&amp;T', 'a\\*b', '\\#', 'tab\there', 'v1.2', '2026',
);
const headingPieceArb = fc.oneof(
  { weight: 6, arbitrary: wordArb },
  wordArb.map((w) => `**${w}**`),
  wordArb.map((w) => `*${w}*`),
  wordArb.map((w) => `\`${w}\``),
  wordArb.map((w) => `<b>${w}</b>`),
  wordArb.map((w) => `[${w}](https://x.test/${MARK})`),
  wordArb.map((w) => `[${w}](${MARK} "${MARK}")`),
  wordArb.map((w) => `![${w}](${MARK}.png)`),
  fc.constant(`![](${MARK}.png "${MARK}")`),
  wordArb.map((w) => `[${w}][ref]`),
  wordArb.map((w) => `![${w}][ref]`),
);
const headingTextArb = fc.array(headingPieceArb, { minLength: 1, maxLength: 5 }).map((pieces) => pieces.join(' '));

interface Block {
  markdown: string;
  /** Levels of the real headings this block contains, in order. */
  levels: number[];
}

const atxArb: fc.Arbitrary<Block> = fc
  .record({
    level: fc.integer({ min: 1, max: 6 }),
    indent: fc.integer({ min: 0, max: 3 }),
    text: headingTextArb,
    closing: fc.integer({ min: 0, max: 3 }),
  })
  .map(({ level, indent, text, closing }) => ({
    markdown: `${' '.repeat(indent)}${'#'.repeat(level)} ${text}${closing ? ` ${'#'.repeat(closing)}` : ''}`,
    levels: [level],
  }));
const emptyAtxArb: fc.Arbitrary<Block> = fc
  .integer({ min: 1, max: 6 })
  .map((level) => ({ markdown: '#'.repeat(level), levels: [level] }));
const setextArb: fc.Arbitrary<Block> = fc
  .record({
    lines: fc.array(headingTextArb, { minLength: 1, maxLength: 2 }),
    underline: fc.constantFrom('=', '-'),
    length: fc.integer({ min: 1, max: 6 }),
  })
  .map(({ lines, underline, length }) => ({
    markdown: `${lines.join('\n')}\n${underline.repeat(length)}`,
    levels: [underline === '=' ? 1 : 2],
  }));

// ---- body content: carries the sentinel ----
const paragraphPieceArb = fc.oneof(
  { weight: 4, arbitrary: wordArb },
  fc.constantFrom(
    MARK,
    `*${MARK}*`,
    `\`${MARK}\``,
    `<https://x.test/${MARK}>`,
    `<span title="${MARK}">w</span>`,
    `[w](${MARK})`,
    `![${MARK} alt](${MARK}.png)`,
    `<!-- ${MARK} -->`,
    `${MARK}\\`,
  ),
);
const paragraphLineArb = fc
  .tuple(fc.constant(MARK), fc.array(paragraphPieceArb, { minLength: 0, maxLength: 6 }))
  .map(([mark, pieces]) => [mark, ...pieces].join(' '));
const paragraphArb: fc.Arbitrary<Block> = fc
  .array(paragraphLineArb, { minLength: 1, maxLength: 3 })
  .map((lines) => ({ markdown: lines.join('\n'), levels: [] }));
const fencedCodeArb: fc.Arbitrary<Block> = fc
  .record({
    fence: fc.constantFrom('```', '````', '~~~'),
    info: fc.constantFrom('', 'md', MARK),
    lines: fc.array(fc.constantFrom(`# ${MARK} fake heading`, `code ${MARK}`, `${MARK}`, '===', '---', ''), { maxLength: 4 }),
  })
  .map(({ fence, info, lines }) => ({ markdown: [`${fence}${info}`, ...lines, fence].join('\n'), levels: [] }));
const indentedCodeArb: fc.Arbitrary<Block> = fc
  .array(fc.constantFrom(`code ${MARK}`, `${MARK} more`), { minLength: 1, maxLength: 3 })
  .map((lines) => ({ markdown: lines.map((line) => `    ${line}`).join('\n'), levels: [] }));
const htmlArb: fc.Arbitrary<Block> = fc.constantFrom<Block>(
  { markdown: `<!-- ${MARK} -->`, levels: [] },
  { markdown: `<!--\n# ${MARK} hidden\n${MARK}\n-->`, levels: [] },
  { markdown: `<div>\n# ${MARK} inside html\n</div>`, levels: [] },
  { markdown: `<h2>${MARK}</h2>`, levels: [] },
);
const definitionArb: fc.Arbitrary<Block> = fc.constantFrom<Block>(
  { markdown: `[ref]: https://x.test/${MARK} "${MARK}"`, levels: [] },
  { markdown: `[ref]: <${MARK}>`, levels: [] },
);
const thematicBreakArb: fc.Arbitrary<Block> = fc
  .constantFrom('***', '---', '___', '- - -')
  .map((markdown) => ({ markdown, levels: [] }));
const containerLineArb: fc.Arbitrary<Block> = fc.oneof(
  paragraphLineArb.map((line) => ({ markdown: line, levels: [] as number[] })),
  atxArb.map(({ markdown, levels }) => ({ markdown: markdown.trimStart(), levels })),
);
const listArb: fc.Arbitrary<Block> = fc
  .record({ marker: fc.constantFrom('- ', '* ', '1. '), items: fc.array(containerLineArb, { minLength: 1, maxLength: 3 }) })
  .map(({ marker, items }) => ({
    markdown: items.map((item) => marker + item.markdown).join('\n'),
    levels: items.flatMap((item) => item.levels),
  }));
const blockquoteArb: fc.Arbitrary<Block> = fc
  .array(containerLineArb, { minLength: 1, maxLength: 3 })
  .map((lines) => ({ markdown: lines.map((line) => `> ${line.markdown}`).join('\n'), levels: lines.flatMap((l) => l.levels) }));

const blockArb: fc.Arbitrary<Block> = fc.oneof(
  { weight: 4, arbitrary: atxArb },
  { weight: 1, arbitrary: emptyAtxArb },
  { weight: 2, arbitrary: setextArb },
  { weight: 4, arbitrary: paragraphArb },
  { weight: 2, arbitrary: fencedCodeArb },
  { weight: 1, arbitrary: indentedCodeArb },
  { weight: 2, arbitrary: htmlArb },
  { weight: 1, arbitrary: definitionArb },
  { weight: 1, arbitrary: thematicBreakArb },
  { weight: 2, arbitrary: listArb },
  { weight: 2, arbitrary: blockquoteArb },
);

const pathArb = fc
  .array(fc.string({ unit: fc.constantFrom(...'abcXYZ019 _-.日é'.split('')), minLength: 1, maxLength: 8 }), {
    minLength: 1,
    maxLength: 3,
  })
  // The whole path is trimmed before its segments are read, so ' ..' opening it is a '..' segment.
  .filter((segments) => segments.every((s) => s.trim() !== '' && s !== '.' && s !== '..') && segments[0].trimStart() !== '..')
  .map((segments) => `${segments.join('/')}.md`);
const projectPathArb = fc.oneof(pathArb, pathArb.map((p) => `projects/${p}`));

interface GeneratedNote {
  path: string;
  wireFrontmatter: string;
  body: string;
  sentinel: string;
  levels: number[];
}

const noteArb: fc.Arbitrary<GeneratedNote> = fc
  .record({
    sentinel: sentinelArb,
    path: projectPathArb,
    blocks: fc.array(blockArb, { minLength: 0, maxLength: 12 }),
    title: fc.option(headingTextArb.map((t) => t.replaceAll(MARK, 'u')), { nil: undefined }),
    tags: fc.array(wordArb, { maxLength: 4 }),
  })
  .map(({ sentinel, path, blocks, title, tags }) => ({
    path,
    // Keys outside the contracts' allowlists carry the sentinel: they must never be echoed.
    wireFrontmatter: JSON.stringify({ title, tags, summary: sentinel, body: sentinel, [sentinel]: 'key' }),
    body: blocks.map((block) => block.markdown).join('\n\n').replaceAll(MARK, sentinel),
    sentinel,
    levels: blocks.flatMap((block) => block.levels),
  }));

function buildAll(note: GeneratedNote): ReturnType<typeof buildAllContracts> {
  return buildAllContracts(note.path, decodeWireFrontmatter(note.wireFrontmatter), note.body);
}

function flattenTree(nodes: TreeNode[]): TreeNode[] {
  return nodes.flatMap((node) => [node, ...flattenTree(node.children)]);
}

describe('properties of the body-free builders', () => {
  it('never returns the sentinel placed in body content or in non-allowlisted frontmatter', () => {
    let bodiesWithSentinel = 0;
    let bodiesWithHeadings = 0;
    fc.assert(
      fc.property(noteArb, (note) => {
        if (note.body.includes(note.sentinel)) bodiesWithSentinel += 1;
        if (note.levels.length > 0) bodiesWithHeadings += 1;
        const payloads = buildAll(note);
        for (const name of CONTRACT_NAMES) {
          const json = JSON.stringify(payloads[name]);
          expect(json).not.toContain(note.sentinel);
          expect(json.toLowerCase()).not.toContain(note.sentinel.toLowerCase());
        }
      }),
      { numRuns: NUM_RUNS },
    );
    // The generator must actually exercise the property: most bodies carry the sentinel next to real headings.
    expect(bodiesWithSentinel).toBeGreaterThan(NUM_RUNS / 2);
    expect(bodiesWithHeadings).toBeGreaterThan(NUM_RUNS / 2);
  });

  it('finds exactly the generated headings, with their levels, and nothing in code or HTML', () => {
    fc.assert(
      fc.property(noteArb, (note) => {
        const outline = buildAll(note).note_outline;
        expect(outline.headings.map((h) => h.level)).toEqual(note.levels);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('is deterministic: the same input gives identical bytes', () => {
    fc.assert(
      fc.property(noteArb, (note) => {
        const first = buildAll(note);
        const second = buildAll({ ...note });
        for (const name of CONTRACT_NAMES) expect(JSON.stringify(second[name])).toBe(JSON.stringify(first[name]));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('produces payloads that validate against their JSON schemas and agree with each other', () => {
    fc.assert(
      fc.property(noteArb, (note) => {
        const payloads = buildAll(note);
        for (const name of CONTRACT_NAMES) {
          expect(validators[name].validate(JSON.parse(JSON.stringify(payloads[name]))).errors).toEqual([]);
        }
        const { note_outline: outline, document_tree: tree, section_source: source } = payloads;
        const flat = flattenTree(tree.root.children).map(({ id, level, text }) => ({ level, text, id }));
        expect(flat).toEqual(outline.headings);
        expect(source.sections.map((s) => s.heading_id)).toEqual(outline.headings.map((h) => h.id));
        expect(source.sections.map((s) => s.heading_text)).toEqual(outline.headings.map((h) => h.text));
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

// ---- arbitrary input: the only failure mode is a ContractError ----
const utf16UnitArb = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
const markdownCharArb = fc.constantFrom(...'#-=*_`~>< ![]()\n\r\t\\&;|:.0aZ\u00a0é😀/"\''.split(''));
const anyStringArb = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: utf16UnitArb }),
  fc.string({ unit: markdownCharArb, maxLength: 200 }),
);
const pathLikeArb = fc.oneof(
  anyStringArb,
  fc.string({ unit: fc.constantFrom('/', '\\', '.', '..', 'a', ' ', ':', 'C', '\0', 'projects', '日'), maxLength: 8 }),
);
const anyFrontmatterArb: fc.Arbitrary<Frontmatter> = fc.oneof(
  anyStringArb.map((text) => decodeWireFrontmatter(text)),
  fc
    .dictionary(
      fc.constantFrom('title', 'project', 'tags', 'date', 'updated', 'causal_chain_id', 'entity', 'episode_id', 'toString', 'x'),
      fc.jsonValue(),
    )
    .map((object) => decodeWireFrontmatter(JSON.stringify(object))),
);

describe('builders on arbitrary input', () => {
  it('throw nothing but ContractError, and whatever they return validates', () => {
    fc.assert(
      fc.property(pathLikeArb, anyFrontmatterArb, anyStringArb, (path, frontmatter, body) => {
        for (const name of CONTRACT_NAMES) {
          let payload: ContractPayload;
          try {
            payload = buildContract(name, path, frontmatter, body);
          } catch (error) {
            expect(error).toBeInstanceOf(ContractError);
            expect(['Invalid path', 'Note too large']).toContain((error as ContractError).message);
            continue;
          }
          expect(validators[name].validate(JSON.parse(JSON.stringify(payload))).errors).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('decodeWireFrontmatter always returns a plain object', () => {
    fc.assert(
      fc.property(fc.oneof(anyStringArb, fc.jsonValue(), fc.jsonValue().map((v) => JSON.stringify(JSON.stringify(v)))), (wire) => {
        const decoded = decodeWireFrontmatter(wire);
        expect(decoded !== null && typeof decoded === 'object' && !Array.isArray(decoded)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
