import { spawn } from 'node:child_process';

/** The floor runs are compared with: ARCHITECTURE.md's baseline bubblewrap isolation, and nothing else. */
export const BWRAP_FLOOR = [
  '--unshare-all',
  '--die-with-parent',
  '--new-session',
  '--uid',
  '65534',
  '--gid',
  '65534',
  '--ro-bind',
  '/usr',
  '/usr',
  '--symlink',
  'usr/lib',
  '/lib',
  '--symlink',
  'usr/lib64',
  '/lib64',
  '--symlink',
  'usr/bin',
  '/bin',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
  '--tmpfs',
  '/tmp',
];

/** A call that spawns `argv` and resolves once it exits 0 having printed exactly `expected`. */
export function spawnCall(argv: readonly string[], expected: string): () => Promise<void> {
  return () =>
    new Promise((resolve, reject) => {
      const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 && out === expected ? resolve() : reject(new Error(`${argv[0]}: ${code} ${out}`)),
      );
    });
}
