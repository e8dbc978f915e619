import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { singlePathParam } from '../../src/http/query';

const at = (query: string): URL => new URL(`https://edge.example/api/v1/note-outline?${query}`);

/** A query string over the chars that matter to form decoding: separators, `+`, `%`, hex digits and a few others. */
const queryChars = fc.constantFrom(...'path=&+%0123456789abcdefABCDEFxX.-/~'.split(''), '%ED', '%A0', '%80', '%C0', '%AE', '%FF', '%EF', '%BB', '%BF', '%F0', '%9F');

/** Raw value tokens: `+`, stray and escaped `%`, and bytes that start, continue or break UTF-8 sequences. */
const valueTokens = fc.constantFrom('a', '.', '/', '+', '%', '%2', '%zz', '%2B', '%25', '%41', '%ED', '%A0', '%80', '%C0', '%AE', '%FF', '%EF', '%BB', '%BF', '%F0', '%9F', '%98', '%E2', '%82', '%AC');

/** An independent strict decode of one raw form value: stray `%` escaped, `+` a space, then decodeURIComponent (which throws on bytes that are not UTF-8). */
function strictlyDecoded(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' ').replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
  } catch {
    return undefined;
  }
}

describe('singlePathParam', () => {
  it('answers what an independent strict decoder answers for any raw value between other pairs', () => {
    fc.assert(
      fc.property(fc.array(valueTokens, { maxLength: 24 }), (tokens) => {
        const raw = tokens.join('');
        expect(singlePathParam(at(`x=1&path=${raw}&y=%FF`))).toBe(strictlyDecoded(raw));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives back any well-formed text sent as encodeURIComponent does, or as a form does (spaces as +)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        expect(singlePathParam(at(`path=${encodeURIComponent(text)}`))).toBe(text);
        expect(singlePathParam(at(`x=1&path=${encodeURIComponent(text).replaceAll('%20', '+')}&y`))).toBe(text);
        expect(singlePathParam(at(`pa%74h=${encodeURIComponent(text)}`))).toBe(text);
      }),
    );
  });

  it('agrees with URLSearchParams whenever the value decodes as UTF-8, and refuses exactly when it does not', () => {
    fc.assert(
      fc.property(fc.array(queryChars, { maxLength: 30 }), (parts) => {
        const url = at(parts.join(''));
        const values = url.searchParams.getAll('path');
        const answer = singlePathParam(url);
        if (values.length !== 1) expect(answer).toBeUndefined();
        else if (answer !== undefined) expect(answer).toBe(values[0]);
        // Refused with exactly one `path`: its value held U+FFFD that no literal %EF%BF%BD put there.
        else expect(values[0]).toContain('\uFFFD');
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['an encoded lone surrogate', 'path=%ED%A0%80a.md'],
    ['a low surrogate', 'path=x%ED%B0%80.md'],
    ['an overlong dot pair', 'path=%C0%AE%C0%AE%2Fa.md'],
    ['a stray continuation byte', 'path=a%80.md'],
    ['a byte that is never UTF-8', 'path=%FF'],
    ['a truncated sequence', 'path=a%E2%82.md'],
    ['a code point above U+10FFFF', 'path=%F4%90%80%80.md'],
  ])('refuses %s', (_name, query) => {
    expect(new URL(at(query)).searchParams.get('path')).toContain('\uFFFD');
    expect(singlePathParam(at(query))).toBeUndefined();
  });

  it('keeps what UTF-8 allows: U+FFFD sent as itself, a BOM, astral chars, a stray % and + as a space', () => {
    expect(singlePathParam(at('path=%EF%BF%BD.md'))).toBe('\uFFFD.md');
    expect(singlePathParam(at('path=%EF%BB%BFa.md'))).toBe('\uFEFFa.md');
    expect(singlePathParam(at('path=%F0%9F%98%80.md'))).toBe('\u{1F600}.md');
    expect(singlePathParam(at('path=100%.md'))).toBe('100%.md');
    expect(singlePathParam(at('path=a+b.md'))).toBe('a b.md');
  });

  it('answers only for exactly one path', () => {
    expect(singlePathParam(at('path=a.md&path=a.md'))).toBeUndefined();
    expect(singlePathParam(at('x=a.md'))).toBeUndefined();
    expect(singlePathParam(at('path'))).toBe('');
    expect(singlePathParam(at('%FF=1&path=a.md'))).toBe('a.md');
  });
});
