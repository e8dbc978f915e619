/**
 * Reading a body up to a byte cap (src/bounded-read.ts). A body may be read whole only when a
 * Content-Length that is one decimal number within the cap (RFC 9110 section 8.6: 1*DIGIT) frames
 * it: no Transfer-Encoding, which overrides Content-Length (RFC 9112 section 6.3), and no content
 * coding (RFC 9110 section 8.4: a coded body decodes to other lengths). Everything else is read
 * through the byte-capped stream; whichever way it is read, more bytes than the cap are refused.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DISCARD_DEADLINE_MS,
  MAX_DISCARDED_BYTES,
  TooLarge,
  declaresIdentityWithin,
  declaresMoreThan,
  discardUnreadBody,
  readBodyWithin,
} from '../../src/bounded-read';

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

/** A body of `bytes` bytes in chunks of `chunkBytes`: how much was pulled from it and whether it was cancelled. */
function countedBody(bytes: number, chunkBytes = 1000) {
  const counted = { sent: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counted.sent >= bytes) return controller.close();
      const chunk = new Uint8Array(Math.min(chunkBytes, bytes - counted.sent)).fill(0x61);
      counted.sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      counted.cancelled = true;
    },
  });
  return { body, counted };
}

const request = (body: ReadableStream<Uint8Array>, headerEntries: Record<string, string> = {}) =>
  new Request('https://edge.example/mcp', { headers: headerEntries, body, method: 'POST', duplex: 'half' } as RequestInit);

/** A body of `bytes` bytes sent in chunks of 1,000, with these headers, as a Response and as a Request. */
function messages(bytes: number, headerEntries: Record<string, string>) {
  return ['Response', 'Request'].map((kind) => {
    const { body, counted } = countedBody(bytes);
    const message = kind === 'Response' ? new Response(body, { headers: headerEntries }) : request(body, headerEntries);
    return { kind, message, pulled: () => counted.sent, cancelled: () => counted.cancelled };
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

describe('what a refusal leaves of the body', () => {
  it("cancels the rest of an answer (the exchange is the Worker's own), and leaves a request's unread and unlocked for discardUnreadBody", async () => {
    for (const entries of [{ 'Content-Length': '50000' }, {}] as Record<string, string>[]) {
      for (const { kind, message, cancelled } of messages(50_000, entries)) {
        await expect(readBodyWithin(message, 5000)).rejects.toBeInstanceOf(TooLarge);
        const label = `${kind} ${JSON.stringify(entries)}`;
        expect(cancelled(), label).toBe(kind === 'Response');
        if (kind === 'Request') expect(message.body?.locked, label).toBe(false);
      }
    }
  });
});

describe('discardUnreadBody: the rest of a request body, read and dropped before the answer', () => {
  afterEach(() => vi.useRealTimers());

  it('reads an unread body to its end (2 MiB, declared or not), and a body partly read to its end', async () => {
    const bytes = 2 * 1024 * 1024;
    for (const entries of [{ 'Content-Length': String(bytes) }, {}] as Record<string, string>[]) {
      const { body, counted } = countedBody(bytes, 64 * 1024);
      await discardUnreadBody(request(body, entries));
      expect(counted, JSON.stringify(entries)).toEqual({ sent: bytes, cancelled: false });
    }
    const { body, counted } = countedBody(bytes, 64 * 1024);
    const partly = request(body);
    await expect(readBodyWithin(partly, 1024 * 1024)).rejects.toBeInstanceOf(TooLarge);
    await discardUnreadBody(partly);
    expect(counted).toEqual({ sent: bytes, cancelled: false });
  });

  it(`reads at most ${MAX_DISCARDED_BYTES} bytes of a body without a length, then cancels the rest`, async () => {
    const { body, counted } = countedBody(4 * MAX_DISCARDED_BYTES, 64 * 1024);
    await discardUnreadBody(request(body));
    expect(counted.cancelled).toBe(true);
    expect(counted.sent).toBeGreaterThan(MAX_DISCARDED_BYTES);
    expect(counted.sent).toBeLessThanOrEqual(MAX_DISCARDED_BYTES + 3 * 64 * 1024);
  });

  it(`reads nothing of a body declared over ${MAX_DISCARDED_BYTES} bytes: the runtime may answer without it`, async () => {
    const { body, counted } = countedBody(MAX_DISCARDED_BYTES + 1, 64 * 1024);
    await discardUnreadBody(request(body, { 'Content-Length': String(MAX_DISCARDED_BYTES + 1) }));
    // A stream pulls its first chunk by itself (its high-water mark); nothing more is read.
    expect(counted.sent).toBeLessThanOrEqual(64 * 1024);
    expect(counted.cancelled).toBe(false);
  });

  it(`stops waiting for a stalled body after ${DISCARD_DEADLINE_MS} ms and cancels it`, async () => {
    vi.useFakeTimers();
    let cancelled = false;
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10));
      },
      cancel() {
        cancelled = true;
      },
    });
    let done = false;
    const discarding = discardUnreadBody(request(stalled)).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(DISCARD_DEADLINE_MS - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await discarding;
    expect(cancelled).toBe(true);
  });

  it('leaves alone a body read whole, one held by a reader, and no body', async () => {
    const whole = request(countedBody(10).body);
    await whole.arrayBuffer();
    await discardUnreadBody(whole);
    const { body, counted } = countedBody(10_000);
    const held = request(body);
    held.body?.getReader();
    await discardUnreadBody(held);
    expect(counted.cancelled).toBe(false);
    expect(counted.sent).toBeLessThan(10_000);
    await discardUnreadBody(new Request('https://edge.example/health'));
  });
});
