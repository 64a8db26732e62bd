import type { PrismaClient } from '@fusebox/db/client';
import type { TaskRecord } from './task-record';

/**
 * Creates or updates tasks by instance_hash in one transaction; resolves to how many were new. Sessions keep
 * pointing at an updated task, and score against its new tests from then on.
 */
export async function upsertTasks(prisma: PrismaClient, tasks: TaskRecord[]): Promise<number> {
  const ids = tasks.map((task) => task.id);
  return prisma.$transaction(async (transaction) => {
    const existing = await transaction.task.count({ where: { id: { in: ids } } });
    for (const { id, ...fields } of tasks) {
      await transaction.task.upsert({ where: { id }, create: { id, ...fields }, update: fields });
    }
    return tasks.length - existing;
  });
}
