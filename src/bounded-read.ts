/**
 * Reads a byte stream into memory only up to a cap: the invariant every
 * buffered input (a canister answer, an MCP request body) must hold so a
 * request can never make the isolate buffer more than it allows. And the
 * other side of a refusal: what a request's body has left unread is read
 * and discarded (bounded) before the answer, so its connection carries on.
 */
export class TooLarge extends Error {}

/** What becomes of the rest of a stream found too large: cancelled, or left for discardUnreadBody (a request's). */
type RestOfStream = 'cancel' | 'leave';

/**
 * Resolves to the bytes, or rejects with TooLarge as soon as more than maxBytes arrive; the rest of
 * the stream is then cancelled, or with `rest: 'leave'` left unread (the reader released).
 */
export async function readBoundedBytes(stream: ReadableStream<Uint8Array> | null, maxBytes: number, rest: RestOfStream = 'cancel'): Promise<Uint8Array> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      if (rest === 'cancel') await reader.cancel().catch(() => {});
      else reader.releaseLock();
      throw new TooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * A message body (a canister answer, the JWK set, an MCP request) read into memory up to maxBytes:
 * refused at once when its declared length is over the cap, read whole when declaresIdentityWithin
 * (and still refused if more bytes than the cap arrived), else read through readBoundedBytes.
 * Rejects with TooLarge past the cap. What is left of a refused answer is cancelled (the exchange
 * is ours to end); what is left of a refused request is left for discardUnreadBody, so the
 * client's connection can carry its next request.
 */
export async function readBodyWithin(message: Request | Response, maxBytes: number): Promise<Uint8Array> {
  const rest: RestOfStream = message instanceof Request ? 'leave' : 'cancel';
  if (declaresMoreThan(message.headers, maxBytes)) {
    if (rest === 'cancel') await message.body?.cancel().catch(() => {});
    throw new TooLarge();
  }
  if (!declaresIdentityWithin(message.headers, maxBytes)) return readBoundedBytes(message.body, maxBytes, rest);
  const bytes = new Uint8Array(await message.arrayBuffer());
  if (bytes.byteLength > maxBytes) throw new TooLarge();
  return bytes;
}

/** The declared Content-Length when it is one decimal number (RFC 9110 section 8.6: 1*DIGIT) of at most 15 digits, else null. */
function declaredLength(headers: Headers): number | null {
  const declared = headers.get('content-length');
  return declared !== null && /^\d{1,15}$/.test(declared) ? Number(declared) : null;
}

/** A declared Content-Length already over the cap. */
export function declaresMoreThan(headers: Headers, maxBytes: number): boolean {
  const declared = declaredLength(headers);
  return declared !== null && declared > maxBytes;
}

/**
 * A declared Content-Length within the cap that frames a body sent as it is: no Transfer-Encoding
 * (which overrides Content-Length, RFC 9112 section 6.3) and no Content-Encoding (which the runtime
 * decodes to more bytes than declared). Such a body cannot grow past the cap, so it may be read whole.
 */
export function declaresIdentityWithin(headers: Headers, maxBytes: number): boolean {
  const declared = declaredLength(headers);
  const encoding = headers.get('content-encoding');
  if (declared === null || declared > maxBytes) return false;
  return headers.get('transfer-encoding') === null && (encoding === null || encoding.trim().toLowerCase() === 'identity');
}

/**
 * Most of a request body left unread that the Worker reads and discards before it answers: far above
 * the largest body any route reads (MCP's 1 MiB), so a client that overshoots keeps its connection.
 */
export const MAX_DISCARDED_BYTES = 8 * 1024 * 1024;
/** How long the Worker waits for the rest of such a body before it stops reading. */
export const DISCARD_DEADLINE_MS = 10_000;

/**
 * Reads and discards what the route left unread of the request's body (a REST route reads none; an
 * MCP message over its cap leaves its rest), so that the exchange ends as an ordinary one and the
 * connection it came on carries the next request. It runs before the answer leaves, as the runtime
 * refuses reads of the request body after that. A body that declares more than MAX_DISCARDED_BYTES
 * is not read at all (nor need it be sent: a client waiting on `Expect: 100-continue` gets the answer
 * instead); any other is read to its end, at most MAX_DISCARDED_BYTES more within
 * DISCARD_DEADLINE_MS, past which the rest is cancelled and the connection is the runtime's to close.
 * A body already read whole, or held by a reader, is left alone. Never throws.
 */
export async function discardUnreadBody(request: Request): Promise<void> {
  const body = request.body;
  if (!body || body.locked || declaresMoreThan(request.headers, MAX_DISCARDED_BYTES)) return;
  let timer!: ReturnType<typeof setTimeout>;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), DISCARD_DEADLINE_MS);
  });
  const reader = body.getReader();
  try {
    for (let discarded = 0; discarded <= MAX_DISCARDED_BYTES; ) {
      const next = await Promise.race([reader.read(), late]);
      if (next === 'late') break;
      if (next.done) return;
      discarded += next.value.byteLength;
    }
    await reader.cancel().catch(() => {});
  } catch {
    // The client went away mid-body: there is no connection left to keep.
  } finally {
    clearTimeout(timer);
  }
}
