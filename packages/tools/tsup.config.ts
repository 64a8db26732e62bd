import { defineConfig } from 'tsup';

// The published build, as for @fusebox/sandbox-client (see its tsup.config.ts). The sibling SDK packages stay
// imports (dependencies); `@fusebox/rate-limiter/pg` stays a dynamic import, loaded only for a database_url.
// @fusebox/input is private, a devDependency: what the tools use of it is bundled in.
export default defineConfig({ entry: ['src/index.ts'], format: 'esm', dts: true, clean: true });
