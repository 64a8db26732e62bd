/** The orders a step's samples can be listed in; pure, so the dashboard's browser code shares the list. */
export const SAMPLE_SORTS = [
  'line',
  'score_desc',
  'score_asc',
  'length_desc',
  'length_asc',
  'tool_calls_desc',
  'tool_calls_asc',
  'tool_errors_desc',
  'tool_errors_asc',
  'turns_desc',
  'turns_asc',
  /** By the numeric extra field the filter's `sortField` names (booleans as 1 and 0). */
  'field_desc',
  'field_asc',
] as const;

export type SampleSort = (typeof SAMPLE_SORTS)[number];
