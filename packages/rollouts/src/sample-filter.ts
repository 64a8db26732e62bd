import { pgInt } from '@fusebox/db/bounded-numbers';
import { Prisma } from '@fusebox/db/prisma';
import { z } from 'zod';
import { extraTextMatches } from './extra-text-match';
import { BUILTIN_METRICS, type SampleMetric, extraMetric, metricField, parseMetric } from './sample-metrics';
import { SAMPLE_SORTS } from './sample-sorts';

const fieldName = z.string().min(1).max(200);

/** A condition on one extra field of the dump (acc, pred, …): a numeric range, or a value (see extraTextMatches). */
export const fieldFilterSchema = z
  .object({
    name: fieldName,
    min: z.number().optional(),
    max: z.number().optional(),
    /** Compared with the value as text: `true`, `0.5`, `yes`, or a pattern with `*` (`gsm*`). */
    equals: z.string().max(1000).optional(),
  })
  .refine((filter) => filter.min !== undefined || filter.max !== undefined || filter.equals !== undefined, {
    message: 'a field filter needs min, max or equals',
  });

/** A sample's metric as SQL: its column, or a numeric view of the extra field it names. */
export function metricSql(metric: SampleMetric): Prisma.Sql {
  const field = metricField(metric);
  if (field !== null) return numericField(field);
  return Prisma.raw(`"${metric}"`);
}

/** A metric in a request: a builtin one, or `extra:NAME` for a numeric extra field of the dump. */
export const sampleMetricSchema = z
  .string()
  .max(210)
  .transform((text, context) => {
    const metric = parseMetric(text);
    if (metric === null) {
      context.addIssue({
        code: 'custom',
        message: `unknown metric "${text}": use ${BUILTIN_METRICS.join(', ')} or extra:FIELD`,
      });
      return z.NEVER;
    }
    return metric;
  });

/** Which samples of a step to show, in which order: the sample list's filters, also used to step through them. */
export const sampleFilterSchema = z.object({
  runId: z.uuid(),
  step: pgInt(),
  scoreMin: z.number().optional(),
  scoreMax: z.number().optional(),
  /** The response's length in characters, at least and at most. */
  charsMin: z.int().min(0).optional(),
  charsMax: z.int().min(0).optional(),
  /** How many `<tool_call>`s the response holds, at least and at most. */
  toolCallsMin: z.int().min(0).optional(),
  toolCallsMax: z.int().min(0).optional(),
  /** Assistant messages in the response, at least and at most. */
  turnsMin: z.int().min(0).optional(),
  turnsMax: z.int().min(0).optional(),
  fields: z.array(fieldFilterSchema).max(20).default([]),
  sort: z.enum(SAMPLE_SORTS).default('line'),
  /** The extra field a `field_desc` or `field_asc` sort orders by. */
  sortField: fieldName.optional(),
});

export type SampleFilter = z.infer<typeof sampleFilterSchema>;

/**
 * A numeric view of an extra field: numbers as they are, booleans as 1 and 0 (`acc` is often a boolean), and
 * null for anything else, so a range never fails on a string.
 */
export function numericField(name: string): Prisma.Sql {
  return Prisma.sql`(CASE jsonb_typeof("extras" -> ${name})
    WHEN 'number' THEN ("extras" ->> ${name})::double precision
    WHEN 'boolean' THEN CASE WHEN ("extras" ->> ${name})::boolean THEN 1 ELSE 0 END END)`;
}

/** The filter bar's part of a filter: the score range and field conditions, true when there are none. */
export type SampleConditions = Pick<
  SampleFilter,
  | 'scoreMin'
  | 'scoreMax'
  | 'charsMin'
  | 'charsMax'
  | 'toolCallsMin'
  | 'toolCallsMax'
  | 'turnsMin'
  | 'turnsMax'
  | 'fields'
>;

/**
 * The conditions of a filter's score range and fields, ANDed (`TRUE` when it has none). Scores compare as
 * numbers (verl's viewer sorts them as strings). Full-text search applies the same ones across steps.
 */
