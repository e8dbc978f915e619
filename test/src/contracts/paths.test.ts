import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildContract,
  CONTRACT_NAMES,
  normalizeFacetPath,
  normalizeHostedPath,
  normalizeOutlinePath,
  normalizeTreePath,
  type Frontmatter,
} from '../../../src/contracts';
import { expectInvalidPath } from './expect-contract-error';

const NON_STRINGS: unknown[] = [undefined, null, 42, {}, ['a.md']];

describe('normalizeOutlinePath (openapi.yaml: the path each payload names)', () => {
  it('equals split, drop empty segments, refuse "..", join, for any mix of segments and slashes', () => {
    const reference = (raw: string): string | 'InvalidPath' => {
      const forward = raw.trim().replace(/\\/g, '/');
      if (raw.trim() === '' || raw.startsWith('/') || /^[A-Za-z]:\//.test(forward)) return 'InvalidPath';
      const parts = forward.split('/').filter(Boolean);
      return parts.includes('..') ? 'InvalidPath' : parts.join('/');
    };
    const actual = (raw: string): string | 'InvalidPath' => {
      try {
        return normalizeOutlinePath(raw);
      } catch {
        return 'InvalidPath';
      }
    };
    const piece = fc.constantFrom('a', 'b.md', '.', '..', '...', 'a..b', '/', '//', '\\', ' ', 'C:', 'x');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join('')), (raw) => {
        expect(actual(raw)).toBe(reference(raw));
      }),
      { seed: 11, numRuns: 5000 },
    );
  });

  it('drops empty segments and keeps "." segments', () => {
    expect(normalizeOutlinePath('a/b.md')).toBe('a/b.md');
    expect(normalizeOutlinePath('a//b/')).toBe('a/b');
    expect(normalizeOutlinePath('a/./b.md')).toBe('a/./b.md');
    expect(normalizeOutlinePath('.')).toBe('.');
  });

  it('trims and converts backslashes', () => {
    expect(normalizeOutlinePath('  a/b.md  ')).toBe('a/b.md');
    expect(normalizeOutlinePath('a\\b\\c.md')).toBe('a/b/c.md');
  });

  it('accepts " /etc/x.md" and "\\Users\\owner\\secret.md" (absolute check runs on the raw input)', () => {
    expect(normalizeOutlinePath(' /etc/x.md')).toBe('etc/x.md');
    expect(normalizeOutlinePath('\\Users\\owner\\secret.md')).toBe('Users/owner/secret.md');
  });

  it('rejects absolute, drive-letter and parent-escaping paths', () => {
    for (const raw of ['/etc/x.md', '/', 'C:/x.md', 'c:\\x.md', ' D:/x', '..', '../x.md', 'a/../b.md', 'a/..', '\\..\\x']) {
      expectInvalidPath(() => normalizeOutlinePath(raw));
    }
  });

  it('rejects empty, blank and non-string paths', () => {
    for (const raw of ['', '   ', '\t\n', ...NON_STRINGS]) expectInvalidPath(() => normalizeOutlinePath(raw));
  });

  it('keeps ".." inside a segment name', () => {
    expect(normalizeOutlinePath('a/..b/c...md')).toBe('a/..b/c...md');
  });
});

describe('normalizeTreePath (openapi.yaml: the path each payload names)', () => {
  it('applies the outline rule to relative paths', () => {
    expect(normalizeTreePath(' a//b/./c.md ')).toBe('a/b/./c.md');
    expect(normalizeTreePath('a\\b.md')).toBe('a/b.md');
  });

  it('also rejects paths that are absolute once trimmed or slash-converted', () => {
    expectInvalidPath(() => normalizeTreePath(' /etc/x.md'));
    expectInvalidPath(() => normalizeTreePath('\\Users\\owner\\secret.md'));
  });

  it('rejects everything the outline rule rejects', () => {
    for (const raw of ['/x', 'C:/x', '..', 'a/../b', '', '  ', ...NON_STRINGS]) expectInvalidPath(() => normalizeTreePath(raw));
  });
});

describe('normalizeHostedPath (the path rule, docs/ARCHITECTURE.md)', () => {
  it('trims, converts backslashes, drops empty segments and keeps "." segments', () => {
    expect(normalizeHostedPath(' inbox\\x.md ')).toBe('inbox/x.md');
    expect(normalizeHostedPath('inbox//./x.md')).toBe('inbox/./x.md');
    expect(normalizeHostedPath('a/b/')).toBe('a/b');
  });

  it('rejects a leading slash (raw, trimmed or backslash), drive letters and ".." segments', () => {
    for (const raw of ['/x.md', ' /x.md', '\\x.md', '//server/share', 'C:/x', 'C:\\x', 'z:/', '..', 'a/../b', 'a\\..\\b']) {
      expectInvalidPath(() => normalizeHostedPath(raw));
    }
  });

  it('rejects empty, blank and non-string paths', () => {
    for (const raw of ['', ' ', ...NON_STRINGS]) expectInvalidPath(() => normalizeHostedPath(raw));
  });

  it('does not reject NUL bytes (the facet rule does that later)', () => {
    expect(normalizeHostedPath('a\0b.md')).toBe('a\0b.md');
  });
});

describe('normalizeFacetPath (openapi.yaml: the path each payload names)', () => {
  it('POSIX-normalizes: removes "." and empty segments, resolves "a/../b"', () => {
    expect(normalizeFacetPath('inbox/./x.md')).toBe('inbox/x.md');
    expect(normalizeFacetPath('./x.md')).toBe('x.md');
    expect(normalizeFacetPath('a//b.md')).toBe('a/b.md');
    expect(normalizeFacetPath('a/../b')).toBe('b');
    expect(normalizeFacetPath('a/b/../../c.md')).toBe('c.md');
    expect(normalizeFacetPath('a\\b.md')).toBe('a/b.md');
  });

  it('does not trim', () => {
    expect(normalizeFacetPath(' a.md')).toBe(' a.md');
  });

  it('rejects NUL, ".", "..", escapes, absolute, UNC and drive-letter forms', () => {
    for (const raw of ['a\0b.md', '.', '..', 'a/..', '../x', 'a/../../x', '/x', '//x', '\\\\server\\x', '\\x', 'C:/x', 'C:\\x']) {
      expectInvalidPath(() => normalizeFacetPath(raw));
    }
  });

  it('rejects empty, blank and non-string paths', () => {
    for (const raw of ['', '  ', ...NON_STRINGS]) expectInvalidPath(() => normalizeFacetPath(raw));
  });
});

describe('builders reject invalid paths with an error that never echoes the input', () => {
  const SECRET_PATH = '/home/owner/secret-diary.md';
  for (const name of CONTRACT_NAMES) {
    const build = (path: string, frontmatter: Frontmatter, body: string) => buildContract(name, path, frontmatter, body);
    it(`${name} rejects absolute and escaping paths`, () => {
      for (const raw of [SECRET_PATH, 'C:/secret.md', '../secret.md', '', '   ']) {
        expectInvalidPath(() => build(raw, {}, '# x\n'));
      }
      let message = '';
      try {
        build(SECRET_PATH, {}, '');
      } catch (error) {
        message = String(error) + JSON.stringify(error) + String((error as Error).stack);
      }
      expect(message).not.toContain('secret');
    });
  }

  it('document tree and section source reject a path the outline normalizes to empty', () => {
    expect(buildContract('note_outline', '\\', {}, '').path).toBe('');
    expectInvalidPath(() => buildContract('document_tree', '\\', {}, ''));
    expectInvalidPath(() => buildContract('section_source', '\\', {}, ''));
  });
});
