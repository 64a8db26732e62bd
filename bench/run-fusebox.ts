import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The `fusebox` CLI of this checkout. */
export const FUSEBOX = fileURLToPath(new URL('../apps/api/bin/fusebox.js', import.meta.url));

/** Runs the `fusebox` CLI with `env` added to this process's, and times it; its output is both streams, in order. */
export async function runFusebox(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; ms: number; out: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [FUSEBOX, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, ms: performance.now() - started, out };
}

/** CPU time (user + system) process `pid` has used so far, in ms; Linux counts it in ticks of 10 ms. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [utime, stime] = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 13)
    .map(Number);
  return (utime! + stime!) * 10;
}
