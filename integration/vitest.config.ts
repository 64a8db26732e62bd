import { defineProject } from 'vitest/config';

export default defineProject({
  // The workspace's packages resolve to their TypeScript source (docs/DEVELOPING.md): Vite's server conditions
  // plus `@fusebox/source`, which Vitest also passes to its worker processes as `--conditions`.
  ssr: { resolve: { conditions: ['@fusebox/source', 'node', 'development|production'] } },
  test: {
    name: 'integration',
    include: ['test/**/*.test.ts'],
    // Building, packing and installing the SDK takes a minute or two on a shared 2-core machine: these bound
    // hangs, not speed.
    testTimeout: 300_000,
    hookTimeout: 900_000,
  },
});
