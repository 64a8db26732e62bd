import { likeLiteral } from '@fusebox/db/like-pattern';

/**
 * A Prisma condition for text that holds `text`, ignoring case. Prisma hands `contains` to ILIKE as it is, so
 * it is escaped first: what is typed is found as typed.
 *
 * @example
 * prisma.task.findMany({ where: { name: containsText('add_two') } }); // not "add two"
 */
export function containsText(text: string) {
  return { contains: likeLiteral(text), mode: 'insensitive' } as const;
}
