// What a browser needs to read a search and mark its matches by the server's rules: pure, no Node or database.
export type { SearchQuery } from './search-query';
export { BUILTIN_FIELDS, SampleQueryError, parseSampleQuery, shownText } from './sample-query';
export { type Range, type Segment, matchRanges, segments } from './match-ranges';
export { SAMPLE_SORTS, type SampleSort } from './sample-sorts';
export {
  BUILTIN_METRICS,
  METRIC_LABELS,
  type BuiltinMetric,
  type SampleMetric,
  extraMetric,
  metricField,
  metricLabel,
  parseMetric,
} from './sample-metrics';
