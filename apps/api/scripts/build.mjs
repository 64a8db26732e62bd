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

/** The namespace of the modules that load an npm package with require() (see typescript-by-require). */
const BY_REQUIRE = 'by-require';

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
      // TypeScript's compiler (9 MB of CommonJS) is loaded with require(): imported, Node first scans all of it
      // for its export names, 0.3-0.45 s of every start, for the default export that is all the workspace uses.
      name: 'typescript-by-require',
      setup(builder) {
        // The require() of the module below stays a call, made at run time through the banner's require.
        builder.onResolve({ filter: /^typescript$/ }, ({ kind }) =>
          kind === 'require-call'
            ? { path: 'typescript', external: true }
            : { path: 'typescript', namespace: BY_REQUIRE },
        );
        builder.onLoad({ filter: /.*/, namespace: BY_REQUIRE }, ({ path }) => ({
          contents: `export default require(${JSON.stringify(path)});`,
          loader: 'js',
        }));
      },
    },
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
const inputs = Object.keys(result.metafile.inputs)
  // The module typescript-by-require makes up is no file.
  .filter((input) => !input.startsWith(`${BY_REQUIRE}:`))
  .map((input) => relative(app, join(process.cwd(), input)));
writeFileSync(join(outdir, 'inputs.json'), `${JSON.stringify({ builtAt: startedAt, inputs })}\n`);
console.log(`built ${relative(process.cwd(), join(outdir, 'cli.js'))} from ${inputs.length} files`);
