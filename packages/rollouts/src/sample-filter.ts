import { pgInt } from '@fusebox/db/bounded-numbers';
import { Prisma } from '@fusebox/db/prisma';
import { z } from 'zod';
import { SAMPLE_SORTS } from './sample-sorts';

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

/** The response's length in characters: what length collapse (or runaway) shows in. */
export const RESPONSE_CHARS = Prisma.sql`length("output")`;
const TOOL_CALL_TAG = '<tool_call>';
/** The `<tool_call>`s the model wrote in its response: what tool-use collapse shows in. */
export const TOOL_CALLS = Prisma.sql`((length("output") - length(replace("output", ${TOOL_CALL_TAG}, ''))) / ${TOOL_CALL_TAG.length})`;

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
export type SampleConditions = Pick<
  SampleFilter,
  'scoreMin' | 'scoreMax' | 'charsMin' | 'charsMax' | 'toolCallsMin' | 'toolCallsMax' | 'fields'
>;

/**
 * The conditions of a filter's score range and fields, ANDed (`TRUE` when it has none). Scores compare as
 * numbers (verl's viewer sorts them as strings). Full-text search applies the same ones across steps.
 */
export function sampleConditions(filter: SampleConditions): Prisma.Sql {
  const conditions = [Prisma.sql`TRUE`];
  if (filter.scoreMin !== undefined) conditions.push(Prisma.sql`"score" >= ${filter.scoreMin}`);
  if (filter.scoreMax !== undefined) conditions.push(Prisma.sql`"score" <= ${filter.scoreMax}`);
  if (filter.charsMin !== undefined) conditions.push(Prisma.sql`${RESPONSE_CHARS} >= ${filter.charsMin}`);
  if (filter.charsMax !== undefined) conditions.push(Prisma.sql`${RESPONSE_CHARS} <= ${filter.charsMax}`);
  if (filter.toolCallsMin !== undefined) conditions.push(Prisma.sql`${TOOL_CALLS} >= ${filter.toolCallsMin}`);
  if (filter.toolCallsMax !== undefined) conditions.push(Prisma.sql`${TOOL_CALLS} <= ${filter.toolCallsMax}`);
  for (const field of filter.fields) {
    if (field.equals !== undefined) conditions.push(Prisma.sql`"extras" ->> ${field.name} = ${field.equals}`);
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
  ].some((bound) => bound !== undefined);

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
    case 'length_desc':
      return Prisma.sql`${RESPONSE_CHARS} DESC, "line" ASC`;
    case 'length_asc':
      return Prisma.sql`${RESPONSE_CHARS} ASC, "line" ASC`;
    case 'tool_calls_desc':
      return Prisma.sql`${TOOL_CALLS} DESC, "line" ASC`;
    case 'tool_calls_asc':
      return Prisma.sql`${TOOL_CALLS} ASC, "line" ASC`;
    default:
      return Prisma.sql`"line" ASC`;
  }
}
