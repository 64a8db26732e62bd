import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { DATABASE_URL } from './stack';

const FUSEBOX = fileURLToPath(new URL('../apps/api/bin/fusebox.js', import.meta.url));

/** Runs `fusebox …` against the browser tests' database, as a user would in a terminal. */
export async function fusebox(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [FUSEBOX, ...args], {
    env: { ...process.env, DATABASE_URL },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}
