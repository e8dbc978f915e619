/**
 * Per-user rate limit: the policy in one place. Cloudflare's Workers Rate
 * Limiting binding (wrangler.toml `[[ratelimits]]` RATE_LIMITER, default 60
 * requests per 60 s) counts requests per effective canister user, the same
 * key the upstream hosted MCP limits on. Both adapters take it right after
 * authentication and before anything that can reach the canister, so a
 * refused request costs no canister read. The binding's counters are per
 * Cloudflare location and eventually consistent, as the platform documents.
 */
import type { Principal } from './auth/jwt';
import type { Config } from './config';
import { fail, ok, type Result } from './errors';

/** The Workers Rate Limiting binding's API (only `key` is honoured in production). */
export interface RateLimitBinding {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/**
 * Retry-After for a refusal. The binding reports no reset time, and its
 * period can only be 10 or 60 s, so 60 s always covers the rest of the window.
 */
export const RATE_LIMIT_RETRY_AFTER_SECONDS = 60;

/** Counts this request against the principal's budget; RateLimited when it is spent. */
export async function takeRateLimit(config: Config, principal: Principal): Promise<Result<void>> {
  // Null only in ENVIRONMENT=local without the binding (bench, bare Miniflare); config.ts refuses that elsewhere.
  if (!config.rateLimiter) return ok(undefined);
  const { success } = await config.rateLimiter.limit({ key: `user:${principal.canisterUserId}` });
  return success ? ok(undefined) : fail({ kind: 'RateLimited', retryAfterSeconds: RATE_LIMIT_RETRY_AFTER_SECONDS });
}
