import { defineConfig } from 'tsup';

// The published build (docs/DEVELOPING.md, "The SDK packages"): one ESM file per entry, with the modules that
// entries share split into chunks so each class exists once, and bundled `.d.ts` files. The source imports its
// files without extensions (`moduleResolution: Bundler`), which Node's ESM loader refuses in plain tsc output;
// bundling each entry removes the relative imports altogether. Dependencies stay imports; the target is
// tsconfig's (ES2023, which Node 20 runs); splitting is on for ESM.
export default defineConfig({
  entry: ['src/index.ts', 'src/protocol.ts'],
  format: 'esm',
  dts: true,
  clean: true,
});
