/**
 * The isolate's memo of accepted credentials, so a client that sends the same bearer token on
 * every request pays its verification once per isolate (its cost: docs/PERFORMANCE.md, the request
 * path). Invariant: a hit answers exactly what authenticate would answer afresh at that time. Only
 * principals of tokens verified with the configured HMAC secrets are kept (a token verified with
 * the JWK set is verified every time: the set can change under it), keyed by the compact token and
 * the protected resource, under the configuration object they were verified with: what such a
 * verification reads and nothing else. An entry answers only inside the token's own validity
 * window (exp, nbf and iat with the same clock tolerance), and for at most
 * ACCEPTED_TOKEN_TTL_SECONDS after its verification. Refusals are never kept. At most
 * MAX_ACCEPTED_TOKENS entries per configuration, the least recently used dropped first; a token is
 * at most MAX_TOKEN_BYTES (jwt.ts), so the memo stays a few MiB at worst.
 */
import type { Config } from '../config';

export const MAX_ACCEPTED_TOKENS = 256;
export const ACCEPTED_TOKEN_TTL_SECONDS = 60;

/** The epoch seconds in which a fresh verification accepts the token: from <= now < until. */
export interface AcceptanceWindow {
  from: number;
  until: number;
}

interface Accepted {
  /** A frozen Principal (jwt.ts): one answers many requests. */
  principal: unknown;
  window: AcceptanceWindow;
}

const memos = new WeakMap<Config, Map<string, Accepted>>();

/** A compact JWS holds no line feed. */
const memoKey = (resourceId: string, token: string): string => `${resourceId}\n${token}`;

/** The principal this token was accepted as for this resource, when a fresh verification would accept it now. */
export function acceptedPrincipal<P>(config: Config, resourceId: string, token: string, nowSeconds: number): P | null {
  const memo = memos.get(config);
  if (!memo) return null;
  const key = memoKey(resourceId, token);
  const accepted = memo.get(key);
  if (!accepted) return null;
  memo.delete(key);
  if (nowSeconds < accepted.window.from || nowSeconds >= accepted.window.until) return null;
  // Kept as the most recently used.
  memo.set(key, accepted);
  return accepted.principal as P;
}

/** Keeps an accepted principal for the rest of its window, at most ACCEPTED_TOKEN_TTL_SECONDS from now. */
export function rememberAccepted(
  config: Config,
  resourceId: string,
  token: string,
  principal: unknown,
  window: AcceptanceWindow,
  nowSeconds: number,
): void {
  let memo = memos.get(config);
  if (!memo) {
    memo = new Map();
    memos.set(config, memo);
  }
  const key = memoKey(resourceId, token);
  memo.delete(key);
  if (memo.size >= MAX_ACCEPTED_TOKENS) memo.delete(memo.keys().next().value as string);
  memo.set(key, { principal, window: { from: window.from, until: Math.min(window.until, nowSeconds + ACCEPTED_TOKEN_TTL_SECONDS) } });
}

/** The number of tokens kept for a configuration (tests). */
export function acceptedCount(config: Config): number {
  return memos.get(config)?.size ?? 0;
}
