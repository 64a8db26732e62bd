// The `fusebox` command as a user gets it outside this repository: `npx fusebox` would fetch an unrelated npm
// package of that name, so the CLI is reached by its scoped package, `npx @fusebox/api`, whose one bin is
// `fusebox`. This packs the host app and every workspace package it depends on (the SDK built, as a publish
// would), installs the tarballs into a new project under the temporary directory, and runs the command there.
import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, build, install, newProject, pack, sh } from './helpers/outside-project';

const CLI_PACKAGE = '@fusebox/api';
const SDK = ['@fusebox/sandbox-client', '@fusebox/rate-limiter', '@fusebox/tools'];

function progress(message: string): void {
  process.stderr.write(`[packed-cli] ${message}\n`);
}

async function manifest(name: string): Promise<{ version: string; dependencies?: Record<string, string> }> {
  const dir = await realpath(join(ROOT, 'node_modules', name));
  return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
  };
}

/** The package and every workspace package it depends on, directly or not. */
async function workspaceClosure(name: string): Promise<string[]> {
  const found = new Set<string>();
  const visit = async (next: string) => {
    if (found.has(next)) return;
    found.add(next);
    const dependencies = Object.keys((await manifest(next)).dependencies ?? {});
    for (const dependency of dependencies.filter((entry) => entry.startsWith('@fusebox/')))
      await visit(dependency);
  };
  await visit(name);
  return [...found].sort();
}

describe('the fusebox CLI, packed and installed outside the repository', () => {
  let work: string;
  let project: string;
  let version: string;

  beforeAll(async () => {
    version = (await manifest(CLI_PACKAGE)).version;
    const workspaces = await workspaceClosure(CLI_PACKAGE);
    progress('building the SDK packages (turbo, cached)');
    await build(SDK.filter((name) => workspaces.includes(name)));
    work = await mkdtemp(join(tmpdir(), 'fusebox-packed-cli-'));
    const tarballs = join(work, 'tarballs');
    await mkdir(tarballs);
    progress(`packing ${workspaces.join(', ')}`);
    const packed = await pack(workspaces, tarballs);
    project = await newProject(join(work, 'project'));
    progress(`installing ${packed.length} tarballs into ${project}`);
    await install(
      project,
      packed.map(({ filename }) => join(tarballs, filename)),
    );
  });

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('answers --version through its scoped npx name, from the installed package alone', async () => {
    // --no-install: the installed package or a failure, never a download of whatever the name resolves to.
    const { stdout } = await sh('npx', ['--no-install', CLI_PACKAGE, '--version'], project);
    expect(stdout.trim()).toBe(`fusebox ${version}`);
  });

  it('installs the command as `fusebox`, with its usage', async () => {
    const { stdout } = await sh('npx', ['--no-install', 'fusebox', '--help'], project);
    expect(stdout).toContain('usage: fusebox <command> [options]');
    expect(stdout).toMatch(/^ {2}serve\s/m);
  });
});
