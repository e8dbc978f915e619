import { defineProject } from 'vitest/config';

// The engine's tests, in Node. test/workerd/ runs inside workerd instead: the repository's `worker`
// project (../../vitest.config.ts) picks it up, with the Worker's own runtime configuration.
export default defineProject({
  test: {
    name: 'engine',
    include: ['test/*.test.ts', 'test/offline/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
  },
});
