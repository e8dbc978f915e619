/**
 * wrangler.toml holds the platform-side rules, read the way wrangler itself
 * reads it (unstable_readConfig, the pinned wrangler), for the top level and
 * every named environment:
 * - Workers Logs keeps the Worker's own console line, but the platform records
 *   no request URL or query (no invocation logs, no traces): a URL carries the note path;
 * - the per-user RATE_LIMITER binding, 60 per 60 s, lifted only in `load`;
 * - a platform CPU cap per request, so a request that ran away is cut.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unstable_readConfig } from 'wrangler';
import { describe, expect, it } from 'vitest';

const configPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../wrangler.toml');
const top = unstable_readConfig({ config: configPath });
const load = unstable_readConfig({ config: configPath, env: 'load' });
const environments = { top, load };

describe('wrangler.toml', () => {
  for (const [name, config] of Object.entries(environments)) {
    it(`${name}: keeps the Worker's log lines in Workers Logs but records no request URL`, () => {
      const observability = config.observability!;
      expect(observability.enabled).toBe(true);
      expect(observability.logs?.enabled).toBe(true);
      // Every line is kept (a sampled-out request would have no log line at all).
      expect(observability.logs?.head_sampling_rate ?? observability.head_sampling_rate ?? 1).toBe(1);
      // Invocation logs carry the request URL (and so `?path=`); traces carry the canister URL with the note path.
      expect(observability.logs?.invocation_logs).toBe(false);
      expect(observability.traces?.enabled ?? false).toBe(false);
    });

    it(`${name}: caps CPU per request at 200-1000 ms, headroom over the slowest note the bench measures`, () => {
      expect(config.limits?.cpu_ms).toBeGreaterThanOrEqual(200);
      expect(config.limits?.cpu_ms).toBeLessThanOrEqual(1000);
    });

    it.each(['RATE_LIMITER', 'PROTOCOL_RATE_LIMITER'])(`${name}: binds %s`, (bindingName) => {
      const limiter = config.ratelimits.find((binding: { name: string }) => binding.name === bindingName);
      expect(limiter).toBeDefined();
      expect([10, 60]).toContain(limiter!.simple.period);
      expect(Number.isInteger(limiter!.simple.limit) && limiter!.simple.limit > 0).toBe(true);
    });
  }

  it('production limits each user to 60 requests per 60 s, as the upstream does', () => {
    expect(top.vars.ENVIRONMENT).toBe('production');
    expect(top.ratelimits).toEqual([
      { name: 'RATE_LIMITER', namespace_id: '1001', simple: { limit: 60, period: 60 } },
      // Protocol traffic that reads nothing: a larger budget of its own, so reconnecting agents keep their reads.
      { name: 'PROTOCOL_RATE_LIMITER', namespace_id: '1003', simple: { limit: 300, period: 60 } },
    ]);
  });

  it('the load environment lifts the limit, is local, and has its own namespace', () => {
    expect(load.vars.ENVIRONMENT).toBe('local');
    for (const [name, production] of [['RATE_LIMITER', '1001'], ['PROTOCOL_RATE_LIMITER', '1003']]) {
      const limiter = load.ratelimits.find((binding: { name: string }) => binding.name === name)!;
      expect(limiter.simple.limit / limiter.simple.period!).toBeGreaterThanOrEqual(10_000);
      expect(limiter.namespace_id).not.toBe(production);
    }
  });
});
