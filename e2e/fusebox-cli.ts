import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { DATABASE_URL } from './stack';

const FUSEBOX = fileURLToPath(new URL('../apps/api/bin/fusebox.js', import.meta.url));

/** A `fusebox …` process started from a test, with what it has printed so far. */
export interface FuseboxProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** Starts `fusebox …` against the browser tests' database, as a user would in a terminal, and returns at once. */
export function startFusebox(args: string[]): FuseboxProcess {
  const child = spawn(process.execPath, [FUSEBOX, ...args], {
    env: { ...process.env, DATABASE_URL },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': the process can end before the last of its output has been read.
  const exited = once(child, 'close').then(([code]) => code as number | null);
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs `fusebox …` to its end. */
export async function fusebox(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const started = startFusebox(args);
  const code = await started.exited;
  return { code, stdout: started.stdout(), stderr: started.stderr() };
}
