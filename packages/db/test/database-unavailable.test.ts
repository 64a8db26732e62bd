import { type Socket, createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createPrismaClient } from '../src/client';
import { isDatabaseUnavailable } from '../src/database-unavailable';
import { createPostgresTestDatabase } from '../src/test-database';

// Real failures from Prisma on its pg adapter, each classified: the database's fault (503) or the statement's.
describe('isDatabaseUnavailable', () => {
  const accepted = new Set<Socket>();
  const silent = createServer((socket) => accepted.add(socket));
  afterAll(async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('is true for a server that refuses connections and for one that never answers', async () => {
    const refused = createPrismaClient('postgresql://postgres@127.0.0.1:1/none');
    const refusal = await refused.$queryRawUnsafe('SELECT 1').catch((error: unknown) => error);
    expect(isDatabaseUnavailable(refusal)).toBe(true);
    await refused.$disconnect();

    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const hung = createPrismaClient(`postgresql://postgres@127.0.0.1:${port}/none`);
    const silence = await hung.$queryRawUnsafe('SELECT 1').catch((error: unknown) => error);
    expect(isDatabaseUnavailable(silence)).toBe(true);
    await hung.$disconnect();
  });

  it('is true for a statement timeout, false for a statement that is wrong', async () => {
    const database = await createPostgresTestDatabase();
    const prisma = createPrismaClient(database.url, { statementTimeoutMs: 200 });
    try {
      const slow = await prisma.$queryRawUnsafe('SELECT pg_sleep(2)').catch((error: unknown) => error);
      expect(isDatabaseUnavailable(slow)).toBe(true);
      const wrong = await prisma.$queryRawUnsafe('SELECT 1/0').catch((error: unknown) => error);
      expect(wrong).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(wrong)).toBe(false);
    } finally {
      await prisma.$disconnect();
      await database.drop();
    }
  });
});
