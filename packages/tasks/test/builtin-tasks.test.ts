import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadBuiltinTasks } from '../src/builtin-tasks';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

it('loads the builtin tasks idempotently', async () => {
  const builtin = await database.inspect(async (prisma) => {
    expect(await loadBuiltinTasks(prisma)).toBe(6);
    expect(await loadBuiltinTasks(prisma)).toBe(6);
    return prisma.task.findMany({
      where: { source: 'builtin' },
      select: { id: true },
      orderBy: { id: 'asc' },
    });
  });
  expect(builtin.map((task) => task.id)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `900000000000000000${n}`));
});
