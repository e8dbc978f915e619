import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeSlug } from '../../../src/contracts';
import { SHORT_SLUG_UNITS, asciiBytesOf } from '../../../src/contracts/slug';

describe('normalizeSlug (openapi.yaml NoteOutline: heading ids)', () => {
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

  it('equals lower-casing then the reference regexes, for any UTF-16 code units (no lower-cased copy is made)', () => {
    const reference = (value: string): string =>
      value.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/-+/g, '-').replace(/^-/, '').replace(/-$/, '');
    const unit = fc.oneof(
      fc.constantFrom('A', 'z', '0', '9', '-', ' ', '\u0130', '\u212A', 'Σ', 'é', '😀', '\ud800', 'ǅ', 'ß', '_'),
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    );
    // Both builders: short values append to a string, longer ones go through a byte buffer.
    const lengths = new Set<boolean>();
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 3 * SHORT_SLUG_UNITS, size: 'max' }).map((units) => units.join('')), (value) => {
        lengths.add(value.length <= SHORT_SLUG_UNITS);
        expect(normalizeSlug(value)).toBe(reference(value));
      }),
      { seed: 7, numRuns: 3000 },
    );
    expect([...lengths].sort()).toEqual([false, true]);
    for (let code = 0x80; code <= 0x10ffff; code += code < 0x10000 ? 1 : 97) {
      const value = `a${String.fromCodePoint(code)}B`;
      expect(normalizeSlug(value), code.toString(16)).toBe(reference(value));
    }
  });

  it('long ASCII values (slugged over their bytes in place) and long values with one non-ASCII unit anywhere equal the reference', () => {
    const reference = (value: string): string =>
      value.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/-+/g, '-').replace(/^-/, '').replace(/-$/, '');
    const ascii = fc.oneof(
      fc.constantFrom('A', 'z', '0', '-', ' ', '_', '[', '(', '\t', '\0', '\x7f'),
      fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
    );
    const odd = fc.constantFrom('\u0130', '\u212A', 'é', '😀', '\ud800', '\u0080', 'K');
    fc.assert(
      fc.property(
        fc.array(ascii, { minLength: SHORT_SLUG_UNITS + 1, maxLength: 6 * SHORT_SLUG_UNITS }).map((units) => units.join('')),
        fc.option(fc.tuple(fc.nat(), odd), { nil: null }),
        (base, insert) => {
          const value = insert === null ? base : base.slice(0, insert[0] % (base.length + 1)) + insert[1] + base.slice(insert[0] % (base.length + 1));
          expect(normalizeSlug(value)).toBe(reference(value));
        },
      ),
      { seed: 11, numRuns: 3000 },
    );
  });

  it('returns empty for non-strings', () => {
    expect(normalizeSlug(42)).toBe('');
    expect(normalizeSlug(null)).toBe('');
    expect(normalizeSlug(undefined)).toBe('');
    expect(normalizeSlug(['a'])).toBe('');
  });
});

describe('asciiBytesOf', () => {
  it('gives one byte per unit exactly when every unit is ASCII', () => {
    const unit = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.constantFrom(0x80, 0xe9, 0x130, 0x212a, 0xd800, 0xdc00, 0xfeff, 0xffff));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 300 }), (list) => {
        const text = list.map((code) => String.fromCharCode(code)).join('');
        const bytes = asciiBytesOf(text);
        if (list.every((code) => code < 0x80)) expect(bytes === null ? null : [...bytes]).toEqual(list);
        else expect(bytes).toBeNull();
      }),
      { seed: 13, numRuns: 3000 },
    );
  });
});
