#!/usr/bin/env node
// The `fusebox` command: loads the TypeScript CLI through tsx, so the workspace needs no build step.
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

registerTsx();
// Hooks registered later run first: this one adds the source condition before tsx and Node resolve.
register('./source-condition.js', import.meta.url);
await import('../src/cli.ts');
