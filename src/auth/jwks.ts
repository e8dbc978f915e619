/**
 * The remote JWK set (JWT_JWKS_URL) for asymmetric tokens, kept per isolate.
 *
 * The rule: the set is fetched at most once per cooldown (30 s, from one fetch's start to the
 * next), whatever the fetch's outcome. A fetch is due when no set is loaded, the loaded set is
 * older than its maximum age, or a token's `kid` is not in it; a fetch due inside the cooldown is
 * not made. A request that needs a fetch while one is in flight waits for that one (never past its
 * deadline) instead of starting another. A failed fetch keeps the set loaded before it, so a token
 * whose key is in it is served however long the set fails.
 *
 * What a token meets: its key in the loaded set, served; a `kid` not in it, a refetch if one may
 * start now (or is in flight), else JWKSNoMatchingKey at once (401 unknown_key); no set loaded and
 * none to be had, or a refetch for its `kid` that failed, KeySetUnavailable (503 jwks_unavailable).
 *
 * jose's createRemoteJWKSet is not used for this policy: it starts its cooldown only after a
 * successful fetch, shares no fetch between requests on Workers, and fails every token once its
 * cache is past its age and the refetch fails. jose still selects and imports the key
 * (createLocalJWKSet), and each fetch goes through boundedGet: one deadline for headers and body
 * together and a byte cap far above any real key set.
 */
import { createLocalJWKSet, errors as joseErrors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { boundedGet } from '../bounded-fetch';

/** One deadline for a JWK set fetch, headers and body together. */
export const JWKS_DEADLINE_MS = 3_000;
/** 64 KiB: a real key set is a few KiB; one this large is refused unread. */
export const MAX_JWKS_BYTES = 64 * 1024;
/** At most one fetch per this long, measured between fetch starts, whatever each fetch's outcome. */
export const JWKS_COOLDOWN_MS = 30_000;
/** A loaded set older than this is refetched (within the cooldown rule) before it is used again. */
export const JWKS_MAX_AGE_MS = 10 * 60_000;

const ACCEPT = { Accept: 'application/json, application/jwk-set+json' };

/** The JWK set could not be had (fetch, status, deadline, size, or not a JWK set): the server's fault, not the token's. */
export class KeySetUnavailable extends Error {}

type LocalKeySet = ReturnType<typeof createLocalJWKSet>;

interface KeySetState {
  /** The last set loaded, kept through any later failed fetch. */
  keys: LocalKeySet | null;
  loadedAt: number;
  /** When the last fetch started; the cooldown runs from here. */
  fetchStartedAt: number;
  /** The fetch in flight, if any. */
  inFlight: Promise<Refetch> | null;
}

const sets = new Map<string, KeySetState>();

/** One bounded fetch of the set, parsed and checked by jose; null for every failure. */
async function fetchKeySet(url: string): Promise<LocalKeySet | null> {
  const answer = await boundedGet(url, ACCEPT, { deadlineMs: JWKS_DEADLINE_MS, maxBytes: MAX_JWKS_BYTES });
  if (!answer.ok) return null;
  try {
    return createLocalJWKSet(JSON.parse(new TextDecoder().decode(answer.bytes)) as JSONWebKeySet);
  } catch {
    return null;
  }
}

/** What a refetch came to: a set loaded, a fetch that failed (or was not waited past its deadline), or none allowed now. */
type Refetch = 'loaded' | 'failed' | 'cooling';

/**
 * Waits for the fetch in flight, never past the deadline: the fetch may belong to another request,
 * whose cancellation would leave its promise unsettled.
 */
function joinFetch(fetching: Promise<Refetch>): Promise<Refetch> {
  let timer!: ReturnType<typeof setTimeout>;
  const deadline = new Promise<Refetch>((resolve) => {
    timer = setTimeout(() => resolve('failed'), JWKS_DEADLINE_MS);
  });
  return Promise.race([fetching, deadline]).finally(() => clearTimeout(timer));
}

/** Joins the fetch in flight, or starts one when the cooldown allows. */
function refetch(url: string, state: KeySetState): Promise<Refetch> {
  const now = Date.now();
  // A fetch past its deadline is not waited on (its request may have been cancelled under it).
  if (state.inFlight && now < state.fetchStartedAt + JWKS_DEADLINE_MS) return joinFetch(state.inFlight);
  if (now < state.fetchStartedAt + JWKS_COOLDOWN_MS) return Promise.resolve('cooling');
  state.fetchStartedAt = now;
  const fetching = fetchKeySet(url).then((keys): Refetch => {
    if (state.inFlight === fetching) state.inFlight = null;
    if (!keys) return 'failed';
    state.keys = keys;
    state.loadedAt = Date.now();
    return 'loaded';
  });
  state.inFlight = fetching;
  return joinFetch(fetching);
}

/**
 * The key lookup for one JWK set URL, its state kept per isolate. It fails only in two ways: no key
 * (or several) matches the token (jose's JWKSNoMatchingKey / JWKSMultipleMatchingKeys, the token's
 * fault), or KeySetUnavailable for anything else.
 */
export function remoteJwks(url: string): JWTVerifyGetKey {
  let state = sets.get(url);
  if (!state) {
    state = { keys: null, loadedAt: -Infinity, fetchStartedAt: -Infinity, inFlight: null };
    sets.set(url, state);
  }
  const known = state;
  return async (header, token) => {
    // An aged set is refreshed when the cooldown allows; if that fails, the set it had is used.
    if (!known.keys || Date.now() >= known.loadedAt + JWKS_MAX_AGE_MS) await refetch(url, known);
    if (!known.keys) throw new KeySetUnavailable();
    try {
      return await known.keys(header, token);
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey)) tokenFaultOrUnavailable(error);
      // A kid the loaded set lacks: the token's fault at once inside the cooldown, else after a refetch.
      const refetched = await refetch(url, known);
      if (refetched === 'cooling') throw error;
      if (refetched === 'failed') throw new KeySetUnavailable();
      try {
        return await known.keys(header, token);
      } catch (retryError) {
        tokenFaultOrUnavailable(retryError);
      }
    }
  };
}

/** Rethrows jose's no-key / several-keys refusal (the token's fault); anything else is KeySetUnavailable. */
function tokenFaultOrUnavailable(error: unknown): never {
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) throw error;
  throw new KeySetUnavailable();
}
