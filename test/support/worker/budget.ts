// The per-user budgets under test with wrangler.toml's own limits (RATE_LIMITER 60 and
// PROTOCOL_RATE_LIMITER 300 per 60 s). The bindings count in fixed 60 s windows, so a burst that
// straddles a window boundary is run once more with a fresh user: the window, not the Worker,
// would have reset the count. Nothing here asserts on time.
import { rateLimitBinding, type CallOptions } from './harness';

export const READ_LIMIT = 60;
export const PROTOCOL_LIMIT = 300;

/** Call options that put the real limiters in place of the suite-wide one no test reaches. */
export const realLimiter = (): CallOptions => ({
  bindings: { RATE_LIMITER: rateLimitBinding('RATE_LIMITER'), PROTOCOL_RATE_LIMITER: rateLimitBinding('PROTOCOL_RATE_LIMITER') },
});

const windowOf = (): number => Math.floor(Date.now() / 60_000);

/** Runs `burst` for a fresh user from `newUser`; repeats once if a window boundary fell inside it. */
export async function inOneWindow<T>(newUser: () => Promise<string>, burst: (user: string) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    const user = await newUser();
    const before = windowOf();
    const result = await burst(user);
    if (windowOf() === before || attempt === 1) return result;
  }
}
