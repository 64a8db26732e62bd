import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// What the packed-package tests share: running commands the way a user's shell would, packing workspaces into
// tarballs, and a fresh project outside the repository to install them into.

const run = promisify(execFile);

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A tool the workspace installs (turbo, tsc, publint), by its path. */
export const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

export interface PackResult {
  name: string;
  version: string;
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

/** Children get this process's environment minus NODE_OPTIONS, so nothing of the workspace's setup leaks in. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _, ...rest } = process.env;
  return { ...rest, ...extra };
}

/** Runs a command to completion; a failure throws with the command, the directory and both outputs. */
export async function sh(command: string, args: string[], cwd: string, extra: Record<string, string> = {}) {
  try {
    return await run(command, args, { cwd, env: childEnv(extra), maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`, { cause: error });
  }
}

/** Builds the workspaces' `build` tasks with turbo (cached across runs). */
export async function build(workspaces: string[]): Promise<void> {
  const filters = workspaces.map((name) => `--filter=${name}`);
  await sh(bin('turbo'), ['run', 'build', ...filters, '--output-logs=errors-only'], ROOT, {
    TURBO_TELEMETRY_DISABLED: '1',
  });
}

/** Packs the workspaces into `destination` with `npm pack`, as a publish would. */
export async function pack(workspaces: string[], destination: string): Promise<PackResult[]> {
  const args = workspaces.flatMap((name) => ['-w', name]);
  const { stdout } = await sh('npm', ['pack', '--json', '--pack-destination', destination, ...args], ROOT);
  return JSON.parse(stdout) as PackResult[];
}

/** A new, empty npm project at `dir`, as a user would start one. */
export async function newProject(dir: string): Promise<string> {
  await mkdir(dir);
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'outside-user', private: true, type: 'module' }, null, 2),
  );
  return dir;
}

/** Installs tarballs (and any registry specs) into a project, from npm's cache first. */
export async function install(project: string, specs: string[]): Promise<void> {
  await sh(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...specs],
    project,
  );
}
