import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeHeadingText } from '../../../src/contracts/analysis/heading-text';
import { normalizeHeadingText as oracle } from '../../../src/contracts/markdown';
import { unitsToString } from '../../../src/contracts/analysis/utf16-units';

const PIECES = [
  'a', 'é', 'e\u0301', ' ', '  ', '\t', '\n', '\u00A0', '\u2003', '\u3000', '\uFEFF', '\u2028', '\u1680', '\u180E',
  '\u200B', '\uD800', '\uDC00', '😀', '中', 'x y', '\u0301\u0316'.repeat(20), '\u0085',
];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((parts) => parts.join(''));

/** A lone surrogate (String.prototype.isWellFormed is ES2024, past this project's ES2022 lib). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('normalizeHeadingText', () => {
  it('equals the oracle (NFC, \\s+ folded to one space, trimmed) on generated text (fixed seed)', () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(normalizeHeadingText(value)).toBe(oracle(value));
      }),
      { seed: 4242, numRuns: 3000 },
    );
  });

  it('equals the oracle on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (value) => {
        expect(normalizeHeadingText(value)).toBe(oracle(value));
      }),
      { seed: 99, numRuns: 1000 },
    );
  });

  it('equals the oracle on long headings, folded or not', () => {
    const cases = [
      'a_ '.repeat(30000),
      ' a  a '.repeat(30000),
      ' lead and trail ',
      ' ',
      '',
      'e' + '\u0301\u0327\u0323'.repeat(2000),
      ' é\u3000x\uD800 y '.repeat(10000),
      'ascii\twith\ttabs '.repeat(10000),
    ];
    for (const value of cases) expect(normalizeHeadingText(value)).toBe(oracle(value));
  });
});

describe('unitsToString', () => {
  it('reads the units one by one for every kind it is told truthfully', () => {
    const units = fc.array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0, max: 0xffff })), { maxLength: 20000 });
    fc.assert(
      fc.property(units, (list) => {
        const array = Uint16Array.from(list);
        const expected = list.map((unit) => String.fromCharCode(unit)).join('');
        expect(unitsToString(array, 0, array.length, 'any')).toBe(expected);
        if (!LONE_SURROGATE.test(expected)) expect(unitsToString(array, 0, array.length, 'well-formed')).toBe(expected);
        if (list.every((unit) => unit < 0x80)) expect(unitsToString(array, 0, array.length, 'ascii')).toBe(expected);
      }),
      { seed: 11, numRuns: 300 },
    );
    const bom = Uint16Array.from([0xfeff, 0x61, 0xfeff]);
    expect(unitsToString(bom, 0, 3, 'well-formed')).toBe('\uFEFFa\uFEFF');
    expect(unitsToString(Uint16Array.from([0x61, 0x62, 0x63]), 1, 3, 'ascii')).toBe('bc');
  });
});
