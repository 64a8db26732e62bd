import { likeLiteral } from '@fusebox/db/like-pattern';
import { Prisma } from '@fusebox/db/prisma';

/**
 * Whether a sample's extra field `name` reads as `value`: exactly, or, as a `pattern` (by default when the value
 * holds `*`), with each `*` standing for any run of characters and case ignored (`gsm*`, `*math*`): typing a
 * whole value is what the field's top values are offered for, a part of one is what a pattern is for. LIKE's
 * own wildcards are escaped, so `%` and `_` are found as typed. NULL when the sample has no such field.
 *
 * @example
 * extraTextMatches(Prisma.sql`s."extras"`, 'data_source', '*gsm8k');
 */
export function extraTextMatches(
  extras: Prisma.Sql,
  name: string,
  value: string,
  { pattern = value.includes('*') }: { pattern?: boolean } = {},
): Prisma.Sql {
  const text = Prisma.sql`(${extras} ->> ${name})`;
  if (!pattern) return Prisma.sql`${text} = ${value}`;
  return Prisma.sql`${text} ILIKE ${likeLiteral(value).replaceAll('*', '%')}`;
}
