import { describe, expect, it } from 'vitest';
import { decodeWireFrontmatter } from '../../../src/contracts';
import { decodeAsHostedMcp, decodeAsHostedRest } from '../../../src/contracts/frontmatter';

describe('decodeWireFrontmatter (docs/ARCHITECTURE.md: wire frontmatter)', () => {
  it('parses object JSON text', () => {
    expect(decodeWireFrontmatter('{"title":"X","tags":["a"]}')).toEqual({ title: 'X', tags: ['a'] });
    expect(decodeWireFrontmatter('  {"title":"X"}\n')).toEqual({ title: 'X' });
  });

  it('unwraps double- and triple-encoded JSON strings', () => {
    const once = JSON.stringify({ title: 'X' });
    expect(decodeWireFrontmatter(JSON.stringify(once))).toEqual({ title: 'X' });
    expect(decodeWireFrontmatter(JSON.stringify(JSON.stringify(once)))).toEqual({ title: 'X' });
  });

  it('unwraps string layers up to the REST decoder\'s 8 rounds', () => {
    let wire = JSON.stringify({ title: 'X' });
    for (let wraps = 0; wraps < 7; wraps += 1) wire = JSON.stringify(wire);
    expect(decodeWireFrontmatter(wire)).toEqual({ title: 'X' });
  });

  it('unwraps deeper string layers, as the hosted MCP decoder does (any depth)', () => {
    let wire = JSON.stringify({ title: 'X' });
    for (let wraps = 0; wraps < 8; wraps += 1) wire = JSON.stringify(wire);
    expect(decodeWireFrontmatter(wire)).toEqual({ title: 'X' });
  });

  it('recovers text whose quotes arrive backslash-escaped', () => {
    expect(decodeWireFrontmatter('{\\"title\\":\\"X\\"}')).toEqual({ title: 'X' });
  });

  it('strips a leading byte-order mark', () => {
    expect(decodeWireFrontmatter('\uFEFF{"title":"X"}')).toEqual({ title: 'X' });
    expect(decodeWireFrontmatter(JSON.stringify('\uFEFF{"title":"X"}'))).toEqual({ title: 'X' });
  });

  it('decodes empty, blank and "{}" to an empty object', () => {
    expect(decodeWireFrontmatter('')).toEqual({});
    expect(decodeWireFrontmatter('   ')).toEqual({});
    expect(decodeWireFrontmatter('{}')).toEqual({});
  });

  it('decodes JSON that is not an object to an empty object', () => {
    for (const text of ['[1,2]', '[{"title":"X"}]', '42', 'null', 'true', '"plain string"', '""']) {
      expect(decodeWireFrontmatter(text)).toEqual({});
    }
  });

  it('decodes text that is not JSON to an empty object', () => {
    expect(decodeWireFrontmatter('title: X')).toEqual({});
    expect(decodeWireFrontmatter('{"title":')).toEqual({});
    expect(decodeWireFrontmatter('"unterminated')).toEqual({});
  });

  it('passes a plain object through unchanged', () => {
    const frontmatter = { title: 'X' };
    expect(decodeWireFrontmatter(frontmatter)).toBe(frontmatter);
  });

  it('decodes non-string, non-object values to an empty object', () => {
    for (const value of [null, undefined, 42, true, ['title'], [{ title: 'X' }]]) {
      expect(decodeWireFrontmatter(value)).toEqual({});
    }
  });

  it('keeps only what JSON.parse produced: no prototype pollution through __proto__', () => {
    const decoded = decodeWireFrontmatter('{"__proto__":{"polluted":true},"title":"X"}');
    expect(decoded.title).toBe('X');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  describe('the union of the two references', () => {
    const X = { title: 'X' };
    let eightWraps = JSON.stringify(X);
    for (let wraps = 0; wraps < 8; wraps += 1) eightWraps = JSON.stringify(eightWraps);
    let sevenWraps = JSON.stringify(X);
    for (let wraps = 0; wraps < 7; wraps += 1) sevenWraps = JSON.stringify(sevenWraps);

    // Each row: raw wire text, what the MCP reference recovers, what the REST reference recovers,
    // derived by hand from docs/ARCHITECTURE.md: wire frontmatter (null: that reference falls back to {}).
    const rows: Array<[string, string, Record<string, unknown> | null, Record<string, unknown> | null]> = [
      ['object JSON text', '{"title":"X"}', X, X],
      ['one string layer', '"{\\"title\\":\\"X\\"}"', X, X],
      ['seven string layers', sevenWraps, X, X],
      ['eight string layers (past REST\'s 8 rounds)', eightWraps, X, null],
      ['escaped quotes, top level (the 1.4 example)', '{\\"title\\":\\"Escaped\\"}', { title: 'Escaped' }, null],
      ['escaped quotes inside a string layer (the issue example)', '"{\\\\\\"title\\\\\\":\\\\\\"Escaped\\\\\\"}"', null, null],
      ['escaped quotes that repair into a string layer', '"{\\\\"title\\\\":\\\\"Y\\\\"}"', { title: 'Y' }, null],
      ['a string layer whose content needs the repair twice', JSON.stringify(JSON.stringify('{\\"title\\":\\"Z\\"}')), null, null],
      ['exactly {}', '{}', null, {}],
      ['BOM then object', '\uFEFF{"title":"X"}', X, X],
      ['array', '[{"title":"X"}]', null, null],
      ['quoted at both ends, not JSON (MCP throws: a tool error, no object)', '"a"b"', null, null],
      ['unterminated string', '"unterminated', null, null],
      ['plain text', 'title: X', null, null],
      ['string layer of plain text', '"title: X"', null, null],
    ];

    it.each(rows)('%s', (_name, wire, mcp, rest) => {
      expect(decodeAsHostedMcp(wire)).toEqual(mcp);
      expect(decodeAsHostedRest(wire)).toEqual(rest);
      expect(decodeWireFrontmatter(wire)).toEqual(mcp ?? rest ?? {});
    });

    it('the issue example gives the path-stem title, as both references do', () => {
      const wire = '"{\\\\\\"title\\\\\\":\\\\\\"Escaped\\\\\\"}"';
      expect(wire).toBe(String.raw`"{\\\"title\\\":\\\"Escaped\\\"}"`);
      expect(decodeWireFrontmatter(wire)).toEqual({});
    });
  });
});
