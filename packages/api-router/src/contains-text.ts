/**
 * A Prisma condition for text that holds `text`, ignoring case. Prisma hands `contains` to ILIKE as it is, so
 * LIKE's wildcards (`%`, `_`) and its escape character are escaped here: what is typed is found as typed.
 *
 * @example
 * prisma.task.findMany({ where: { name: containsText('add_two') } }); // not "add two"
 */
export function containsText(text: string) {
  return { contains: text.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' } as const;
}
