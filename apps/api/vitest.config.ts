import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'api',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Generous: these bound hangs, not speed. Embedded (PGlite), a server can take tens of seconds to open its
    // database while the rest of the suite loads both cores.
    testTimeout: 90_000,
    hookTimeout: 120_000,
  },
});
