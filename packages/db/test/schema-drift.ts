import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { getDMMF } from '@prisma/get-dmmf';
import type { SqlStatements } from '../src/sql-client';

export const SCHEMA_PATH = fileURLToPath(new URL('../../../prisma/schema.prisma', import.meta.url));

type Dmmf = Extract<ReturnType<typeof getDMMF>, { datamodel: unknown }>;
type Model = Dmmf['datamodel']['models'][number];
type Field = Model['fields'][number];

export interface ColumnShape {
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

export interface IndexShape {
  unique: boolean;
  columns: string[];
}

export interface ForeignKeyShape {
  columns: string[];
  references: string;
  referencedColumns: string[];
  onDelete: string;
  onUpdate: string;
}

/** What a database looks like, reduced to what a Prisma schema can say about it. */
export interface SchemaShape {
  tables: Record<string, Record<string, ColumnShape>>;
  /** Keyed by index name; primary keys are included under their constraint name. */
  indexes: Record<string, IndexShape & { table: string }>;
  foreignKeys: Record<string, ForeignKeyShape & { table: string }>;
}

const SCALAR_TYPES: Record<string, string> = {
  String: 'text',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Boolean: 'boolean',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
  Decimal: 'numeric(65,30)',
};

const REFERENTIAL_ACTIONS: Record<string, string> = {
  Cascade: 'CASCADE',
  Restrict: 'RESTRICT',
  NoAction: 'NO ACTION',
  SetNull: 'SET NULL',
  SetDefault: 'SET DEFAULT',
};

/** The database shape that `schema.prisma` implies, with Prisma's own naming rules for constraints. */
export function expectedShape(schemaText: string): SchemaShape {
  const result = getDMMF({ datamodel: schemaText });
  if (!('datamodel' in result)) throw new Error(`schema.prisma does not parse: ${JSON.stringify(result)}`);
  const dmmf: Dmmf = result;
  const shape: SchemaShape = { tables: {}, indexes: {}, foreignKeys: {} };
  const tableOf = (modelName: string) => {
    const model = dmmf.datamodel.models.find((candidate) => candidate.name === modelName);
    if (!model) throw new Error(`unknown model ${modelName}`);
    return model.dbName ?? model.name;
  };
  const columnOf = (model: Model, fieldName: string) => {
    const field = model.fields.find((candidate) => candidate.name === fieldName);
    if (!field) throw new Error(`unknown field ${model.name}.${fieldName}`);
    return field.dbName ?? field.name;
  };

  for (const model of dmmf.datamodel.models) {
    const table = tableOf(model.name);
    const columns: Record<string, ColumnShape> = {};
    for (const field of model.fields) {
      if (field.kind === 'object') continue;
      columns[field.dbName ?? field.name] = {
        type: columnType(model, field),
        nullable: !field.isRequired || field.isList,
        hasDefault: field.hasDefaultValue && isDatabaseDefault(field),
      };
    }
    for (const unsupported of unsupportedColumns(schemaText, model.name))
      columns[unsupported.column] = unsupported.shape;
    shape.tables[table] = columns;

    for (const field of model.fields) {
      if (field.kind !== 'object' || !field.relationFromFields?.length) continue;
      const columnsFrom = field.relationFromFields.map((name) => columnOf(model, name));
      const target = dmmf.datamodel.models.find((candidate) => candidate.name === field.type);
      if (!target) throw new Error(`unknown relation target ${field.type}`);
      const optional = !field.isRequired;
      shape.foreignKeys[`${table}_${columnsFrom.join('_')}_fkey`] = {
        table,
        columns: columnsFrom,
        references: tableOf(target.name),
        referencedColumns: (field.relationToFields ?? []).map((name) => columnOf(target, name)),
        onDelete: REFERENTIAL_ACTIONS[field.relationOnDelete ?? (optional ? 'SetNull' : 'Restrict')] ?? '?',
        onUpdate:
          REFERENTIAL_ACTIONS[(field as { relationOnUpdate?: string }).relationOnUpdate ?? 'Cascade'] ?? '?',
      };
    }
  }

  for (const index of dmmf.datamodel.indexes) {
    const model = dmmf.datamodel.models.find((candidate) => candidate.name === index.model);
    if (!model) throw new Error(`unknown model ${index.model}`);
    const table = tableOf(model.name);
    const columns = index.fields.map((field) => columnOf(model, field.name));
    const suffix = index.type === 'id' ? 'pkey' : index.type === 'unique' ? 'key' : 'idx';
    const name =
      index.dbName ?? (index.type === 'id' ? `${table}_pkey` : `${table}_${columns.join('_')}_${suffix}`);
    shape.indexes[name] = { table, unique: index.type !== 'normal', columns };
  }
  return shape;
}

function columnType(model: Model, field: Field): string {
  const list = field.isList ? '[]' : '';
  if (field.kind === 'enum') return `${field.type}${list}`;
  const native = field.nativeType as [string, string[]] | null | undefined;
  if (native) {
    const [name, args] = native;
    switch (name) {
      case 'Uuid':
        return `uuid${list}`;
      case 'Text':
        return `text${list}`;
      case 'VarChar':
        return `character varying(${args[0]})${list}`;
      case 'Timestamptz':
        return `timestamp(${args[0] ?? 6}) with time zone${list}`;
      case 'Timestamp':
        return `timestamp(${args[0] ?? 6}) without time zone${list}`;
      case 'Integer':
        return `integer${list}`;
      case 'SmallInt':
        return `smallint${list}`;
      case 'DoublePrecision':
        return `double precision${list}`;
      case 'JsonB':
        return `jsonb${list}`;
      default:
        throw new Error(
          `${model.name}.${field.name}: native type @db.${name} is not mapped in schema-drift.ts yet`,
        );
    }
  }
  const scalar = SCALAR_TYPES[field.type];
  if (!scalar)
    throw new Error(`${model.name}.${field.name}: type ${field.type} is not mapped in schema-drift.ts yet`);
  return `${scalar}${list}`;
}

/** uuid()/cuid() defaults are filled in by Prisma Client, not by the database. */
function isDatabaseDefault(field: Field): boolean {
  const fieldDefault = field.default as { name?: string } | undefined;
  if (fieldDefault && typeof fieldDefault === 'object' && 'name' in fieldDefault) {
    return !['uuid', 'cuid', 'nanoid', 'ulid'].includes(fieldDefault.name ?? '');
  }
  return true;
}

/** `Unsupported("tsvector")` columns are left out of the DMMF, so they are read from the schema text. */
function unsupportedColumns(schemaText: string, modelName: string) {
  const block = new RegExp(`model\\s+${modelName}\\s*\\{([\\s\\S]*?)\\n\\}`).exec(schemaText)?.[1] ?? '';
  const columns: { column: string; shape: ColumnShape }[] = [];
  for (const line of block.split('\n')) {
    const match = /^\s*(\w+)\s+Unsupported\("([^"]+)"\)(\?)?(.*)$/.exec(line);
    if (!match) continue;
    const [, name = '', type = '', optional, rest = ''] = match;
    const mapped = /@map\("([^"]+)"\)/.exec(rest)?.[1];
    columns.push({
      column: mapped ?? name,
      shape: { type, nullable: optional === '?', hasDefault: rest.includes('@default(') },
    });
  }
  return columns;
}

