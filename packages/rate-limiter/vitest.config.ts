import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'rate-limiter',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Each file runs several worker processes with many connections each; one file at a time keeps the shared
    // Postgres (max_connections 100) clear of this package alone.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
