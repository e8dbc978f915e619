/**
 * Per-user rate limits: the policy in one place. Cloudflare's Workers Rate
 * Limiting bindings (wrangler.toml `[[ratelimits]]`) count requests per
 * effective canister user, the same key the upstream hosted MCP limits on:
 * RATE_LIMITER (60 per 60 s) the reads, PROTOCOL_RATE_LIMITER (300 per 60 s)
 * the MCP messages that read nothing. Both are taken before anything that can
 * reach the canister, so a refused request costs no canister read. The
 * binding's counters are per Cloudflare location and eventually consistent,
 * as the platform documents.
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

/**
 * The budgets: `read` for everything that can read a note (REST, MCP `tools/call`), `protocol` for
 * MCP messages that read nothing (initialize, notifications, tools/list, server/discover, ping, ...),
 * larger so reconnecting agents keep their reads, and `bridge` for the Scooling bridge: reads
 * counted on RATE_LIMITER under a key of their own, so its callers share one budget of the bridge
 * credential's and never spend the user's.
 */
export type RateBudget = 'read' | 'protocol' | 'bridge';

/** Counts this request against the principal's budget; RateLimited when it is spent. */
export async function takeRateLimit(config: Config, principal: Principal, budget: RateBudget): Promise<Result<void>> {
  const limiter = budget === 'protocol' ? config.protocolRateLimiter : config.rateLimiter;
  // Null only in ENVIRONMENT=local without the binding (bench, bare Miniflare); config.ts refuses that elsewhere.
  if (!limiter) return ok(undefined);
  const owner = budget === 'bridge' ? 'bridge' : 'user';
  const { success } = await limiter.limit({ key: `${owner}:${principal.canisterUserId}` });
  return success ? ok(undefined) : fail({ kind: 'RateLimited', retryAfterSeconds: RATE_LIMIT_RETRY_AFTER_SECONDS });
}
