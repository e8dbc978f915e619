import { describe, expect, it } from 'vitest';
import { decodeWireFrontmatter } from '../../../src/contracts';

describe('decodeWireFrontmatter (REFERENCE-CONTRACTS 1.4)', () => {
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

  // Suspected defect: the hosted MCP reference decoder (parseCanisterFrontmatter) re-parses string
  // results at any depth, and this decoder documents that it recovers whatever either reference
  // decoder recovers; it stops after 8 rounds, so 9+ layers give {} (title falls back to the stem).
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
});
