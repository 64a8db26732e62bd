import { defineConfig } from 'vitest/config';

// Each package and app is its own Vitest project, with its own vitest.config.ts beside its code.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
  },
});
