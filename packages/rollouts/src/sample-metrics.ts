/**
 * What a run can be charted by across steps: the score, what the importer counts in each response, and any
 * numeric extra field of the dump as `extra:NAME`. Pure, so the dashboard's browser code shares the list.
 */
export const BUILTIN_METRICS = ['score', 'response_chars', 'tool_calls', 'tool_errors', 'turns'] as const;

export type BuiltinMetric = (typeof BUILTIN_METRICS)[number];
export type SampleMetric = BuiltinMetric | `extra:${string}`;

export const METRIC_LABELS: Record<BuiltinMetric, string> = {
  score: 'score',
  response_chars: 'response length (chars)',
  tool_calls: 'tool calls',
  tool_errors: 'tool errors',
  turns: 'assistant turns',
};

const EXTRA = 'extra:';

/** The extra field a metric names, or null for a builtin one. */
export const metricField = (metric: SampleMetric): string | null =>
  metric.startsWith(EXTRA) ? metric.slice(EXTRA.length) : null;

export const extraMetric = (name: string): SampleMetric => `${EXTRA}${name}`;

export function metricLabel(metric: SampleMetric): string {
  return metricField(metric) ?? METRIC_LABELS[metric as BuiltinMetric];
}

/** A metric from a URL or a request: a builtin name or `extra:` and a field name; null for anything else. */
export function parseMetric(text: string | null | undefined): SampleMetric | null {
  if (!text) return null;
  if ((BUILTIN_METRICS as readonly string[]).includes(text)) return text as BuiltinMetric;
  return text.startsWith(EXTRA) && text.length > EXTRA.length && text.length <= EXTRA.length + 200
    ? (text as SampleMetric)
    : null;
}
