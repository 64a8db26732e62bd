import { fileURLToPath } from 'node:url';
import type { PrismaClient } from '@fusebox/db/client';
import { importTasks } from './import-tasks';

/** The tasks shipped with Fusebox (instance_hash 9000000000000000001…), so sessions work out of the box. */
export const BUILTIN_TASKS_PATH = fileURLToPath(new URL('../builtin.jsonl', import.meta.url));

/**
 * Creates or refreshes the builtin tasks; run at every start-up, so it is idempotent. A rejected line is a bug
 * in the shipped file, so it throws rather than starting without it.
 */
export async function loadBuiltinTasks(prisma: PrismaClient): Promise<number> {
  const problems: string[] = [];
  const summary = await importTasks(prisma, {
    path: BUILTIN_TASKS_PATH,
    format: 'fusebox',
    source: 'builtin',
    onProblem: ({ line, problem }) => problems.push(`line ${line}: ${problem}`),
  });
  if (problems.length > 0) throw new Error(`the builtin tasks are invalid:\n${problems.join('\n')}`);
  return summary.loaded;
}
