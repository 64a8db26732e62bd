import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'local-sandbox',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
