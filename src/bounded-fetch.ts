/**
 * The Worker's outbound reads (the canister's note, the JWK set): one GET
 * whose whole exchange, headers and body together, runs under one deadline
 * and whose body is buffered only up to a byte cap. Redirects are not
 * followed; a non-2xx answer's body is never read. It never throws: every
 * outcome is a value, with the status whenever one arrived.
 */
import { TooLarge, readBodyWithin } from './bounded-read';

export interface FetchBounds {
  deadlineMs: number;
  maxBytes: number;
  /** An outer signal (a caller's own timeout) that also ends the exchange. */
  signal?: AbortSignal | null;
}

export type BoundedAnswer =
  | { ok: true; status: number; bytes: Uint8Array }
  | { ok: false; status: number | null; failure: 'status' | 'too_large' | 'timeout' | 'unreachable' };

export async function boundedGet(url: string, headers: HeadersInit, bounds: FetchBounds): Promise<BoundedAnswer> {
  const controller = new AbortController();
  const abort = (reason: unknown) => controller.abort(reason);
  const timer = setTimeout(() => abort(new DOMException('deadline', 'TimeoutError')), bounds.deadlineMs);
  const onOuterAbort = () => abort(bounds.signal?.reason);
  bounds.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let status: number | null = null;
  try {
    const response = await fetch(url, { method: 'GET', headers, redirect: 'manual', signal: controller.signal });
    status = response.status;
    if (status < 200 || status > 299) {
      await response.body?.cancel().catch(() => {});
      return { ok: false, status, failure: 'status' };
    }
    const bytes = await readBodyWithin(response, bounds.maxBytes);
    if (controller.signal.aborted) return { ok: false, status, failure: 'timeout' };
    return { ok: true, status, bytes };
  } catch (error) {
    if (error instanceof TooLarge) return { ok: false, status, failure: 'too_large' };
    return { ok: false, status, failure: controller.signal.aborted ? 'timeout' : 'unreachable' };
  } finally {
    clearTimeout(timer);
    bounds.signal?.removeEventListener('abort', onOuterAbort);
  }
}
