import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

// Three projects:
// - unit:   pure code and Node-side tooling (reads ../shared for corpus parity)
// - worker: everything that touches the Worker, inside workerd, against the demo canister
// - e2e:    real clients (MCP SDK client, headless Chromium) against the Worker served over HTTP
export default defineConfig({
  test: {
    projects: [
      {
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node', testTimeout: 60_000 },
      },
      {
        plugins: [
          cloudflareTest({
            main: './src/index.ts',
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              // RATE_LIMITER is wrangler.toml's own binding (60 per 60 s), exercised by test/worker/rate-limit.test.ts.
              // Every other suite runs with TEST_RATE_LIMITER (see testEnv), whose limit no suite reaches, so suites
              // that send many requests for one user keep testing what they test.
              ratelimits: {
                RATE_LIMITER: { simple: { limit: 60, period: 60 } },
                TEST_RATE_LIMITER: { simple: { limit: 1_000_000, period: 60 } },
              },
            },
          }),
        ],
        test: {
          name: 'worker',
          include: ['test/worker/**/*.test.ts'],
          testTimeout: 60_000,
          globalSetup: ['test/support/node/global-setup.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/support/node/e2e-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
