import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeNfc } from '../../../src/contracts/analysis/normalize-nfc';

// Marks of many combining classes (BMP and astral), precomposed letters whose decompositions
// end in marks, singleton and non-starter decompositions, Hangul syllables and jamo, starters.
const MARKS = [
  '\u0301', '\u0300', '\u0316', '\u0323', '\u0327', '\u0328', '\u0334', '\u0345', '\u035C', '\u035D', '\u0308',
  '\u093C', '\u094D', '\u05B0', '\u05BD', '\u0E38', '\u0F71', '\u0F72', '\u0F80', '\u1DCE', '\u20D2', '\u302A',
  '\u302E', '\u3099', '\u309A', '\u{1D165}', '\u{1D167}', '\u{1D16E}', '\u{101FD}', '\u{1E8D0}', '\u{11133}',
];
const OTHERS = [
  'a', 'e', 'o', 'A', 'é', 'ạ', 'ǖ', '\u0344', '\u0F73', '\u0F75', '\u0F81', '\u0340', '\u0341', '\u0343', '\u0374',
  '\u1E0B', '\u212B', '\u2126', '가', '각', '\u1100', '\u1161', '\u11A8', '中', 'か', '\u{1D15E}', '\u{1D160}', 'ß',
  ' ', '\uD800', '\uDC00', '😀', '\u00A8', '\u0958', '\uFB1D',
];

const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...MARKS) },
  { weight: 2, arbitrary: fc.constantFrom(...OTHERS) },
  // Long runs: the shape the engine handles in quadratic time.
  { weight: 1, arbitrary: fc.tuple(fc.array(fc.constantFrom(...MARKS), { minLength: 1, maxLength: 4 }), fc.integer({ min: 8, max: 60 })).map(([marks, times]) => marks.join('').repeat(times)) },
);
const text = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));

describe('normalizeNfc', () => {
  it('equals String.prototype.normalize("NFC") on generated text (fixed seed)', () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(normalizeNfc(value)).toBe(value.normalize('NFC'));
      }),
      { seed: 20261122, numRuns: 3000 },
    );
  });

  it('equals the engine on arbitrary Unicode strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (value) => {
        expect(normalizeNfc(value)).toBe(value.normalize('NFC'));
      }),
      { seed: 7, numRuns: 800 },
    );
  });

  it('equals the engine on long out-of-order runs, Hangul and astral marks', () => {
    const cases = [
      'a' + '\u0301\u0316'.repeat(2000),
      'é' + '\u0316\u0301\u0345\u0334'.repeat(500),
      '\u1100\u1161\u11A8'.repeat(300) + '가'.repeat(300) + '\u0301'.repeat(40),
      'x' + '\u{1D165}\u0334\u{101FD}\u0345\u{1D167}'.repeat(400),
      '\u0344\u0F73\u0F75\u0F81'.repeat(300),
      '\u{1D160}\u{1D165}'.repeat(200) + 'a',
      '\u0301'.repeat(3000),
      '中'.repeat(1000) + '\u0316\u0301'.repeat(50) + '中',
      '\uD800' + '\u0301\u0316'.repeat(100) + '\uDC00' + '\u0316\u0301'.repeat(100),
    ];
    for (const value of cases) expect(normalizeNfc(value)).toBe(value.normalize('NFC'));
  });

  it('returns short and mark-free text unchanged in meaning', () => {
    for (const value of ['', 'plain ascii', 'e\u0301', 'Å', 'ﬁ']) expect(normalizeNfc(value)).toBe(value.normalize('NFC'));
  });
});
