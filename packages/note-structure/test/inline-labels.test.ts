import fc from 'fast-check';
import { normalizeIdentifier } from 'micromark-util-normalize-identifier';
import { describe, expect, it } from 'vitest';
import { LabelLookup, normalizeLabel } from '../src/inline-labels';

/** Whether LabelLookup finds `label` (written between brackets) among the normalized `keys`. */
function looksUp(label: string, keys: readonly string[]): boolean {
  return new LabelLookup(`[${label}]`, new Set(keys.map(normalizeLabel))).defined(1, label.length + 1);
}

describe('LabelLookup (in-place folding, no string built)', () => {
  it('folds every BMP unit above ASCII as toLowerCase().toUpperCase() does', () => {
    const wrong: string[] = [];
    for (let c = 128; c <= 0xffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const label = `a${String.fromCharCode(c)} Z`;
      if (!looksUp(label, [label])) wrong.push(c.toString(16));
      // The folded unit(s) alone, already upper case, must read as the same key.
      const folded = `A${String.fromCharCode(c).toLowerCase().toUpperCase()} Z`;
      if (!looksUp(folded, [label])) wrong.push(`${c.toString(16)} as folded`);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it('answers definitions.has(normalizeIdentifier(label)) for mixed-script labels', () => {
    const unit = fc.constantFrom(
      ...['a', 'B', 's', 'S', 'i', 'I', '~', '\\', ' ', '\t', '\n', '\u00a0', '\u00e9', '\u00c9', 'ß', 'ẞ', 'Σ', 'σ', 'ς', 'İ', 'ı'],
      ...['ǅ', 'ǆ', 'ſ', '\u212a', 'ŉ', 'ΐ', 'ᾳ', 'ﬀ', 'Ω', 'Д', 'д', 'Ա', 'ա', 'Ꭰ', 'ꭰ', '\u0307', '\u0345'],
      ...['𐐀', '𐐨', '\ud801', '\udc00', '\u0130\u0307', 'ΣΑΣ'],
    );
    const label = fc.string({ unit, minLength: 1, maxLength: 10 });
    fc.assert(
      fc.property(label, fc.array(label, { maxLength: 3 }), fc.boolean(), (text, others, sameKey) => {
        // Half the cases define a differently cased and spaced spelling of the label itself.
        const keys = sameKey ? [...others, ` ${text.toUpperCase()}\t`] : others;
        const defined = new Set(keys.map(normalizeIdentifier));
        expect(looksUp(text, keys)).toBe(defined.has(normalizeIdentifier(text)));
      }),
      { seed: 11, numRuns: 20000 },
    );
  });

  it('keeps answering after the same span is asked twice', () => {
    const src = '[ΣΑΣ x][ΣΑΣ x]';
    const lookup = new LabelLookup(src, new Set([normalizeLabel('σας X')]));
    expect(lookup.definedLabel(8, 13)).toBe(true);
    expect(lookup.defined(8, 13)).toBe(true);
    expect(lookup.defined(1, 6)).toBe(true);
  });

  it('answers each span in a run of spans, repeated or of equal length, as definitions.has(normalizeIdentifier(span))', () => {
    const label = fc.string({ unit: fc.constantFrom('a', 'b', 'A', ' ', 'ß', 'S'), minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 12 }), fc.array(label, { maxLength: 3 }), (spans, keys) => {
        const defined = new Set(keys.map(normalizeIdentifier));
        const lookup = new LabelLookup(spans.map((span) => `[${span}]`).join(' '), new Set(keys.map(normalizeLabel)));
        let start = 1;
        for (const span of spans) {
          expect(lookup.defined(start, start + span.length)).toBe(defined.has(normalizeIdentifier(span)));
          start += span.length + 3;
        }
      }),
      { seed: 12, numRuns: 5000 },
    );
  });
});
