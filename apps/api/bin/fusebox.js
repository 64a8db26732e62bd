#!/usr/bin/env node
// The `fusebox` command. From the checkout it runs the build of the CLI (dist/cli.js, made by `npm run setup`)
// while that is fresh, and otherwise the TypeScript itself through tsx: compiling it costs a start seconds
// (bench/api/RESTART.md).
import { register } from 'node:module';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runUnderInit } from './as-pid-1.js';
import { BUILT_CLI_URL, freshBuild } from './fresh-build.js';

// In the checkout the SDK packages load from their source. Installed from a tarball (under node_modules), they
// have no source, only their build, which is what Node picks without the condition.
const installed = fileURLToPath(import.meta.url)
  .split(sep)
  .includes('node_modules');

if (process.pid === 1) {
  runUnderInit();
} else if (!installed && freshBuild()) {
  await import(BUILT_CLI_URL);
} else {
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  // Hooks registered later run first: this one adds the source condition before tsx and Node resolve.
  if (!installed) register('./source-condition.js', import.meta.url);
  await import('../src/cli.ts');
}
