import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));
/** Made by `prisma generate` and ignored by git: the baseline shares this checkout's, for the same schema. */
const GENERATED_CLIENT = 'packages/db/src/generated';
const SCHEMA = 'prisma/schema.prisma';

const git = (...args: string[]) => execFileSync('git', ['-C', CHECKOUT, ...args], { encoding: 'utf8' });

/**
 * Builds the CLI as it was at `commit`, so that a bench can start the old and the new side by side in one run:
 * the commit's files (git archive) in a temporary directory, with this checkout's npm packages and Prisma client
 * and the commit's own workspace packages. Gives the path of its bin/fusebox.js, which runs that build, and how
 * to remove it all. A schema changed since `commit` is refused unless `newerSchema` says the bench runs the
 * baseline only where this checkout's client and database fit it (an importer that writes through SQL, on a
 * database this checkout migrated).
 */
export function buildAtCommit(
  commit: string,
  { newerSchema = false }: { newerSchema?: boolean } = {},
): { bin: string; remove(): void } {
  if (!newerSchema && git('diff', '--name-only', commit, 'HEAD', '--', SCHEMA).trim() !== '') {
    throw new Error(`${SCHEMA} changed since ${commit}: this checkout's Prisma client does not fit it`);
  }
  const dir = mkdtempSync(join(tmpdir(), `fusebox-baseline-${commit.slice(0, 8)}-`));
  execFileSync('sh', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'sh', CHECKOUT, commit, dir]);
  // npm packages from this checkout; the workspace's own (@fusebox/*) from the commit's files.
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(CHECKOUT, 'node_modules'))) {
    if (name !== '@fusebox') symlinkSync(join(CHECKOUT, 'node_modules', name), join(modules, name));
  }
  mkdirSync(join(modules, '@fusebox'));
  for (const name of readdirSync(join(CHECKOUT, 'node_modules', '@fusebox'))) {
    const workspace = execFileSync('readlink', [join(CHECKOUT, 'node_modules', '@fusebox', name)], {
      encoding: 'utf8',
    }).trim();
    symlinkSync(workspace, join(modules, '@fusebox', name));
  }
  cpSync(join(CHECKOUT, GENERATED_CLIENT), join(dir, GENERATED_CLIENT), { recursive: true });
  const built = spawnSync(process.execPath, [join(dir, 'apps/api/scripts/build.mjs')], {
    cwd: dir,
    stdio: 'ignore',
  });
  const remove = () => rmSync(dir, { recursive: true, force: true });
  if (built.status !== 0) {
    remove();
    throw new Error(`the build at ${commit} failed`);
  }
  return { bin: join(dir, 'apps/api/bin/fusebox.js'), remove };
}
