import type { PrismaClient } from '@fusebox/db/client';
import { openImporter } from '@fusebox/local-import';
import { databaseTarget } from '../database';
import { readEnv } from '../env';
import { type Command, UsageError } from './command';

export const runsListCommand: Command = {
  path: ['runs', 'list'],
  summary: 'list the imported rollout runs: name, id, steps, samples, when, from where',
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
      const runs = await runSummaries(importer.reader);
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
          run.createdAt.toISOString().slice(0, 19).replace('T', ' '),
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

/** Each run, newest first, with its steps and samples counted. */
async function runSummaries(prisma: PrismaClient) {
  const [runs, samples, steps] = await Promise.all([
    prisma.rolloutRun.findMany({ orderBy: { createdAt: 'desc' } }),
    prisma.rolloutSample.groupBy({ by: ['runId'], _count: { _all: true } }),
    prisma.rolloutSample.groupBy({ by: ['runId', 'step'] }),
  ]);
  return runs.map((run) => ({
    ...run,
    samples: samples.find((count) => count.runId === run.id)?._count._all ?? 0,
    steps: steps.filter((step) => step.runId === run.id).length,
  }));
}
