// The SDK as a user gets it: build and pack @fusebox/sandbox-client, @fusebox/rate-limiter and @fusebox/tools,
// install the tarballs (and nothing of this workspace) into a new project under the temporary directory, and
// there run a plain Node ESM program against a live Fusebox and Postgres, compile a strict NodeNext TypeScript
// file, and lint the tarballs with publint and attw. Installs use npm's cache first (--prefer-offline).
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningServer, startServer } from '@fusebox/api/testing';
import { type PostgresTestDatabase, createPostgresTestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackResult, ROOT, bin, build, install, newProject, pack, sh } from './helpers/outside-project';

const USER_FILES = fileURLToPath(new URL('../outside-project/', import.meta.url));
const PACKAGES = ['@fusebox/sandbox-client', '@fusebox/rate-limiter', '@fusebox/tools'];

function progress(message: string): void {
  process.stderr.write(`[packed-sdk] ${message}\n`);
}

/** The exact version the workspace pins for a tool the user project installs too. */
async function pinned(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  return manifest.devDependencies[name] ?? 'latest';
}

describe('the packed SDK, installed in a project outside the repository', () => {
  let work: string;
  let project: string;
  let packed: PackResult[];
  let database: PostgresTestDatabase;
  let server: RunningServer;

  beforeAll(async () => {
    const began = Date.now();
    progress('building the SDK packages (turbo, cached)');
    await build(PACKAGES);

    work = await mkdtemp(join(tmpdir(), 'fusebox-packed-sdk-'));
    const tarballs = join(work, 'tarballs');
    await mkdir(tarballs);
    progress(`packing into ${tarballs}`);
    packed = await pack(PACKAGES, tarballs);
    for (const { filename, size, files } of packed)
      progress(`  ${filename}: ${size} bytes, ${files.length} files`);

    project = await newProject(join(work, 'project'));
    const tools = [`typescript@${await pinned('typescript')}`, `@types/node@${await pinned('@types/node')}`];
    progress(`installing the tarballs, pg, ${tools.join(', ')} into ${project}`);
    await install(project, [
      ...packed.map(({ filename }) => join(tarballs, filename)),
      'pg@^8.11.0',
      ...tools,
    ]);
    for (const file of ['use-sdk.mjs', 'user.ts'])
      await copyFile(join(USER_FILES, file), join(project, file));

    progress('starting Fusebox on a Postgres test database');
    database = await createPostgresTestDatabase();
    server = await startServer(database.env, ['--no-dashboard'], 120_000);
    progress(`ready after ${Math.round((Date.now() - began) / 1000)} s`);
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('packs only the build, the README and the manifest', () => {
    expect(packed.map(({ name }) => name).sort()).toEqual([...PACKAGES].sort());
    for (const { name, files } of packed) {
      const paths = files.map(({ path }) => path);
      expect(paths, name).toContain('README.md');
      expect(paths, name).toContain('dist/index.js');
      expect(paths, name).toContain('dist/index.d.ts');
      expect(paths.filter((path) => !/^(dist\/.+\.(js|d\.ts)|README\.md|package\.json)$/.test(path))).toEqual(
        [],
      );
    }
  });

  it('runs runCode, both limiters and a tool episode from plain Node ESM', async () => {
    const { stdout } = await sh(process.execPath, ['use-sdk.mjs'], project, {
      FUSEBOX_URL: server.url,
      DATABASE_URL: database.url,
    });
    const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(out).toEqual({
      runCode: { status: 'Success', stdout: '42\n', category: 'success' },
      refused: { isClientError: true, isHttpError: true, status: 422 },
      local: { squares: [1, 4, 9, 16, 25], most: 2 },
      pg: { held: 'slot 1', keys: expect.arrayContaining(['outside-pg/2']) as unknown },
      down: { code: 'FUSEBOX_LIMITER_UNAVAILABLE', rootClasses: true },
      episode: { state: 'COMPLETED', tool: ['1024\n'], score: 1 },
    });
  });

  it('compiles a strict NodeNext TypeScript file against the installed types with no error', async () => {
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files: ['user.ts'],
      }),
    );
    const { stdout } = await sh(
      join(project, 'node_modules', '.bin', 'tsc'),
      ['-p', '.', '--pretty', 'false'],
      project,
    );
    expect(stdout).toBe('');
  });

  it('passes publint and attw on every tarball', async () => {
    for (const { filename } of packed) {
      const tarball = join(work, 'tarballs', filename);
      const lint = await sh(bin('publint'), [tarball, '--strict'], project);
      expect(lint.stdout, filename).toContain('All good');
      // ESM only, on purpose: the node10 and CommonJS resolutions are not offered (attw exits non-zero otherwise).
      await sh(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii'], project);
    }
  });
});