export function sampleConditions(filter: SampleConditions): Prisma.Sql {
  const conditions = [Prisma.sql`TRUE`];
  if (filter.scoreMin !== undefined) conditions.push(Prisma.sql`"score" >= ${filter.scoreMin}`);
  if (filter.scoreMax !== undefined) conditions.push(Prisma.sql`"score" <= ${filter.scoreMax}`);
  if (filter.charsMin !== undefined) conditions.push(Prisma.sql`"response_chars" >= ${filter.charsMin}`);
  if (filter.charsMax !== undefined) conditions.push(Prisma.sql`"response_chars" <= ${filter.charsMax}`);
  if (filter.toolCallsMin !== undefined) conditions.push(Prisma.sql`"tool_calls" >= ${filter.toolCallsMin}`);
  if (filter.toolCallsMax !== undefined) conditions.push(Prisma.sql`"tool_calls" <= ${filter.toolCallsMax}`);
  if (filter.turnsMin !== undefined) conditions.push(Prisma.sql`"turns" >= ${filter.turnsMin}`);
  if (filter.turnsMax !== undefined) conditions.push(Prisma.sql`"turns" <= ${filter.turnsMax}`);
  for (const field of filter.fields) {
    if (field.equals !== undefined)
      conditions.push(extraTextMatches(Prisma.raw('"extras"'), field.name, field.equals));
    if (field.min !== undefined) conditions.push(Prisma.sql`${numericField(field.name)} >= ${field.min}`);
    if (field.max !== undefined) conditions.push(Prisma.sql`${numericField(field.name)} <= ${field.max}`);
  }
  return Prisma.join(conditions, ' AND ');
}

/** Whether a filter has a score range or a field condition. */
export const hasConditions = (filter: SampleConditions) =>
  filter.fields.length > 0 ||
  [
    filter.scoreMin,
    filter.scoreMax,
    filter.charsMin,
    filter.charsMax,
    filter.toolCallsMin,
    filter.toolCallsMax,
    filter.turnsMin,
    filter.turnsMax,
  ].some((bound) => bound !== undefined);

/** The WHERE clause of a filter: its step of its run, and its conditions. */
export function sampleWhere(filter: SampleFilter): Prisma.Sql {
  return Prisma.sql`"run_id" = ${filter.runId}::uuid AND "step" = ${filter.step} AND ${sampleConditions(filter)}`;
}

/** The ORDER BY of a sort; the line number breaks ties so the order is stable. */
export function sampleOrder(filter: Pick<SampleFilter, 'sort' | 'sortField'>): Prisma.Sql {
  const by = (metric: SampleMetric, direction: 'ASC' | 'DESC') =>
    Prisma.sql`${metricSql(metric)} ${Prisma.raw(direction)} NULLS LAST, "line" ASC`;
  switch (filter.sort) {
    case 'score_desc':
      return by('score', 'DESC');
    case 'score_asc':
      return by('score', 'ASC');
    case 'length_desc':
      return by('response_chars', 'DESC');
    case 'length_asc':
      return by('response_chars', 'ASC');
    case 'tool_calls_desc':
      return by('tool_calls', 'DESC');
    case 'tool_calls_asc':
      return by('tool_calls', 'ASC');
    case 'tool_errors_desc':
      return by('tool_errors', 'DESC');
    case 'tool_errors_asc':
      return by('tool_errors', 'ASC');
    case 'turns_desc':
      return by('turns', 'DESC');
    case 'turns_asc':
      return by('turns', 'ASC');
    case 'field_desc':
    case 'field_asc':
      // Without a field to sort by, the list keeps its line order rather than failing.
      return filter.sortField === undefined
        ? Prisma.sql`"line" ASC`
        : by(extraMetric(filter.sortField), filter.sort === 'field_desc' ? 'DESC' : 'ASC');
    default:
      return Prisma.sql`"line" ASC`;
  }
}
