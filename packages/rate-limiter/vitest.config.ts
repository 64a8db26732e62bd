import { defineProject } from 'vitest/config';

export default defineProject({
  // The workspace's packages resolve to their TypeScript source (docs/DEVELOPING.md): Vite's server conditions
  // plus `@fusebox/source`, which Vitest also passes to its worker processes as `--conditions`.
  ssr: { resolve: { conditions: ['@fusebox/source', 'node', 'development|production'] } },
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