/** Reads the same shape from a live database's catalogs. */
export async function actualShape(client: Pick<SqlStatements, 'query'>): Promise<SchemaShape> {
  const shape: SchemaShape = { tables: {}, indexes: {}, foreignKeys: {} };
  const columns = await client.query<{
    table_name: string;
    column_name: string;
    type: string;
    is_nullable: boolean;
    has_default: boolean;
  }>(`
    SELECT c.relname AS table_name, a.attname AS column_name,
           format_type(a.atttypid, a.atttypmod) AS type,
           NOT a.attnotnull AS is_nullable,
           (a.atthasdef OR a.attgenerated <> '') AS has_default
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
      AND c.relname <> '_prisma_migrations'
    ORDER BY c.relname, a.attnum`);
  for (const row of columns.rows) {
    shape.tables[row.table_name] ??= {};
    shape.tables[row.table_name]![row.column_name] = {
      type: row.type,
      nullable: row.is_nullable,
      hasDefault: row.has_default,
    };
  }

  const indexes = await client.query<{
    index_name: string;
    table_name: string;
    unique: boolean;
    columns: string[];
  }>(`
    SELECT i.relname AS index_name, t.relname AS table_name, x.indisunique AS unique,
           array_agg(a.attname::text ORDER BY k.ordinality) AS columns
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ordinality)
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
    WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations'
    GROUP BY i.relname, t.relname, x.indisunique`);
  for (const row of indexes.rows) {
    shape.indexes[row.index_name] = { table: row.table_name, unique: row.unique, columns: row.columns };
  }

  const foreignKeys = await client.query<{
    name: string;
    table_name: string;
    columns: string[];
    references: string;
    referenced_columns: string[];
    on_delete: string;
    on_update: string;
  }>(`
    SELECT con.conname AS name, t.relname AS table_name, r.relname AS references,
           (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
              JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num) AS columns,
           (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
              JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num) AS referenced_columns,
           CASE con.confdeltype WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT' WHEN 'c' THEN 'CASCADE'
                WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' END AS on_delete,
           CASE con.confupdtype WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT' WHEN 'c' THEN 'CASCADE'
                WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' END AS on_update
    FROM pg_constraint con
    JOIN pg_class t ON t.oid = con.conrelid
    JOIN pg_class r ON r.oid = con.confrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE con.contype = 'f' AND n.nspname = 'public'`);
  for (const row of foreignKeys.rows) {
    shape.foreignKeys[row.name] = {
      table: row.table_name,
      columns: row.columns,
      references: row.references,
      referencedColumns: row.referenced_columns,
      onDelete: row.on_delete,
      onUpdate: row.on_update,
    };
  }
  return shape;
}

export async function readSchema(): Promise<string> {
  return readFile(SCHEMA_PATH, 'utf8');
}
