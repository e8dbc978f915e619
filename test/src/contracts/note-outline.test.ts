import { describe, expect, it } from 'vitest';
import { buildContract, type OutlineHeading } from '../../../src/contracts';

const PATH = 'inbox/note.md';
const headingsOf = (body: string): OutlineHeading[] => buildContract('note_outline', PATH, {}, body).headings;
const levelsOf = (body: string): number[] => headingsOf(body).map((h) => h.level);
const textsOf = (body: string): string[] => headingsOf(body).map((h) => h.text);
const idsOf = (body: string): string[] => headingsOf(body).map((h) => h.id);

describe('heading extraction (openapi.yaml NoteOutline: headings)', () => {
  it('collects ATX headings of every level 1..6', () => {
    const body = '# one\n## two\n### three\n#### four\n##### five\n###### six\n';
    expect(levelsOf(body)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(textsOf(body)).toEqual(['one', 'two', 'three', 'four', 'five', 'six']);
  });

  it('strips an optional closing sequence of #s, but not one glued to the text', () => {
    expect(textsOf('## foo ##\n')).toEqual(['foo']);
    expect(textsOf('# foo #########\n')).toEqual(['foo']);
    expect(textsOf('# foo#\n')).toEqual(['foo#']);
  });

  it('does not treat 7 #s, a missing space or an escaped # as a heading', () => {
    expect(headingsOf('####### seven\n')).toEqual([]);
    expect(headingsOf('#hashtag\n')).toEqual([]);
    expect(headingsOf('\\# not a heading\n')).toEqual([]);
  });

  it('maps Setext underlines: = to level 1 and - to level 2', () => {
    const body = 'Title\n=====\n\nSub\n---\n';
    expect(headingsOf(body)).toEqual([
      { level: 1, text: 'Title', id: 'h1-title-0001' },
      { level: 2, text: 'Sub', id: 'h2-sub-0002' },
    ]);
  });

  it('turns Setext soft line breaks into single spaces', () => {
    expect(textsOf('first line\nsecond line\n===\n')).toEqual(['first line second line']);
  });

  it('counts headings nested in blockquotes and list items, in document order', () => {
    const body = '# top\n\n> ## quoted\n\n- ### in list\n\n1. #### ordered\n\n> - > ##### deep\n';
    expect(headingsOf(body)).toEqual([
      { level: 1, text: 'top', id: 'h1-top-0001' },
      { level: 2, text: 'quoted', id: 'h2-quoted-0002' },
      { level: 3, text: 'in list', id: 'h3-in-list-0003' },
      { level: 4, text: 'ordered', id: 'h4-ordered-0004' },
      { level: 5, text: 'deep', id: 'h5-deep-0005' },
    ]);
  });

  it('does not count headings inside fenced code, indented code or raw HTML blocks', () => {
    expect(headingsOf('```\n# fenced\n```\n')).toEqual([]);
    expect(headingsOf('~~~md\n## tilde fenced\n~~~\n')).toEqual([]);
    expect(headingsOf('para\n\n    # indented code\n')).toEqual([]);
    expect(headingsOf('<div>\n# inside html block\n</div>\n')).toEqual([]);
    expect(headingsOf('<!--\n# inside comment\n-->\n')).toEqual([]);
  });

  it('does not treat <h1> HTML as a heading', () => {
    expect(headingsOf('<h1>Raw HTML</h1>\n')).toEqual([]);
    expect(headingsOf('text with <h2>inline</h2> html\n')).toEqual([]);
  });

  it('returns no headings for an empty or heading-less body', () => {
    expect(headingsOf('')).toEqual([]);
    expect(headingsOf('just a paragraph\n\n- a list\n')).toEqual([]);
  });

  it('does not apply GFM: a table-like line or ~~x~~ stays literal text', () => {
    expect(textsOf('# a | b ~~c~~\n')).toEqual(['a | b ~~c~~']);
  });
});

describe('heading plain text (openapi.yaml NoteOutline: headings)', () => {
  it('joins formatted siblings with one space, so formatting inside a word inserts a space', () => {
    expect(textsOf('# foo**bar**baz\n')).toEqual(['foo bar baz']);
    expect(textsOf('# *em* and __strong__\n')).toEqual(['em and strong']);
  });

  it('keeps inline HTML values, each tag as its own sibling', () => {
    expect(textsOf('# a <b>bold</b> c\n')).toEqual(['a <b> bold </b> c']);
    expect(textsOf('# <script>alert(1)</script>\n')).toEqual(['<script> alert(1) </script>']);
  });

  it('keeps inline code values', () => {
    expect(textsOf('## Agenda **items** `code`\n')).toEqual(['Agenda items code']);
  });

  it('uses image alt text, never the image URL', () => {
    expect(textsOf('### Deep ![alt text](x.png) dive\n')).toEqual(['Deep alt text dive']);
    expect(textsOf('[logo]: logo.png\n\n# ![Logo][logo] home\n')).toEqual(['Logo home']);
  });

  it('uses link text, never the destination or title', () => {
    expect(textsOf('# see [the docs](https://example.com/secret "Title")\n')).toEqual(['see the docs']);
  });

  it('leaves GFM strikethrough literal, and drops an image with empty alt', () => {
    expect(headingsOf('## ~~strike~~ [link](u) ![](i.png)\n')).toEqual([
      { level: 2, text: '~~strike~~ link', id: 'h2-strike-link-0001' },
    ]);
  });

  it('turns hard line breaks in Setext headings into a single space', () => {
    expect(textsOf('foo  \nbar\n===\n')).toEqual(['foo bar']);
    expect(textsOf('foo\\\nbar\n---\n')).toEqual(['foo bar']);
  });

  it('resolves backslash escapes and character references', () => {
    expect(textsOf('# \\# x\n')).toEqual(['# x']);
    expect(textsOf('# a\\*b\\*\n')).toEqual(['a*b*']);
    expect(textsOf('# AT&amp;T &copy;\n')).toEqual(['AT&T ©']);
  });
});

describe('heading text normalization (openapi.yaml NoteOutline: headings)', () => {
  it('applies Unicode NFC', () => {
    const [heading] = headingsOf('# Cafe\u0301\n');
    expect(heading.text).toBe('Caf\u00e9');
    // The slug is computed from the NFC text: a precomposed é is one code unit, hence one dash.
    expect(heading.id).toBe('h1-caf-0001');
  });

  it('NFC maps KELVIN SIGN to K in the text; the id slugs KK İ to kk-i', () => {
    expect(headingsOf('# \u212AK \u0130 😀 é\n')).toEqual([{ level: 1, text: 'KK \u0130 😀 é', id: 'h1-kk-i-0001' }]);
  });

  it('folds every JavaScript whitespace run (tab, NBSP, U+FEFF, U+2028) into one space and trims', () => {
    expect(textsOf('# a\tb\n')).toEqual(['a b']);
    expect(textsOf('# a\u00a0\u00a0b\u00a0\n')).toEqual(['a b']);
    expect(textsOf('# a\ufeffb\n')).toEqual(['a b']);
    expect(textsOf('# a\u2028b\u3000c\n')).toEqual(['a b c']);
    expect(textsOf('# x &nbsp;\n')).toEqual(['x']);
  });

  it('gives an empty heading the empty text', () => {
    expect(headingsOf('#\n')).toEqual([{ level: 1, text: '', id: 'h1-heading-0001' }]);
    expect(headingsOf('## ##\n')).toEqual([{ level: 2, text: '', id: 'h2-heading-0001' }]);
  });
});

describe('heading ids (openapi.yaml NoteOutline: caps and ids)', () => {
  it('is h<level>-<slug>-<ordinal> with a 4-digit, 1-based ordinal', () => {
    expect(idsOf('# Weekly Sync\n')).toEqual(['h1-weekly-sync-0001']);
  });

  it('numbers headings globally across levels, in document order', () => {
    expect(idsOf('# A\n## B\n### C\n# D\n')).toEqual(['h1-a-0001', 'h2-b-0002', 'h3-c-0003', 'h1-d-0004']);
  });

  it('distinguishes duplicate headings only by ordinal', () => {
    expect(idsOf('## Install\n\n## Install\n')).toEqual(['h2-install-0001', 'h2-install-0002']);
  });

  it('falls back to "heading" when the slug is empty', () => {
    expect(idsOf('# intro\n## 日本語\n')).toEqual(['h1-intro-0001', 'h2-heading-0002']);
    expect(idsOf('# a\n# b\n#\n')).toEqual(['h1-a-0001', 'h1-b-0002', 'h1-heading-0003']);
    expect(idsOf('### 😀\n')).toEqual(['h3-heading-0001']);
  });

  it('pads ordinals beyond 9 and 99 to four digits', () => {
    const body = Array.from({ length: 120 }, (_, i) => `## s${i + 1}`).join('\n');
    const ids = idsOf(body);
    expect(ids[8]).toBe('h2-s9-0009');
    expect(ids[9]).toBe('h2-s10-0010');
    expect(ids[99]).toBe('h2-s100-0100');
    expect(ids[119]).toBe('h2-s120-0120');
  });
});

describe('frontmatter inside the body is Markdown (docs/ARCHITECTURE.md: wire frontmatter)', () => {
  it('parses a leading YAML block as a thematic break plus a Setext level-2 heading', () => {
    const outline = buildContract('note_outline', 'a/fm-in-body.md', {}, '---\ntitle: X\n---\n# H\ntext');
    expect(outline.headings).toEqual([
      { level: 2, text: 'title: X', id: 'h2-title-x-0001' },
      { level: 1, text: 'H', id: 'h1-h-0002' },
    ]);
    // The body's YAML never feeds the title.
    expect(outline.title).toBe('fm in body');
  });
});

describe('outline path and shape (openapi.yaml NoteOutline)', () => {
  it('returns the builder-normalized path', () => {
    expect(buildContract('note_outline', '  notes//a/./b.md ', {}, '').path).toBe('notes/a/./b.md');
  });

  it('is a body-free object with exactly the contract keys', () => {
    const outline = buildContract('note_outline', 'x.md', {}, 'secret paragraph\n\n# H\n');
    expect(Object.keys(outline)).toEqual(['schema', 'path', 'title', 'headings', 'truncated']);
    expect(outline.schema).toBe('knowtation.note_outline/v1');
    expect(outline.truncated).toBe(false);
    expect(JSON.stringify(outline)).not.toContain('secret');
  });
});
