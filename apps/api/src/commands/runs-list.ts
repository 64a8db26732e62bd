import { openImporter } from '@fusebox/local-import';
import { rolloutRuns } from '@fusebox/rollouts';
import { databaseTarget } from '../database';
import { readEnv } from '../env';
import { type Command, UsageError } from './command';

export const runsListCommand: Command = {
  path: ['runs', 'list'],
  summary: 'list the imported rollout runs: name, id, steps, samples, last import, source',
  help: [
    'Uses DATABASE_URL, or the embedded database in FUSEBOX_DATA_DIR (through `fusebox serve` when it is running',
    'there).',
  ],
  options: {},
  async run(_values, positionals) {
    if (positionals.length > 0) throw new UsageError('takes no arguments');
    const env = readEnv();
    const { importer } = await openImporter(databaseTarget(env), { apiToken: env.FUSEBOX_API_TOKEN });
    try {
      const runs = await rolloutRuns(importer.reader);
      if (runs.length === 0) {
        console.log('no rollout runs yet: import one with `fusebox rollouts import DIR`');
        return 0;
      }
      const rows = [
        ['NAME', 'ID', 'STEPS', 'SAMPLES', 'IMPORTED', 'FROM'],
        ...runs.map((run) => [
          run.name,
          run.id,
          String(run.steps),
          String(run.samples),
          run.updatedAt.toISOString().slice(0, 19).replace('T', ' '),
          run.sourceDir,
        ]),
      ];
      const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
      for (const row of rows)
        console.log(
          row
            .map((cell, column) => cell.padEnd(widths[column]!))
            .join('  ')
            .trimEnd(),
        );
      return 0;
    } finally {
      await importer.close();
    }
  },
};
