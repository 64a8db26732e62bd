import { defineProject } from 'vitest/config';

export default defineProject({
  // The workspace's packages resolve to their TypeScript source (docs/DEVELOPING.md): Vite's server conditions
  // plus `@fusebox/source`, which Vitest also passes to its worker processes as `--conditions`.
  ssr: { resolve: { conditions: ['@fusebox/source', 'node', 'development|production'] } },
  test: {
    name: 'api-router',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
