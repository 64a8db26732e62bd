import { readFileSync } from 'node:fs';

/** Fusebox's version, from the API package's package.json. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
