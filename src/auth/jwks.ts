/**
 * The remote JWK set (JWT_JWKS_URL) for asymmetric tokens. jose keeps the
 * set per isolate (up to 10 minutes, a refetch for an unknown `kid` at most
 * every 30 s); each fetch goes through boundedGet: one deadline for headers
 * and body together and a byte cap far above any real key set. A set that is
 * too large, slow, dripping, failing or not a JWK set makes verification fail
 * within that deadline as KeySetUnavailable (a server fault, answered 503, log
 * reason `jwks_unavailable`), and no request waits on a fetch longer than the
 * deadline.
 */
import { createRemoteJWKSet, customFetch, errors as joseErrors, type JWTVerifyGetKey } from 'jose';
import { boundedGet } from '../bounded-fetch';

/** One deadline for a JWK set fetch, headers and body together. */
export const JWKS_DEADLINE_MS = 3_000;
/** 64 KiB: a real key set is a few KiB; one this large is refused unread. */
export const MAX_JWKS_BYTES = 64 * 1024;
const JWKS_COOLDOWN_MS = 30_000;

/** A failed fetch, as jose's fetch contract expects it: a rejection (a TimeoutError for the deadline). */
class JwksFetchFailed extends Error {}

/** jose's fetch, bounded: the answer it gets is already buffered within the deadline and the cap. */
async function fetchJwksBounded(url: string, init: RequestInit): Promise<Response> {
  const answer = await boundedGet(url, init.headers ?? {}, { deadlineMs: JWKS_DEADLINE_MS, maxBytes: MAX_JWKS_BYTES, signal: init.signal });
  if (answer.ok) return new Response(answer.bytes as Uint8Array<ArrayBuffer>, { status: answer.status });
  if (answer.failure === 'timeout') throw new DOMException('JWK set deadline', 'TimeoutError');
  throw new JwksFetchFailed(answer.failure);
}

/** The JWK set could not be had (fetch, status, deadline, size, or not a JWK set): the server's fault, not the token's. */
export class KeySetUnavailable extends Error {}

const sets = new Map<string, JWTVerifyGetKey>();

/**
 * The key lookup for one JWK set URL, created once per isolate. It fails only in two ways: no key
 * (or several) matches the token (jose's JWKSNoMatchingKey / JWKSMultipleMatchingKeys, the token's
 * fault), or KeySetUnavailable for anything else.
 */
export function remoteJwks(url: string): JWTVerifyGetKey {
  let lookup = sets.get(url);
  if (!lookup) {
    const jwks = createRemoteJWKSet(new URL(url), {
      timeoutDuration: JWKS_DEADLINE_MS,
      cooldownDuration: JWKS_COOLDOWN_MS,
      [customFetch]: fetchJwksBounded,
    });
    lookup = async (header, token) => {
      try {
        return await jwks(header, token);
      } catch (error) {
        if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) throw error;
        throw new KeySetUnavailable();
      }
    };
    sets.set(url, lookup);
  }
  return lookup;
}
