import { describe, expect, it } from 'vitest';
import { normalizeSlug } from '../../../src/contracts';

describe('normalizeSlug (REFERENCE-CONTRACTS 1.2)', () => {
  it('lower-cases and replaces every non [a-z0-9-] code unit with one collapsed dash', () => {
    expect(normalizeSlug('Hello World')).toBe('hello-world');
    expect(normalizeSlug('A_B.C/D')).toBe('a-b-c-d');
    expect(normalizeSlug('Chain #7')).toBe('chain-7');
    expect(normalizeSlug('a   ---   b')).toBe('a-b');
  });

  it('removes one leading and one trailing dash after collapsing', () => {
    expect(normalizeSlug('--a--')).toBe('a');
    expect(normalizeSlug('  (x)  ')).toBe('x');
    expect(normalizeSlug('---')).toBe('');
    expect(normalizeSlug('-')).toBe('');
  });

  it('uses full JavaScript lower-casing: KELVIN SIGN U+212A becomes ASCII k', () => {
    expect(normalizeSlug('\u212A')).toBe('k');
    expect(normalizeSlug('\u212Aelvin')).toBe('kelvin');
  });

  it('lower-cases dotted capital I to i + U+0307, whose combining mark becomes a dash', () => {
    expect(normalizeSlug('\u0130')).toBe('i');
    expect(normalizeSlug('\u0130x')).toBe('i-x');
  });

  it('does not transliterate: é and astral characters become dashes', () => {
    expect(normalizeSlug('é')).toBe('');
    expect(normalizeSlug('Café déjà vu')).toBe('caf-d-j-vu');
    expect(normalizeSlug('a😀b')).toBe('a-b');
    expect(normalizeSlug('a\u0065\u0301b')).toBe('ae-b');
  });

  it('slugs an all-non-ASCII string to the empty string', () => {
    expect(normalizeSlug('日本語')).toBe('');
    expect(normalizeSlug('😀😀')).toBe('');
    expect(normalizeSlug('éàü')).toBe('');
  });

  it('the combined example: KK İ 😀 é slugs to kk-i', () => {
    expect(normalizeSlug('\u212AK \u0130 😀 é')).toBe('kk-i');
  });

  it('keeps digits and existing dashes', () => {
    expect(normalizeSlug('2026-05-24')).toBe('2026-05-24');
    expect(normalizeSlug('v1.2.3')).toBe('v1-2-3');
  });

  it('returns empty for non-strings', () => {
    expect(normalizeSlug(42)).toBe('');
    expect(normalizeSlug(null)).toBe('');
    expect(normalizeSlug(undefined)).toBe('');
    expect(normalizeSlug(['a'])).toBe('');
  });
});
