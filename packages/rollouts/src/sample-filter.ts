import { pgInt } from '@fusebox/db/bounded-numbers';
import { Prisma } from '@fusebox/db/prisma';
import { z } from 'zod';

/** A condition on one extra field of the dump (acc, pred, …): a numeric range, or an exact value. */
export const fieldFilterSchema = z
  .object({
    name: z.string().min(1).max(200),
    min: z.number().optional(),
    max: z.number().optional(),
    /** Compared with the value as text: `true`, `0.5`, `yes`. */
    equals: z.string().max(1000).optional(),
  })
  .refine((filter) => filter.min !== undefined || filter.max !== undefined || filter.equals !== undefined, {
    message: 'a field filter needs min, max or equals',
  });

export const SAMPLE_SORTS = ['line', 'score_desc', 'score_asc'] as const;

/** Which samples of a step to show, in which order: the sample list's filters, also used to step through them. */
export const sampleFilterSchema = z.object({
  runId: z.uuid(),
  step: pgInt(),
  scoreMin: z.number().optional(),
  scoreMax: z.number().optional(),
  fields: z.array(fieldFilterSchema).max(20).default([]),
  sort: z.enum(SAMPLE_SORTS).default('line'),
});

export type SampleFilter = z.infer<typeof sampleFilterSchema>;

/**
 * A numeric view of an extra field: numbers as they are, booleans as 1 and 0 (`acc` is often a boolean), and
 * null for anything else, so a range never fails on a string.
 */
function numericField(name: string): Prisma.Sql {
  return Prisma.sql`(CASE jsonb_typeof("extras" -> ${name})
    WHEN 'number' THEN ("extras" ->> ${name})::double precision
    WHEN 'boolean' THEN CASE WHEN ("extras" ->> ${name})::boolean THEN 1 ELSE 0 END END)`;
}

/** The filter bar's part of a filter: the score range and field conditions, true when there are none. */
export type SampleConditions = Pick<SampleFilter, 'scoreMin' | 'scoreMax' | 'fields'>;

/**
 * The conditions of a filter's score range and fields, ANDed (`TRUE` when it has none). Scores compare as
 * numbers (verl's viewer sorts them as strings). Full-text search applies the same ones across steps.
 */
export function sampleConditions(filter: SampleConditions): Prisma.Sql {
  const conditions = [Prisma.sql`TRUE`];
  if (filter.scoreMin !== undefined) conditions.push(Prisma.sql`"score" >= ${filter.scoreMin}`);
  if (filter.scoreMax !== undefined) conditions.push(Prisma.sql`"score" <= ${filter.scoreMax}`);
  for (const field of filter.fields) {
    if (field.equals !== undefined) conditions.push(Prisma.sql`"extras" ->> ${field.name} = ${field.equals}`);
    if (field.min !== undefined) conditions.push(Prisma.sql`${numericField(field.name)} >= ${field.min}`);
    if (field.max !== undefined) conditions.push(Prisma.sql`${numericField(field.name)} <= ${field.max}`);
  }
  return Prisma.join(conditions, ' AND ');
}

/** Whether a filter has a score range or a field condition. */
export const hasConditions = (filter: SampleConditions) =>
  filter.scoreMin !== undefined || filter.scoreMax !== undefined || filter.fields.length > 0;

/** The WHERE clause of a filter: its step of its run, and its conditions. */
export function sampleWhere(filter: SampleFilter): Prisma.Sql {
  return Prisma.sql`"run_id" = ${filter.runId}::uuid AND "step" = ${filter.step} AND ${sampleConditions(filter)}`;
}

/** The ORDER BY of a sort; the line number breaks ties so the order is stable. */
export function sampleOrder(sort: SampleFilter['sort']): Prisma.Sql {
  switch (sort) {
    case 'score_desc':
      return Prisma.sql`"score" DESC NULLS LAST, "line" ASC`;
    case 'score_asc':
      return Prisma.sql`"score" ASC NULLS LAST, "line" ASC`;
    default:
      return Prisma.sql`"line" ASC`;
  }
}
