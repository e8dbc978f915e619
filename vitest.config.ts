import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

// Quiet by default: the Worker's own request log lines (one JSON object per request, see
// src/log.ts) are dropped from the test output; KT_TEST_LOGS=1 npm test shows them again. Tests
// that assert on log lines capture console.log themselves and are not affected.
const showTestLogs = process.env.KT_TEST_LOGS === '1';
const WORKER_LOG_LINE = /^\{"rid":"[^"]*","/;

// test/ is laid out by what a test is about: src/ (the Worker's modules, in Node), demo/, scripts/,
// docs/ (docs and openapi.yaml against the code), worker/ (the Worker in workerd), e2e/ (real clients).
// The note-structure engine (packages/note-structure) keeps its tests in its own test/.
// Four projects, by what they test and where the tests run:
// - engine: the note-structure engine against its micromark oracle, in Node (its own vitest.config.ts)
// - unit:   src/, demo/, scripts/ and docs/, in Node (reads ../shared for corpus parity)
// - worker: everything that touches the Worker, and the engine's test/workerd/, inside workerd
// - e2e:    real clients (MCP SDK client, headless Chromium) against the Worker served over HTTP
export default defineConfig({
  test: {
    // engine, unit and worker files run three at a time, the e2e files after them one at a time
    // (fileParallelism below). On two cores this halves a run: many files wait on a spawned script, a
    // server or workerd, and the others use that time.
    maxWorkers: 3,
    // The last lines of a run say how many tests ran in each project (test/support/node/project-counts-reporter.ts).
    reporters: ['default', './test/support/node/project-counts-reporter.ts'],
    onConsoleLog(log) {
      if (!showTestLogs && WORKER_LOG_LINE.test(log.trim())) return false;
      return undefined;
    },
    projects: [
      'packages/note-structure',
      {
        test: { name: 'unit', include: ['test/{src,demo,scripts,docs}/**/*.test.ts'], environment: 'node', testTimeout: 60_000 },
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
                PROTOCOL_RATE_LIMITER: { simple: { limit: 300, period: 60 } },
                TEST_RATE_LIMITER: { simple: { limit: 1_000_000, period: 60 } },
              },
            },
          }),
        ],
        // The SDK's runtime module, swapped as wrangler.toml's [alias] swaps it in the deployed bundle.
        resolve: { alias: { '@modelcontextprotocol/server/_shims': new URL('./src/http/mcp-sdk-runtime.ts', import.meta.url).pathname } },
        test: {
          name: 'worker',
          include: ['test/worker/**/*.test.ts', 'packages/note-structure/test/workerd/**/*.test.ts'],
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
