/**
 * When a canister answer may be read whole (src/bounded-read.ts declaresIdentityWithin): only a
 * Content-Length that is one decimal number within the cap (RFC 9110 section 8.6: 1*DIGIT), on a
 * body with no content coding (RFC 9110 section 8.4: a coded body decodes to other lengths).
 * Everything else is read through the byte-capped stream.
 */
import { describe, expect, it } from 'vitest';
import { declaresIdentityWithin, declaresMoreThan } from '../../src/bounded-read';

const CAP = 1000;
const headers = (entries: Record<string, string>) => new Headers(entries);

describe('declaresIdentityWithin', () => {
  it.each([
    ['0', {}],
    ['1000', {}],
    ['17', { 'Content-Encoding': 'identity' }],
    ['17', { 'Content-Encoding': ' Identity ' }],
  ])('reads whole a body of Content-Length %s with %j', (length, extra) => {
    expect(declaresIdentityWithin(headers({ 'Content-Length': length, ...extra }), CAP)).toBe(true);
  });

  it.each([
    ['no Content-Length', {}],
    ['one over the cap', { 'Content-Length': '1001' }],
    ['gzip', { 'Content-Length': '17', 'Content-Encoding': 'gzip' }],
    ['br', { 'Content-Length': '17', 'Content-Encoding': 'br' }],
    ['two codings', { 'Content-Length': '17', 'Content-Encoding': 'identity, gzip' }],
    ['a negative length', { 'Content-Length': '-1' }],
    ['an exponent', { 'Content-Length': '1e2' }],
    ['a fraction', { 'Content-Length': '1.5' }],
    ['hex', { 'Content-Length': '0x10' }],
    ['two values', { 'Content-Length': '17, 17' }],
    ['an empty value', { 'Content-Length': '' }],
    ['sixteen digits', { 'Content-Length': '0000000000000017' }],
  ])('streams a body with %s', (_name, entries) => {
    expect(declaresIdentityWithin(headers(entries), CAP)).toBe(false);
  });
});

describe('declaresMoreThan', () => {
  it('refuses at once only a declared length over the cap', () => {
    expect(declaresMoreThan(headers({ 'Content-Length': '1001' }), CAP)).toBe(true);
    expect(declaresMoreThan(headers({ 'Content-Length': '1000' }), CAP)).toBe(false);
    expect(declaresMoreThan(headers({}), CAP)).toBe(false);
  });
});
