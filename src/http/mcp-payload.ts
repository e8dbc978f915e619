/**
 * A successful tool answer carries its payload twice (as the text item and as
 * structuredContent). Serialized by the SDK, a payload near the 4 MiB bound
 * would be stringified again as an object and again as an escaped string, so
 * a payload over EMBED_MIN_CHARS is assembled here from its one serialization
 * instead.
 *
 * Invariant: the bytes sent equal JSON.stringify of the SDK's own envelope
 * with the real result in it. The SDK validates and serializes the real
 * result with two short unguessable stand-ins in place of content and
 * structuredContent; the stand-ins are then replaced by the payload text
 * (escaped slice by slice as a JSON string for content, verbatim for
 * structuredContent). Nothing is parsed, and the text is never joined into a
 * second full copy (test/src/mcp-payload.test.ts).
 */
import { streamedTextBody, textSlices } from './responses';

/**
 * Payloads up to this many characters (one stream slice) are left to the SDK's serialization:
 * for them two more JSON.stringify passes cost less than reading the SDK's answer back and
 * streaming a second body (about 0.25 ms of workerd CPU per call).
 */
export const EMBED_MIN_CHARS = 64 * 1024;

export interface PayloadStandIns {
  content: string;
  structuredContent: string;
}

/** Two stand-ins no payload or envelope can contain by chance: each carries a fresh random UUID. */
export function payloadStandIns(): PayloadStandIns {
  const nonce = crypto.randomUUID();
  return { content: `knowtation-content-${nonce}`, structuredContent: `knowtation-structured-${nonce}` };
}

/** content is [{"type":"text","text":<payload as a JSON string>}], escaped slice by slice. */
function* contentPieces(payloadText: string): Generator<string> {
  yield '[{"type":"text","text":"';
  for (const slice of textSlices(payloadText)) yield JSON.stringify(slice).slice(1, -1);
  yield '"}]';
}

/** The SDK's 200 answer with each stand-in (a JSON string in the envelope) replaced by the payload. */
export async function embedPayload(response: Response, payloadText: string, standIns: PayloadStandIns): Promise<Response> {
  if (response.status !== 200) return response;
  const envelope = await response.text();
  const contentAt = envelope.indexOf(JSON.stringify(standIns.content));
  const structuredAt = envelope.indexOf(JSON.stringify(standIns.structuredContent));
  if (contentAt < 0 || structuredAt < 0) throw new Error('tool answer envelope without its stand-ins');
  const cuts = [
    { at: contentAt, length: standIns.content.length + 2, pieces: () => contentPieces(payloadText) },
    { at: structuredAt, length: standIns.structuredContent.length + 2, pieces: () => textSlices(payloadText) },
  ].sort((a, b) => a.at - b.at);
  function* bodyPieces(): Generator<string> {
    yield envelope.slice(0, cuts[0].at);
    yield* cuts[0].pieces();
    yield envelope.slice(cuts[0].at + cuts[0].length, cuts[1].at);
    yield* cuts[1].pieces();
    yield envelope.slice(cuts[1].at + cuts[1].length);
  }
  const headers = new Headers(response.headers);
  headers.delete('Content-Length');
  return new Response(streamedTextBody(bodyPieces()), { status: 200, headers });
}
