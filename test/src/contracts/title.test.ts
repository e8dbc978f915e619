import { describe, expect, it } from 'vitest';
import { buildContract, decodeWireFrontmatter, type Frontmatter } from '../../../src/contracts';

const titleOf = (path: string, frontmatter: Frontmatter = {}): string | null =>
  buildContract('note_outline', path, frontmatter, '# Heading is never the title\n').title;

describe('title derivation (openapi.yaml NoteOutline: title)', () => {
  it('uses the frontmatter title, trimmed', () => {
    expect(titleOf('inbox/x.md', { title: '  Weekly Sync  ' })).toBe('Weekly Sync');
    expect(titleOf('inbox/x.md', { title: '\t Tabbed \n' })).toBe('Tabbed');
  });

  it('keeps the title as written: no NFC, no slugging', () => {
    expect(titleOf('inbox/x.md', { title: 'Cafe\u0301 & Co.' })).toBe('Cafe\u0301 & Co.');
  });

  it('stringifies non-string titles the way String() does', () => {
    expect(titleOf('inbox/x.md', { title: 42 })).toBe('42');
    expect(titleOf('inbox/x.md', { title: 0 })).toBe('0');
    expect(titleOf('inbox/x.md', { title: ['a', 'b'] })).toBe('a,b');
    expect(titleOf('inbox/x.md', { title: false })).toBe('false');
    expect(titleOf('inbox/x.md', { title: true })).toBe('true');
    expect(titleOf('inbox/x.md', { title: { nested: 'object' } })).toBe('[object Object]');
  });

  it('falls back to the cleaned file stem when the title is missing, null or blank', () => {
    expect(titleOf('inbox/no-fm_note.md')).toBe('no fm note');
    expect(titleOf('inbox/no-fm_note.md', { title: null })).toBe('no fm note');
    expect(titleOf('inbox/no-fm_note.md', { title: '   ' })).toBe('no fm note');
    expect(titleOf('inbox/no-fm_note.md', { title: '' })).toBe('no fm note');
    expect(titleOf('inbox/no-fm_note.md', { title: [] })).toBe('no fm note');
  });

  it('collapses each run of - and _ into one space and trims', () => {
    expect(titleOf('a/--Meeting__notes--2026.md')).toBe('Meeting notes 2026');
    expect(titleOf('a/-_-.md')).toBeNull();
  });

  it('strips .md / .markdown case-insensitively, once, and nothing else', () => {
    expect(titleOf('x/Report.MARKDOWN')).toBe('Report');
    expect(titleOf('x/Report.Md')).toBe('Report');
    expect(titleOf('x/Report.markdown')).toBe('Report');
    expect(titleOf('x/archive.md.md')).toBe('archive.md');
    expect(titleOf('x/plain.txt')).toBe('plain.txt');
    expect(titleOf('x/no-extension')).toBe('no extension');
  });

  it('yields null when the stem is empty', () => {
    expect(titleOf('inbox/.md')).toBeNull();
    expect(titleOf('.markdown')).toBeNull();
  });

  it('derives the stem from the normalized path', () => {
    expect(titleOf('.')).toBe('.');
    expect(titleOf('\\Users\\owner\\my_file.md')).toBe('my file');
    expect(titleOf(' a/b/final-name.md ')).toBe('final name');
  });

  it('ignores frontmatter that is not a plain object', () => {
    expect(titleOf('a/x-y.md', ['title'] as unknown as Frontmatter)).toBe('x y');
  });

  it('reads the title from the decoded wire frontmatter', () => {
    expect(titleOf('a/x.md', decodeWireFrontmatter('{"title":"From Wire"}'))).toBe('From Wire');
    expect(titleOf('a/x.md', decodeWireFrontmatter('{\\"title\\":\\"Escaped\\"}'))).toBe('Escaped');
    expect(titleOf('a/x.md', decodeWireFrontmatter('not json'))).toBe('x');
  });

  it('is the same title for DocumentTree and SectionSource', () => {
    for (const [path, frontmatter] of [
      ['inbox/no-fm_note.md', {}],
      ['inbox/.md', {}],
      ['inbox/x.md', { title: 42 }],
    ] as const) {
      const expected = buildContract('note_outline', path, frontmatter, '').title;
      expect(buildContract('document_tree', path, frontmatter, '').title).toBe(expected);
      expect(buildContract('section_source', path, frontmatter, '').title).toBe(expected);
    }
  });
});
