import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headingTextOf, normalizeHeadingText } from '../src/heading-text';
import { normalizeHeadingText as oracle } from '../dev/oracle';
import { foldedUnitsToString, unitsToString } from '../src/utf16-units';

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

/** The reference fold alone: every \s+ run one space, trimmed (no NFC). */
const foldOnly = (value: string): string => value.replace(/\s+/g, ' ').trim();

describe('headingTextOf: NFC after the fold equals the reference (NFC, then the fold)', () => {
  it('holds for every BMP code unit beside whitespace, marks (a run of 40 too), Hangul jamo and the whitespace singletons', () => {
    const contexts = [
      (u: string) => `${u} \u0301`,
      (u: string) => `e${u}\u0301`,
      (u: string) => `${u}\t${u}`,
      (u: string) => ` ${u}\u0308 `,
      (u: string) => `\u1100${u}\u1161`,
      (u: string) => `\u1100 ${u}\u1161`,
      (u: string) => `${u}\u2000\u0301`,
      (u: string) => `a\u3000${u}\u0327\u0301`,
      // 40 marks out of canonical order: normalizeNfc's own path for long runs.
      (u: string) => `${u}${'\u0301\u0316'.repeat(20)}\t${u}`,
    ];
    let failures = 0;
    for (let code = 0; code <= 0xffff; code++) {
      const unit = String.fromCharCode(code);
      for (const context of contexts) {
        const value = context(unit);
        const folded = foldOnly(value);
        if (headingTextOf({ text: folded, normalized: false, folded: true }) !== oracle(value)) failures++;
      }
    }
    expect(failures).toBe(0);
  });

  it('holds on generated text of whitespace, marks, letters, Hangul and surrogates (fixed seed)', () => {
    const pieces = [...PIECES, '\u2000', '\u2001', '\u1100', '\u1161', '\u11A8', '\uAC00', 'A\u030A', '\u212B', '\u0344', '\u0F73', '\u1E9B\u0323', '\u00A0\u0301'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => parts.join('')), (value) => {
        expect(headingTextOf({ text: foldOnly(value), normalized: false, folded: true })).toBe(oracle(value));
      }),
      { seed: 20261125, numRuns: 5000 },
    );
  });
});

describe('foldedUnitsToString', () => {
  it('equals the reference fold of the units, whatever they hold (folded in place)', () => {
    const unit = fc.oneof(fc.constantFrom(0x20, 0x09, 0x0a, 0xa0, 0x2000, 0x3000, 0xfeff, 0x1680, 0x85, 0x180e, 0xd800, 0xdc00, 0x61, 0xe9), fc.integer({ min: 0, max: 0xffff }));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 200 }), (list) => {
        const expected = foldOnly(list.map((code) => String.fromCharCode(code)).join(''));
        expect(foldedUnitsToString(Uint16Array.from(list), list.length)).toBe(expected);
      }),
      { seed: 12, numRuns: 3000 },
    );
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
