import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeNfc, normalizeNfcKeeping } from '../src/normalize-nfc';

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
  it('equals the engine when long class groups are cut short (every cut, and the start-over path)', () => {
    // keepUnits 1 and 2 cut nearly every group, so a group whose kept marks all compose (the
    // start-over path) and astral marks at the cut are common.
    fc.assert(
      fc.property(text, fc.constantFrom(1, 2, 3, 5, 16), (value, keepUnits) => {
        expect(normalizeNfcKeeping(value, keepUnits)).toBe(value.normalize('NFC'));
      }),
      { seed: 5150, numRuns: 2000 },
    );
  });

  it('equals the engine on long runs whose marks compose in chains, in varied orders', () => {
    // Chains: u+0308+0304 (two marks of one class), alpha+0313+0301+0345, e+0327+0306, o+031B+0323.
    const starters = ['u', 'U', 'α', 'e', 'o', 'a', 'ω', '\u1100', '가', '\u{1D157}', '\u{11131}', '\u{11099}'];
    const marks = ['\u0308', '\u0304', '\u0313', '\u0301', '\u0345', '\u0327', '\u0306', '\u031B', '\u0323', '\u0300', '\u{1D165}', '\u{11127}', '\u{110BA}', '\u05B0'];
    const run = fc
      .tuple(fc.constantFrom(...starters), fc.array(fc.constantFrom(...marks), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 80 }), fc.boolean())
      .map(([starter, unit, times, shuffled]) => {
        const body = unit.join('').repeat(times);
        return starter + (shuffled ? Array.from(body).reverse().join('') : body);
      });
    fc.assert(
      fc.property(fc.array(fc.oneof(run, fc.constantFrom(...OTHERS)), { minLength: 1, maxLength: 6 }), fc.constantFrom(1, 2, 4, 16), (parts, keepUnits) => {
        const value = parts.join('');
        expect(normalizeNfcKeeping(value, keepUnits)).toBe(value.normalize('NFC'));
        expect(normalizeNfc(value)).toBe(value.normalize('NFC'));
      }),
      { seed: 31337, numRuns: 1500 },
    );
  });

  it('equals the engine around long runs: Hangul, lone surrogates, BOM, CJK and astral starters', () => {
    const cases = [
      '\u1100' + '\u0301\u0316'.repeat(40) + '\u1161\u11A8',
      '가' + '\u0316\u0301'.repeat(40) + '\u11A8',
      '\u1100\u1161' + '\u0301'.repeat(40),
      '\uFEFF' + '\u0301\u0316'.repeat(40),
      'a\uFEFF' + '\u0301\u0316'.repeat(40) + '\uFEFF',
      '\uDC00' + '\u0301\u0316'.repeat(40),
      '\u0301\u0316'.repeat(40) + '\uD800',
      '\uD800\uD800' + '\u0316\u0301'.repeat(40) + '\uDC00\uDC00',
      '\u{20000}'.repeat(100) + '\u0301\u0316'.repeat(40) + '\u{20001}\u1161',
      '\u{1D15E}\u{1D165}'.repeat(60) + '\u{1D16E}\u0334'.repeat(30),
      '\u{11131}' + '\u{11127}'.repeat(50) + 'x',
      'ǖ' + '\u0304\u0308'.repeat(50),
      'ᾅ' + '\u0345\u0314\u0301'.repeat(50),
      '\u0F73\u0F71\u0F72\u0F75\u0F81'.repeat(50),
    ];
    for (const value of cases)
      for (const keepUnits of [1, 2, 3, 16, 1000]) expect(normalizeNfcKeeping(value, keepUnits), JSON.stringify(value.slice(0, 8))).toBe(value.normalize('NFC'));
  });

  it('leaves every string below U+0300 as it is (every code point and every pair is NFC)', () => {
    const chars: string[] = [];
    for (let code = 0; code < 0x300; code++) chars.push(String.fromCharCode(code));
    for (const a of chars) {
      expect(a.normalize('NFC')).toBe(a);
      for (const b of chars) if ((a + b).normalize('NFC') !== a + b) expect.fail(`U+${a.charCodeAt(0).toString(16)} U+${b.charCodeAt(0).toString(16)}`);
    }
    const value = chars.join('').repeat(3);
    expect(normalizeNfc(value)).toBe(value);
  });

});
