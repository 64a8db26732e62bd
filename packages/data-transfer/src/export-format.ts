import { z } from 'zod';

// The file `fusebox db export` writes and `fusebox db import` reads: gzip-compressed JSON lines.
//
//   {"format":"fusebox-export","version":1,…,"tables":[{"name":"task","columns":[…],"rows":6},…]}   the header
//   {"table":"task","rows":6}                                                                        each table…
//   {"id":"9000000000000000001","name":"add-two-numbers",…}                                          …its rows
//   {"end":true,"rows":1234}                                                                         the end
//
// Rows are Postgres's own `row_to_json` of the table's columns, loaded back with `json_populate_recordset`, so
// every type (timestamps, jsonb, arrays, int8) round-trips exactly and nothing in between parses them. Tables come
// parents first. The header's counts let the import show progress and notice a truncated file.

export const EXPORT_FORMAT = 'fusebox-export';
export const EXPORT_VERSION = 1;

export const exportHeaderSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION, {
    error: `this file has a newer export format than version ${EXPORT_VERSION}; import it with a newer Fusebox`,
  }),
  /** The Fusebox that wrote it. */
  fuseboxVersion: z.string(),
  createdAt: z.iso.datetime(),
  source: z.object({ mode: z.enum(['embedded', 'postgres']), location: z.string() }),
  /** Migrations applied to the source: the import's database must know each of them. */
  migrations: z.array(z.string()),
  tables: z.array(z.object({ name: z.string(), columns: z.array(z.string()), rows: z.int().nonnegative() })),
});

export type ExportHeader = z.infer<typeof exportHeaderSchema>;

export const tableLineSchema = z.object({ table: z.string(), rows: z.int().nonnegative() });
export const endLineSchema = z.object({ end: z.literal(true), rows: z.int().nonnegative() });
