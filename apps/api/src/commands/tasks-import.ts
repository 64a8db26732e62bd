import { databaseTarget } from '../database';
import { readEnv } from '../env';
import { ServerImportError, openImporter } from '@fusebox/local-import';
import { TASK_FORMATS, type TaskFormat } from '@fusebox/tasks';
import { type Command, UsageError } from './command';
import { progressBar } from './rollouts-progress';

/** Rejected lines printed one by one before the rest are only counted. */
const PROBLEMS_SHOWN = 50;
/** Why the file could not be read, for the errors a mistyped or wrong path gives. */
const UNREADABLE: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'a directory, not a file (give the JSONL file of tasks)',
  EACCES: 'not readable by this user',
};

export const tasksImportCommand: Command = {
  path: ['tasks', 'import'],
  summary: 'load agent tasks (what /start_instance instance_hash values name) from a JSONL file',
  args: 'FILE.jsonl',
  help: [
    '--format F   auto (default: decided per line), fusebox (docs/sessions.md), or SandboxFusion rows:',
    '             autoeval, humaneval, mbpp or common_oj (each row is a task of that dataset)',
    'Tasks are created or updated by instance_hash, so importing again is safe. Bad lines are reported as',
    'FILE:LINE and skipped; the exit code is 1 if any line was rejected. Uses DATABASE_URL, or the embedded',
    'database in FUSEBOX_DATA_DIR (through `fusebox serve` when it is running there).',
  ],
  options: { format: { type: 'string', default: 'auto' } },
  async run(values, positionals) {
    const [path, ...extra] = positionals;
    if (!path || extra.length > 0) throw new UsageError('expected exactly one file');
    const format = values.format as TaskFormat;
    if (!TASK_FORMATS.includes(format))
      throw new UsageError(`--format must be one of ${TASK_FORMATS.join(', ')}`);
    const env = readEnv();
    const { importer, via } = await openImporter(databaseTarget(env), {
      apiToken: env.FUSEBOX_API_TOKEN,
      maxConnections: 2,
    });
    if (via) console.error(via);
    const bar = progressBar(process.stderr, 'tasks');
    let shown = 0;
    let bytesTotal = 0;
    try {
      const summary = await importer.importTasks({
        path,
        format,
        onProblem: ({ line, problem }) => {
          shown += 1;
          if (shown > PROBLEMS_SHOWN) return;
          bar.clear();
          console.error(`${path}:${line}: ${problem}`);
        },
        onProgress: (progress) => {
          bytesTotal = progress.bytesTotal;
          bar.update({ bytesDone: progress.bytesDone, bytesTotal, samples: progress.loaded });
        },
      });
      bar.finish({ bytesDone: bytesTotal, bytesTotal, samples: summary.loaded });
      if (shown > PROBLEMS_SHOWN) console.error(`… and ${shown - PROBLEMS_SHOWN} more rejected lines`);
      console.log(
        `${path}: loaded ${summary.loaded} tasks (${summary.created} new, ${summary.loaded - summary.created} updated), ` +
          `rejected ${summary.rejected} lines`,
      );
      return summary.rejected > 0 ? 1 : 0;
    } catch (error) {
      bar.clear();
      const unreadable = UNREADABLE[(error as NodeJS.ErrnoException).code ?? ''];
      if (unreadable) {
        console.error(`fusebox tasks import: ${unreadable}: ${path}`);
        return 1;
      }
      if (error instanceof ServerImportError) {
        console.error(`fusebox tasks import: ${error.message}`);
        return 1;
      }
      throw error;
    } finally {
      await importer.close();
    }
  },
};
