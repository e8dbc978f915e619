/**
 * Every rate limit, the policy in one place. Cloudflare's Workers Rate Limiting bindings
 * (wrangler.toml `[[ratelimits]]`) count requests under a key per budget:
 *
 *   read       RATE_LIMITER           user:<sub>       REST reads and MCP tools/call (60 per 60 s)
 *   protocol   PROTOCOL_RATE_LIMITER  user:<sub>       MCP messages that read nothing (300 per 60 s)
 *   hub        RATE_LIMITER           hub:<sub>        calls of the Hub's hosted-context endpoint
 *   bridge     RATE_LIMITER           bridge:<sub>     the Scooling bridge's reads, as its own credential
 *   discovery  PROTOCOL_RATE_LIMITER  discovery:<ip>   public discovery documents, per client address
 *
 * A budget belongs to the person, the token's subject, never to the canister partition a
 * workspace's members share. The Hub-call budget is the read budget's size, apart from it, so a
 * person can make the Worker call the Hub no more often than they could read, and a read whose
 * context had to be asked of the Hub still spends one read. Every budget is taken before the work
 * it pays for (a canister read, a Hub call), never for a request refused before it. The binding's
 * counters are per Cloudflare location and eventually consistent, as the platform documents.
 */
import type { Principal } from './auth/jwt';
import type { Config, RateLimitBinding } from './config';
import { fail, ok, type ReadError, type Result } from './errors';

/**
 * Retry-After for a refusal. The binding reports no reset time, and its
 * period can only be 10 or 60 s, so 60 s always covers the rest of the window.
 */
export const RATE_LIMIT_RETRY_AFTER_SECONDS = 60;

/** A person's budgets, each named for what it pays for (the table above). */
export type RateBudget = 'read' | 'protocol' | 'hub' | 'bridge';

const RATE_LIMITED: ReadError = { kind: 'RateLimited', retryAfterSeconds: RATE_LIMIT_RETRY_AFTER_SECONDS };

/** Counts one request on a binding under a key; RateLimited when the budget is spent. */
async function spend(limiter: RateLimitBinding | null, key: string): Promise<Result<void>> {
  // Null only in ENVIRONMENT=local without the binding (bench, bare Miniflare); config.ts refuses that elsewhere.
  if (!limiter) return ok(undefined);
  const { success } = await limiter.limit({ key });
  return success ? ok(undefined) : fail(RATE_LIMITED);
}

/** Counts this request against the principal's budget; RateLimited when it is spent. */
export function takeRateLimit(config: Config, principal: Principal, budget: RateBudget): Promise<Result<void>> {
  const limiter = budget === 'protocol' ? config.protocolRateLimiter : config.rateLimiter;
  const owner = budget === 'read' || budget === 'protocol' ? 'user' : budget;
  return spend(limiter, `${owner}:${principal.sub}`);
}

/**
 * discovery.md, Denial of Service: each client address (as Cloudflare reports it; requests without
 * one share one budget) has a budget of public documents, apart from every user's.
 */
export function takeDiscoveryLimit(config: Config, request: Request): Promise<Result<void>> {
  const address = request.headers.get('CF-Connecting-IP')?.trim() || 'unknown';
  return spend(config.protocolRateLimiter, `discovery:${address}`);
}
