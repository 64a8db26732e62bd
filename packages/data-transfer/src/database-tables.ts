import type { SqlStatements } from '@fusebox/db/sql-client';

/** A table Fusebox keeps data in, with the columns an export carries (generated ones are left out). */
export interface DataTable {
  name: string;
  columns: string[];
}

/** The migration runner's bookkeeping: it belongs to the database, not to the data. */
const BOOKKEEPING = '_prisma_migrations';

/**
 * Every table of the public schema but the migrations' own, parents before the tables whose foreign keys point
 * at them, so that loading them in this order never references a row that is not there yet.
 */
export async function dataTables(sql: SqlStatements): Promise<DataTable[]> {
  const { rows: columns } = await sql.query<{ table: string; column: string }>(
    `SELECT c.relname AS "table", a.attname AS "column"
     FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> $1
     ORDER BY c.relname, a.attnum`,
    [BOOKKEEPING],
  );
  const { rows: references } = await sql.query<{ child: string; parent: string }>(
    `SELECT DISTINCT t.relname AS "child", r.relname AS "parent"
     FROM pg_constraint con
     JOIN pg_class t ON t.oid = con.conrelid
     JOIN pg_class r ON r.oid = con.confrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE con.contype = 'f' AND n.nspname = 'public' AND t.relname <> r.relname`,
  );
  const tables = new Map<string, string[]>();
  for (const { table, column } of columns) tables.set(table, [...(tables.get(table) ?? []), column]);
  const parents = new Map<string, string[]>();
  for (const { child, parent } of references) parents.set(child, [...(parents.get(child) ?? []), parent]);

  const ordered: DataTable[] = [];
  const placed = new Set<string>();
  const place = (name: string, path: string[]) => {
    if (placed.has(name)) return;
    if (path.includes(name)) throw new Error(`foreign keys form a cycle: ${[...path, name].join(' → ')}`);
    for (const parent of parents.get(name) ?? []) place(parent, [...path, name]);
    placed.add(name);
    ordered.push({ name, columns: tables.get(name) ?? [] });
  };
  for (const name of tables.keys()) place(name, []);
  return ordered;
}
