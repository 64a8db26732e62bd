import { defineProject } from 'vitest/config';

export default defineProject({
  // The workspace's packages resolve to their TypeScript source (docs/DEVELOPING.md): Vite's server conditions
  // plus `@fusebox/source`, which Vitest also passes to its worker processes as `--conditions`.
  ssr: { resolve: { conditions: ['@fusebox/source', 'node', 'development|production'] } },
  test: {
    name: 'demo',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Generous: these bound hangs, not speed. Embedded (PGlite), a server can take tens of seconds to open its
    // database while the rest of the suite loads both cores.
    testTimeout: 90_000,
    hookTimeout: 120_000,
  },
});
