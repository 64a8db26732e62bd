import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type TestProjectInlineConfiguration, defineConfig } from 'vitest/config';

// Each package and app is its own Vitest project, with its own vitest.config.ts beside its code.
//
// The database-mode matrix: `npm test` runs the suite twice (scripts/run.mjs). The first pass covers every test,
// with Postgres test databases. The second, with FUSEBOX_TEST_DATABASE_MODE=embedded, runs again only the test
// files that create a database of the mode under test (`createTestDatabase()`, themselves or through a helper of
// their own package), now on embedded ones (PGlite).
// Tests that need a Postgres server whatever the mode (several processes on one database, advisory locks, raw
// `pg`) use `createPostgresTestDatabase()` and run in the first pass only.
// `integration/` is the leaf workspace of tests that need a running Fusebox and the packed SDK.
const PROJECTS = [
  ...['packages', 'apps'].flatMap((parent) => readdirSync(parent).map((name) => join(parent, name))),
  'integration',
].filter((dir) => existsSync(join(dir, 'vitest.config.ts')));

const MODE_UNDER_TEST = 'createTestDatabase(';

export default defineConfig({
  test: {
    projects:
      process.env.FUSEBOX_TEST_DATABASE_MODE === 'embedded'
        ? PROJECTS.flatMap(embeddedPass)
        : PROJECTS.map((dir) => `./${dir}`),
  },
});

/** The project of `dir` restricted to its test files that use the mode under test; none if it has no such file. */
function embeddedPass(dir: string): TestProjectInlineConfiguration[] {
  const files = testFiles(dir);
  const others = files.filter((file) => !usesModeUnderTest(file, new Set()));
  if (others.length === files.length) return [];
  return [
    {
      extends: `./${dir}/vitest.config.ts`,
      root: `./${dir}`,
      // Configs merge by concatenation, so the project's own include stays and these files are excluded from it.
      test: { exclude: others.map((file) => relative(dir, file)) },
    },
  ];
}

/**
 * Whether the file, or a test helper it imports (such as a router context: a relative import within test/),
 * creates such a database.
 */
function usesModeUnderTest(file: string, seen: Set<string>): boolean {
  if (seen.has(file) || !existsSync(file) || !file.includes('/test/')) return false;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  if (source.includes(MODE_UNDER_TEST)) return true;
  return [...source.matchAll(/from '(\.{1,2}\/[^']+)'/g)].some(([, path]) =>
    usesModeUnderTest(`${resolve(dirname(file), path!)}.ts`, seen),
  );
}

function testFiles(dir: string): string[] {
  return ['src', 'test'].flatMap((sub) => walk(join(dir, sub))).filter((file) => /\.test\.tsx?$/.test(file));
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'generated') return [];
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}
