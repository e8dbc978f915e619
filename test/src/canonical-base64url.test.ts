import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bearerToken, isCanonicalBase64url } from '../../src/auth/jwt';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function encode(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** Node's decoder is lenient: it ignores unused bits, as jose's does. */
function decodeLeniently(segment: string): Buffer {
  return Buffer.from(segment, 'base64url');
}

describe('isCanonicalBase64url: one spelling per byte string (RFC 7515 section 2)', () => {
  it('accepts the canonical spelling of any non-empty byte string and refuses every other spelling of the same bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 80 }), (bytes) => {
        const canonical = encode(bytes);
        expect(isCanonicalBase64url(canonical)).toBe(true);
        const last = ALPHABET.indexOf(canonical[canonical.length - 1]);
        let others = 0;
        for (let value = 0; value < 64; value += 1) {
          if (value === last) continue;
          const spelling = canonical.slice(0, -1) + ALPHABET[value];
          if (decodeLeniently(spelling).equals(Buffer.from(bytes))) {
            others += 1;
            expect(isCanonicalBase64url(spelling)).toBe(false);
          }
        }
        // 2 bits unused after 2 bytes, 4 after 1 byte, none after 3.
        expect(others).toBe([0, 15, 3][bytes.length % 3]);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses impossible lengths (1 mod 4) and the empty segment', () => {
    for (const segment of ['', 'A', 'AAAAA', 'eyJhbGciOiJIUzI1NiJ9A']) expect(isCanonicalBase64url(segment)).toBe(false);
  });

  it('bearerToken names padding and non-canonical segments, and passes a canonical token', () => {
    const token = `${encode(Buffer.from('{"alg":"HS256"}'))}.${encode(Buffer.from('{"sub":"a"}'))}.${encode(new Uint8Array(32).fill(7))}`;
    expect(bearerToken(`Bearer ${token}`)).toEqual({ ok: true, value: token });
    expect(bearerToken(`Bearer ${token}=`)).toEqual({ ok: false, reason: 'non_canonical' });
    const signature = token.split('.')[2];
    const respelled = `${token.slice(0, -1)}${ALPHABET[ALPHABET.indexOf(signature[signature.length - 1]) | 1]}`;
    expect(bearerToken(`Bearer ${respelled}`)).toEqual({ ok: false, reason: 'non_canonical' });
    expect(bearerToken(null)).toEqual({ ok: false, reason: 'missing' });
    expect(bearerToken('Basic abc')).toEqual({ ok: false, reason: 'malformed' });
    expect(bearerToken(`Bearer ${'a'.repeat(9000)}`)).toEqual({ ok: false, reason: 'too_large' });
  });

  it('bearerToken reads the field value without the optional whitespace around it (RFC 9110 5.5), and only that', () => {
    const token = `${encode(Buffer.from('{"alg":"HS256"}'))}.${encode(Buffer.from('{"sub":"a"}'))}.${encode(new Uint8Array(32).fill(7))}`;
    for (const value of [`Bearer ${token} `, `Bearer ${token}\t`, ` Bearer ${token}`, `\t bearer  ${token} \t `]) {
      expect(bearerToken(value)).toEqual({ ok: true, value: token });
    }
    for (const value of [`Bearer\t${token}`, `Bearer ${token} x`, `Bearer ${token}\n`, `Bearer ${token}\u00a0`, `Bearer`, ' \t ']) {
      expect(bearerToken(value)).toEqual({ ok: false, reason: 'malformed' });
    }
  });
});
