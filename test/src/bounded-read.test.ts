/**
 * Reading a body up to a byte cap (src/bounded-read.ts). A body may be read whole only when a
 * Content-Length that is one decimal number within the cap (RFC 9110 section 8.6: 1*DIGIT) frames
 * it: no Transfer-Encoding, which overrides Content-Length (RFC 9112 section 6.3), and no content
 * coding (RFC 9110 section 8.4: a coded body decodes to other lengths). Everything else is read
 * through the byte-capped stream; whichever way it is read, more bytes than the cap are refused.
 */
import { describe, expect, it } from 'vitest';
import { TooLarge, declaresIdentityWithin, declaresMoreThan, readBodyWithin } from '../../src/bounded-read';

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
    ['Transfer-Encoding beside it', { 'Content-Length': '17', 'Transfer-Encoding': 'chunked' }],
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

/** A body of `bytes` bytes sent in chunks of 1,000, with these headers, as a Response and as a Request. */
function messages(bytes: number, headerEntries: Record<string, string>): { kind: string; message: Request | Response; pulled: () => number }[] {
  return ['Response', 'Request'].map((kind) => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= bytes) return controller.close();
        const chunk = new Uint8Array(Math.min(1000, bytes - sent)).fill(0x61);
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const init = { headers: headerEntries, body, method: 'POST', duplex: 'half' } as RequestInit;
    const message = kind === 'Response' ? new Response(body, { headers: headerEntries }) : new Request('https://edge.example/mcp', init);
    return { kind, message, pulled: () => sent };
  });
}

describe('readBodyWithin', () => {
  it('reads a body within the cap, declared or not, whole', async () => {
    for (const entries of [{ 'Content-Length': '5000' }, {}, { 'Content-Encoding': 'gzip' }] as Record<string, string>[]) {
      for (const { kind, message } of messages(5000, entries)) {
        expect((await readBodyWithin(message, 5000)).byteLength, `${kind} ${JSON.stringify(entries)}`).toBe(5000);
      }
    }
  });

  it('refuses a declared length over the cap before reading the body', async () => {
    for (const { kind, message, pulled } of messages(50_000, { 'Content-Length': '50000' })) {
      await expect(readBodyWithin(message, 5000), kind).rejects.toBeInstanceOf(TooLarge);
      expect(pulled(), kind).toBeLessThanOrEqual(1000);
    }
  });

  it('refuses an undeclared body once more than the cap has arrived, without reading the rest', async () => {
    for (const { kind, message, pulled } of messages(50_000, {})) {
      await expect(readBodyWithin(message, 5000), kind).rejects.toBeInstanceOf(TooLarge);
      expect(pulled(), kind).toBeLessThan(50_000);
    }
  });

  it('refuses a body longer than the length it declares, and a coded or chunked one counted as it arrives', async () => {
    const lying: Record<string, string>[] = [
      { 'Content-Length': '10' },
      { 'Content-Length': '10', 'Content-Encoding': 'gzip' },
      { 'Content-Length': '10', 'Transfer-Encoding': 'chunked' },
    ];
    for (const entries of lying) {
      for (const { kind, message } of messages(50_000, entries)) {
        await expect(readBodyWithin(message, 5000), `${kind} ${JSON.stringify(entries)}`).rejects.toBeInstanceOf(TooLarge);
      }
    }
  });
});
