import { defineConfig } from 'vitest/config';

// Two cores on CI machines: integration tests spawn the gateway and real servers, so keep
// parallelism at two workers and give process-heavy tests room on slow machines.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/gateways-left.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
