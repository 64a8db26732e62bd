import { openImporter } from '@fusebox/local-import';
import { databaseTarget } from '../database';
import { readEnv } from '../env';
import { type Command, UsageError } from './command';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const runsDeleteCommand: Command = {
  path: ['runs', 'delete'],
  summary: 'delete an imported rollout run (by name or id), its samples and its search index',
  args: 'RUN',
  help: [
    'The dump files are not touched: `fusebox rollouts import DIR --name NAME` imports the run again.',
    'Uses DATABASE_URL, or the embedded database in FUSEBOX_DATA_DIR; a data directory that a running',
    '`fusebox serve` holds is read-only to other commands, so stop the server first.',
  ],
  options: {},
  async run(_values, positionals) {
    const [name, ...extra] = positionals;
    if (!name || extra.length > 0) throw new UsageError('expected exactly one run, by name or id');
    const env = readEnv();
    const { importer, via } = await openImporter(databaseTarget(env), { apiToken: env.FUSEBOX_API_TOKEN });
    try {
      if (via) {
        // Through the server, a command can only read (see openImporter).
        console.error(
          'fusebox runs delete: a running `fusebox serve` holds the data directory, and other commands can ' +
            'only read it: stop the server, then delete the run',
        );
        return 1;
      }
      const prisma = importer.reader;
      const run = await prisma.rolloutRun.findFirst({
        where: UUID.test(name) ? { OR: [{ id: name.toLowerCase() }, { name }] } : { name },
      });
      if (!run) {
        console.error(
          `fusebox runs delete: no run named ${JSON.stringify(name)}; \`fusebox runs list\` lists them`,
        );
        return 1;
      }
      const samples = await prisma.rolloutSample.count({ where: { runId: run.id } });
      console.error(`deleting ${run.name} (${samples} samples) …`);
      const started = performance.now();
      // Its files, samples and search index go with it (ON DELETE CASCADE).
      await prisma.rolloutRun.delete({ where: { id: run.id } });
      console.log(
        `deleted ${run.name} (${run.id}): ${samples} samples, in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
          `import it again with: fusebox rollouts import ${run.sourceDir} --name ${run.name}`,
      );
      return 0;
    } finally {
      await importer.close();
    }
  },
};
