/**
 * Reads a byte stream into memory only up to a cap: the invariant every
 * buffered input (a canister answer, an MCP request body) must hold so a
 * request can never make the isolate buffer more than it allows.
 */
export class TooLarge extends Error {}

/** Resolves to the bytes, or rejects with TooLarge as soon as more than maxBytes arrive (the stream is cancelled). */
export async function readBoundedBytes(stream: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
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
 * Rejects with TooLarge past the cap.
 */
export async function readBodyWithin(message: Request | Response, maxBytes: number): Promise<Uint8Array> {
  if (declaresMoreThan(message.headers, maxBytes)) {
    await message.body?.cancel().catch(() => {});
    throw new TooLarge();
  }
  if (!declaresIdentityWithin(message.headers, maxBytes)) return readBoundedBytes(message.body, maxBytes);
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
