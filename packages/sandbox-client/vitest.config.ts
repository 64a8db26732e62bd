import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'sandbox-client',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
