import {
  CorpusImportError,
  type CorpusProblem,
  STEMMERS,
  type Stemmer,
  importCorpus,
} from '@fusebox/retrieval';
import { type Command, UsageError } from './command';
import { heldBy, openCommandDatabase } from './open-command-database';
import { progressBar } from './rollouts-progress';

/** Malformed lines printed one by one before the rest are only counted. */
const PROBLEMS_SHOWN = 50;

export const corpusImportCommand: Command = {
  path: ['corpus', 'import'],
  summary: 'import a Search-R1 corpus (JSONL of {id, contents}) for /retrieve and search tasks',
  args: 'FILE.jsonl',
  help: [
    'FILE.jsonl holds one passage per line, {"id": "0", "contents": "\\"Title\\"\\ntext"}, as Search-R1\'s',
    'wiki-18.jsonl. Re-importing continues where the last import of the file stopped, so it is safe to repeat',
    'or to resume after an interruption; lines appended since are added.',
    '--name NAME   the corpus to import into (default: the file name without .jsonl); /retrieve/NAME searches it',
    "--stemmer S   porter (a new corpus's default: `cities` matches `city`, as pyserini) or none; given for an",
    '              existing corpus, it changes how that corpus is searched from the next search on',
    'Malformed lines are reported by line number and skipped. Uses DATABASE_URL, or the embedded database in',
    'FUSEBOX_DATA_DIR (stop `fusebox serve` there first).',
  ],
  options: { name: { type: 'string' }, stemmer: { type: 'string' } },
  async run(values, positionals) {
    const [file, ...extra] = positionals;
    if (!file || extra.length > 0) throw new UsageError('expected exactly one corpus file');
    const name = typeof values.name === 'string' ? values.name : undefined;
    if (name !== undefined && name.trim() === '') throw new UsageError('--name must not be empty');
    const stemmer = values.stemmer;
    if (stemmer !== undefined && !STEMMERS.includes(stemmer as Stemmer))
      throw new UsageError(`--stemmer must be one of: ${STEMMERS.join(', ')}`);
    const database = await openCommandDatabase(
      'corpus import',
      (held) => `${heldBy(held)}; stop it first, or import into a Postgres (DATABASE_URL)`,
    );
    if (!database) return 1;
    const bar = progressBar(process.stderr, 'passages');
    let problems = 0;
    const onProblem = (problem: CorpusProblem) => {
      problems += 1;
      if (problems > PROBLEMS_SHOWN) return;
      bar.clear();
      console.error(`${file}:${problem.line}: ${problem.problem}, skipped`);
    };
    let last = { bytesDone: 0, bytesTotal: 0, samples: 0 };
    const startedAt = performance.now();
    try {
      const summary = await importCorpus(database.sql, {
        path: file,
        ...(name ? { name } : {}),
        ...(stemmer ? { stemmer: stemmer as Stemmer } : {}),
        onProblem,
        onProgress: ({ bytesDone, bytesTotal, documents }) => {
          last = { bytesDone, bytesTotal, samples: documents };
          bar.update(last);
        },
      });
      bar.finish(last);
      if (problems > PROBLEMS_SHOWN) console.error(`… and ${problems - PROBLEMS_SHOWN} more malformed lines`);
      const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
      console.log(
        summary.added === 0 && summary.rejected === 0
          ? `corpus "${summary.corpus.name}": nothing new in ${file} (${summary.documents.toLocaleString('en-US')} passages, stemmer ${summary.corpus.stemmer})`
          : `corpus "${summary.corpus.name}": imported ${summary.added.toLocaleString('en-US')} passages in ${seconds} s` +
              (summary.rejected ? `; ${summary.rejected} malformed lines skipped` : '') +
              ` (${summary.documents.toLocaleString('en-US')} in all, stemmer ${summary.corpus.stemmer})`,
      );
      return 0;
    } catch (error) {
      bar.clear();
      if (!(error instanceof CorpusImportError)) throw error;
      console.error(`fusebox corpus import: ${error.message}`);
      return 1;
    } finally {
      await database.close();
    }
  },
};
