/**
 * The inline pass decodes numeric character references itself, from the
 * digits as it reads them; micromark decodes them with
 * micromark-util-decode-numeric-character-reference (kept as a dev
 * dependency for this comparison). Every code point, in decimal and in hex,
 * plus values past U+10FFFF up to the digit caps, must decode alike.
 */
import { describe, expect, it } from 'vitest';
import { decodeNumericCharacterReference } from 'micromark-util-decode-numeric-character-reference';
import { scanCharacterReference as scanInto } from '../src/character-references';

const scanCharacterReference = (source: string, p: number) => scanInto(source, p, { end: 0, value: '' });

describe('numeric character references', () => {
  it('decode as micromark decodes them, for every code point and past U+10FFFF', () => {
    const mismatches: string[] = [];
    const check = (digits: string, base: 10 | 16): void => {
      const source = base === 16 ? `&#x${digits};` : `&#${digits};`;
      const read = scanCharacterReference(source, 0);
      const expected = decodeNumericCharacterReference(digits, base);
      if (read === null || read.end !== source.length || read.value !== expected) mismatches.push(source);
    };
    for (let code = 0; code <= 0x110100; code++) {
      check(String(code), 10);
      check(code.toString(16), 16);
      if (mismatches.length > 5) break;
    }
    for (const code of [0x10ffff, 0x110000, 0xfffff0, 0xffffff, 9_999_999, 1_114_112]) {
      if (String(code).length <= 7) check(String(code), 10);
      if (code.toString(16).length <= 6) check(code.toString(16).toUpperCase(), 16);
    }
    expect(mismatches).toEqual([]);
  });

  it('refuse more digits than micromark reads (7 decimal, 6 hex)', () => {
    expect(scanCharacterReference('&#12345678;', 0)).toBeNull();
    expect(scanCharacterReference('&#x1234567;', 0)).toBeNull();
    expect(scanCharacterReference('&#1234567;', 0)?.value).toBe('\uFFFD');
  });
});
