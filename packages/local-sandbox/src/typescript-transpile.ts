import { type Message, type TransformFailure, transform } from 'esbuild';

/** Transpiled JavaScript and the file name to run it under, or the compiler's complaint. */
export type Transpiled = { ok: true; fileName: string; code: string } | { ok: false; stderr: string };

/**
 * Turns TypeScript into JavaScript on the host, as `tsx` would before running it: CommonJS unless the code needs
 * top-level await (then an ES module), with an inline source map so stack traces name the .ts file and its
 * lines. Types are not checked, as tsx does not check them. The sandbox then needs only `node`.
 */
export async function transpileTypeScript(code: string, sourcePath: string): Promise<Transpiled> {
  const base = sourcePath.replace(/\.ts$/, '');
  const attempt = (format: 'cjs' | 'esm') =>
    transform(code, { loader: 'ts', format, target: 'node20', sourcemap: 'inline', sourcefile: sourcePath });
  try {
    return { ok: true, fileName: `${base}.js`, code: (await attempt('cjs')).code };
  } catch (error) {
    const errors = (error as TransformFailure).errors ?? [];
    if (!errors.some((message) => message.text.startsWith('Top-level await'))) return failure(error, errors);
    try {
      return { ok: true, fileName: `${base}.mjs`, code: (await attempt('esm')).code };
    } catch (esmError) {
      return failure(esmError, (esmError as TransformFailure).errors ?? []);
    }
  }
}

function failure(error: unknown, errors: Message[]): Transpiled {
  if (errors.length === 0) throw error;
  const lines = errors.map(
    ({ location, text }) =>
      `${location ? `${location.file}:${location.line}:${location.column}: ` : ''}ERROR: ${text}`,
  );
  return {
    ok: false,
    stderr: `Error: Transform failed with ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${lines.join('\n')}\n`,
  };
}
