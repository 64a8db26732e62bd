import type { PrismaClient } from '@fusebox/db/client';
import type { TaskRecord } from './task-record';

/**
 * Creates or updates tasks by instance_hash in one transaction; resolves to how many were new. Sessions keep
 * pointing at an updated task, and score against its new tests from then on.
 */
export async function upsertTasks(prisma: PrismaClient, tasks: TaskRecord[]): Promise<number> {
  const ids = tasks.map((task) => task.id);
  // A batch, not an interactive transaction, which would hold its connection across a round trip per statement:
  // a server starting on a loaded machine (five at once, load 20) lost its builtin tasks' import to the 5 s
  // bound Prisma then set on it, and exited (P2028). Both are bounded by transactionOptions in @fusebox/db now.
  const [existing] = await prisma.$transaction([
    prisma.task.count({ where: { id: { in: ids } } }),
    ...tasks.map(({ id, ...fields }) =>
      prisma.task.upsert({ where: { id }, create: { id, ...fields }, update: fields }),
    ),
  ]);
  return tasks.length - existing;
}
