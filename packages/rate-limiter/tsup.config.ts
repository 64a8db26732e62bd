import { defineConfig } from 'tsup';

// The published build, as for @fusebox/sandbox-client (see its tsup.config.ts): `pg` stays an import of the
// `./pg` entry only, and the errors both entries throw live in one shared chunk.
export default defineConfig({ entry: ['src/index.ts', 'src/pg.ts'], format: 'esm', dts: true, clean: true });
