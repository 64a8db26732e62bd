import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'local-sandbox',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Real sandboxes on a shared 2-core machine: compilers and hostile programs take seconds, not milliseconds.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
