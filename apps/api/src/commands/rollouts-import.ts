import { databaseTarget } from '../database';
import { readEnv } from '../env';
import { ServerImportError, openImporter } from '@fusebox/local-import';
import {
  DEFAULT_IMPORT_JOBS,
  type ImportProblem,
  type ImportSummary,
  RolloutImportError,
  watchDump,
} from '@fusebox/rollouts';
import { type Command, UsageError } from './command';
import { formatBytes, progressBar } from './rollouts-progress';

/** Malformed lines printed one by one before the rest are only counted. */
const PROBLEMS_SHOWN = 50;
/** More sessions than this would only queue for the server's cores. */
const MAX_JOBS = 32;

export const rolloutsImportCommand: Command = {
  path: ['rollouts', 'import'],
  summary: "import verl rollout dumps ({step}.jsonl) for the dashboard's rollout browser",
  args: 'DIR',
  help: [
    "DIR is verl's trainer.rollout_data_dir. Re-importing adds only what is new, so it is safe to repeat.",
    '--name NAME   the run to import into (default: the directory name)',
    '--watch       keep importing while training writes new steps; stop with Ctrl-C',
    `--jobs N      step files imported at once, on Postgres (default ${DEFAULT_IMPORT_JOBS}; embedded: one at a time)`,
    'Malformed lines are reported as file:line and skipped. Uses DATABASE_URL, or the embedded database in',
    'FUSEBOX_DATA_DIR (through `fusebox serve` when it is running there).',
  ],
  options: { name: { type: 'string' }, watch: { type: 'boolean', default: false }, jobs: { type: 'string' } },
  async run(values, positionals) {
    const [dir, ...extra] = positionals;
    if (!dir || extra.length > 0) throw new UsageError('expected exactly one directory');
    const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
    if (jobs !== undefined && !(Number.isInteger(jobs) && jobs >= 1 && jobs <= MAX_JOBS)) {
      throw new UsageError(
        `--jobs must be a whole number from 1 to ${MAX_JOBS}, not "${String(values.jobs)}"`,
      );
    }
    const env = readEnv();
    const { importer, via } = await openImporter(databaseTarget(env), { apiToken: env.FUSEBOX_API_TOKEN });
    if (via) console.error(via);
    const bar = progressBar();
    let problems = 0;
    const onProblem = (problem: ImportProblem) => {
      problems += 1;
      if (problems > PROBLEMS_SHOWN) return;
      bar.clear();
      console.error(`${problem.file}:${problem.line}: ${problem.problem}, skipped`);
    };
    const name = typeof values.name === 'string' ? values.name : undefined;
    const target = { dir, ...(name ? { name } : {}), ...(jobs ? { jobs } : {}) };
    const startedAt = performance.now();
    try {
      if (values.watch) {
        const stop = new AbortController();
        const onSignal = () => stop.abort();
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        console.log(`watching ${dir} for new steps; Ctrl-C stops`);
        const noted = new Set<string>();
        await watchDump((options) => importer.importDump(options), {
          ...target,
          signal: stop.signal,
          onProblem,
          onFile: (file, result) => {
            // A note (an empty or rewritten file) would otherwise repeat on every pass.
            const line = describeFile(file.name, result);
            if (result.note && noted.has(line)) return;
            if (result.note) noted.add(line);
            console.log(line);
          },
          onWaiting: (reason) => console.error(`waiting: ${reason}`),
        });
        return 0;
      }
      let bytes = 0;
      const summary = await importer.importDump({
        ...target,
        onProblem,
        onProgress: (progress) => {
          bytes = progress.bytesDone;
          bar.update(progress);
        },
        onFile: (file, result) => {
          if (!process.stderr.isTTY) console.log(describeFile(file.name, result));
        },
      });
      bar.finish({ bytesDone: bytes, bytesTotal: bytes, samples: summary.added });
      return report(summary, dir, problems, bytes, performance.now() - startedAt);
    } catch (error) {
      bar.clear();
      if (error instanceof RolloutImportError || error instanceof ServerImportError) {
        console.error(`fusebox rollouts import: ${error.message}`);
        return 1;
      }
      throw error;
    } finally {
      await importer.close();
    }
  },
};

function describeFile(name: string, result: { added: number; rejected: number; note?: string }): string {
  if (result.note) return `${name}: ${result.note}`;
  return `${name}: ${result.added} samples${result.rejected ? `, ${result.rejected} malformed lines skipped` : ''}`;
}

function report(summary: ImportSummary, dir: string, problems: number, bytes: number, ms: number): number {
  for (const skipped of summary.skipped) console.error(`${skipped.name}: skipped, ${skipped.reason}`);
  if (problems > PROBLEMS_SHOWN) console.error(`… and ${problems - PROBLEMS_SHOWN} more malformed lines`);
  if (summary.files === 0) {
    console.error(
      `fusebox rollouts import: no {step}.jsonl files in ${dir}; point it at verl's trainer.rollout_data_dir`,
    );
    return 1;
  }
  const seconds = (ms / 1000).toFixed(1);
  console.log(
    summary.added === 0 && summary.rejected === 0
      ? `run "${summary.run.name}": nothing new in ${summary.files} files (already imported)`
      : `run "${summary.run.name}": imported ${summary.added.toLocaleString('en-US')} samples ` +
          `(${formatBytes(bytes)}) from ${summary.files} files in ${seconds} s` +
          (summary.rejected ? `; ${summary.rejected} malformed lines skipped` : ''),
  );
  return 0;
}
