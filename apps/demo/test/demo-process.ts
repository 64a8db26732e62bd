import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runNode } from '@fusebox/api/testing';

/**
 * How Node runs the demo from this checkout: its TypeScript entry through tsx, with the workspace's source
 * condition. tsx is named by its path, so the demo runs from any working directory (an embedded server's).
 */
export const DEMO_COMMAND = [
  '--conditions=@fusebox/source',
  '--import',
  pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href,
  fileURLToPath(new URL('../src/main.ts', import.meta.url)),
];

/** Runs the demo (`npm run demo -- …`) to completion and returns its exit code and output. */
export function runDemoCli(args: string[], env: Record<string, string> = {}, options: { cwd?: string } = {}) {
  return runNode([...DEMO_COMMAND, ...args], env, options);
}
