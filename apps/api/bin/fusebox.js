#!/usr/bin/env node
// The `fusebox` command: loads the TypeScript CLI through tsx, so the workspace needs no build step.
import { register } from 'node:module';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runUnderInit } from './as-pid-1.js';

if (process.pid === 1) {
  runUnderInit();
} else {
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  // In the checkout the SDK packages load from their source. Installed from a tarball (under node_modules), they
  // have no source, only their build, which is what Node picks without the condition.
  const installed = fileURLToPath(import.meta.url)
    .split(sep)
    .includes('node_modules');
  // Hooks registered later run first: this one adds the source condition before tsx and Node resolve.
  if (!installed) register('./source-condition.js', import.meta.url);
  await import('../src/cli.ts');
}
