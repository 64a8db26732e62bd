import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../src/sql-client';
import { createTestDatabase, type TestDatabase } from '../src/test-database';
import { type SchemaShape, actualShape, expectedShape, readSchema } from './schema-drift';

describe('schema.prisma and the migrated database', () => {
  let database: TestDatabase;
  let client: SqlClient;
  let expected: SchemaShape;
  let actual: SchemaShape;

  beforeAll(async () => {
    database = await createTestDatabase();
    client = await database.connectSql();
    expected = expectedShape(await readSchema());
    actual = await actualShape(client);
  });

  afterAll(async () => {
    await client?.close();
    await database?.drop();
  });

  it('have the same tables', () => {
    expect(Object.keys(actual.tables).sort()).toEqual(Object.keys(expected.tables).sort());
  });

  it('have the same columns, types, nullability and defaults in every table', () => {
    for (const [table, columns] of Object.entries(expected.tables)) {
      expect({ table, columns: actual.tables[table] }).toEqual({ table, columns });
    }
  });

  it('have the same primary keys, unique constraints and indexes', () => {
    expect(actual.indexes).toEqual(expected.indexes);
  });

  it('have the same foreign keys with the same referential actions', () => {
    expect(actual.foreignKeys).toEqual(expected.foreignKeys);
  });

  it('would notice a drift: a column the schema does not declare', async () => {
    await client.query('ALTER TABLE "task" ADD COLUMN "stray" TEXT');
    try {
      const drifted = await actualShape(client);
      expect(drifted.tables.task).not.toEqual(expected.tables.task);
    } finally {
      await client.query('ALTER TABLE "task" DROP COLUMN "stray"');
    }
  });
});
