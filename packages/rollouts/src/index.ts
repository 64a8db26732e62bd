// The rollout import and search: verl `{step}.jsonl` dumps into the database, and the samples found again.
export {
  DEFAULT_IMPORT_JOBS,
  type ImportDumpOptions,
  type ImportProgress,
  type ImportSummary,
  importDump,
} from './import-dump';
export type { ImportProblem } from './import-file';
export { type WatchDumpOptions, watchDump } from './watch-dump';
export type { RunRef } from './rollout-run';
export { type RolloutRunSummary, rolloutRuns } from './rollout-runs';
export { RolloutImportError } from './rollout-import-error';
export { type FileLine, readLines } from './read-lines';
export { uuidV7 } from './uuid-v7';
export {
  type SampleConditions,
  type SampleFilter,
  hasConditions,
  metricSql,
  sampleConditions,
  sampleMetricSchema,
  fieldFilterSchema,
  sampleFilterSchema,
  sampleOrder,
  sampleWhere,
} from './sample-filter';
export { SAMPLE_SORTS, type SampleSort } from './sample-sorts';
export { type ResponseMetrics, responseMetrics } from './response-metrics';
export type { SearchQuery } from './search-query';
export {
  BUILTIN_FIELDS,
  type SampleQuery,
  SampleQueryError,
  hasPhrase,
  parseSampleQuery,
  shownText,
} from './sample-query';
export {
  type SearchMatch,
  type SearchOptions,
  type SearchResult,
  joinMatches,
  matchKey,
  searchSamples,
} from './search-samples';
export { type Range, type Segment, matchRanges, segments } from './match-ranges';
export { runFieldNames } from './run-field-names';
export { snippet } from './snippet';
