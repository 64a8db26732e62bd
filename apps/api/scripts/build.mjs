// Builds the `fusebox` CLI into one JavaScript file, dist/cli.js, so that a start loads it at once instead of
// compiling the workspace's TypeScript first (tsx: 12 s idle, up to 56 s under load, on a 2-core VM). Run by
// `npm run setup` (and so `npm start`) when a source has changed since the last build; bin/fusebox.js uses the
// build only while it is fresh (see dist/inputs.json), and the TypeScript otherwise.
//
// The workspace's packages are bundled (they export TypeScript source); every npm package stays an import. Each
// bundled file keeps its own `import.meta.url`, so the files it reads beside itself (the sandbox's Python
// helpers, migrations, the dashboard's directory) are found where they are in the checkout.
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const app = dirname(dirname(fileURLToPath(import.meta.url)));
const outdir = join(app, 'dist');

/** Replaces `import.meta.url` in each TypeScript source with that file's own URL. */
const ownImportMeta = {
  name: 'own-import-meta',
  setup(builder) {
    builder.onLoad({ filter: /\.[cm]?ts$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      return {
        contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)),
        loader: 'ts',
      };
    });
  },
};

// Sources changed while it builds count as newer than the build.
const startedAt = Date.now();
const result = await build({
  entryPoints: [join(app, 'src', 'cli.ts')],
  outfile: join(outdir, 'cli.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['@fusebox/source'],
  plugins: [
    ownImportMeta,
    {
      // npm packages (and Node's own) stay imports, loaded from node_modules as the TypeScript loads them.
      name: 'external-npm-packages',
      setup(builder) {
        builder.onResolve({ filter: /^[^./]/ }, ({ path }) =>
          path.startsWith('@fusebox/') ? undefined : { path, external: true },
        );
      },
    },
  ],
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  banner: {
    // Bundled CommonJS dependencies of the workspace call require().
    js: "import { createRequire as __fuseboxRequire } from 'node:module'; const require = __fuseboxRequire(import.meta.url);",
  },
});

// What the build was made from: bin/fusebox.js uses it only while none of these is newer than the build.
const inputs = Object.keys(result.metafile.inputs).map((input) => relative(app, join(process.cwd(), input)));
writeFileSync(join(outdir, 'inputs.json'), `${JSON.stringify({ builtAt: startedAt, inputs })}\n`);
console.log(`built ${relative(process.cwd(), join(outdir, 'cli.js'))} from ${inputs.length} files`);
