// Whether apps/api/dist/cli.js (scripts/build.mjs) was built from the sources as they are now: none of the files
// it was made from is newer than it, or gone. A stale build is never run; the TypeScript is, through tsx.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const app = dirname(dirname(fileURLToPath(import.meta.url)));
export const BUILT_CLI = join(app, 'dist', 'cli.js');
export const BUILT_CLI_URL = pathToFileURL(BUILT_CLI).href;

export function freshBuild() {
  try {
    const { builtAt, inputs } = JSON.parse(readFileSync(join(app, 'dist', 'inputs.json'), 'utf8'));
    return inputs.every((input) => statSync(join(app, input)).mtimeMs < builtAt);
  } catch {
    return false;
  }
}
