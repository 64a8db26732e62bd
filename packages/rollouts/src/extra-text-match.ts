import { Prisma } from '@fusebox/db/prisma';

/**
 * Whether a sample's extra field `name` reads as `value`: exactly, or, when the value holds `*`, as a pattern in
 * which each `*` stands for any run of characters and case is ignored (`gsm*`, `*math*`): typing a whole value
 * is what the field's top values are offered for, a part of one is what a pattern is for. LIKE's own wildcards
 * are escaped, so `%` and `_` are found as typed. NULL when the sample has no such field.
 *
 * @example
 * extraTextMatches(Prisma.sql`s."extras"`, 'data_source', '*gsm8k');
 */
export function extraTextMatches(extras: Prisma.Sql, name: string, value: string): Prisma.Sql {
  const text = Prisma.sql`(${extras} ->> ${name})`;
  if (!value.includes('*')) return Prisma.sql`${text} = ${value}`;
  return Prisma.sql`${text} ILIKE ${value.replace(/[\\%_]/g, '\\$&').replaceAll('*', '%')}`;
}
