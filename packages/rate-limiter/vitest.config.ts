import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'rate-limiter',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
