import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' },
      },
      {
        plugins: [cloudflareTest({ main: './src/index.ts', wrangler: { configPath: './wrangler.toml' } })],
        test: { name: 'worker', include: ['test/worker/**/*.test.ts'], globalSetup: ['test/support/node/global-setup.ts'] },
      },
    ],
  },
});
