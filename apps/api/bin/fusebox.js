#!/usr/bin/env node
// The `fusebox` command: loads the TypeScript CLI through tsx, so the workspace needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
