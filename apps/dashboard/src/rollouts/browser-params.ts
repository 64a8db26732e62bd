import { SAMPLE_SORTS, type SampleSort } from '@fusebox/rollouts/query';

/** A filter on one extra field of the dump, as the API takes it. */
export interface FieldFilter {
  name: string;
  min?: number;
  max?: number;
  equals?: string;
}

export type { SampleSort };

/** Bounds on what is derived from each sample's response, each kept in the URL under its own name. */
export const DERIVED_BOUNDS = {
  charsMin: 'len_min',
  charsMax: 'len_max',
  toolCallsMin: 'calls_min',
  toolCallsMax: 'calls_max',
  turnsMin: 'turns_min',
  turnsMax: 'turns_max',
} as const;

export type DerivedBound = keyof typeof DERIVED_BOUNDS;

/** Everything the rollout browser shows, kept in the URL so any view is a link that survives a reload. */
export interface BrowserParams {
  step: number | null;
  line: number | null;
  sort: SampleSort;
  /** The numeric extra field a `field_desc`/`field_asc` sort orders by. */
  sortField?: string;
  scoreMin?: number;
  scoreMax?: number;
  /** The response's length in characters and its tool calls, at least and at most. */
  charsMin?: number;
  charsMax?: number;
  toolCallsMin?: number;
  toolCallsMax?: number;
  turnsMin?: number;
  turnsMax?: number;
  fields: FieldFilter[];
  /** A full-text search across all steps; when set, the list shows its results. */
  q: string;
  raw: boolean;
}

/** A count from the URL: a whole number at least 0, or nothing (the API refuses anything else). */
function count(value: string | null): number | undefined {
  const parsed = number(value);
  return parsed !== undefined && Number.isInteger(parsed) && parsed >= 0 ? parsed : undefined;
}

function derivedBounds(search: URLSearchParams): Partial<Record<DerivedBound, number>> {
  const bounds: Partial<Record<DerivedBound, number>> = {};
  for (const [bound, key] of Object.entries(DERIVED_BOUNDS) as [DerivedBound, string][]) {
    const value = count(search.get(key));
    if (value !== undefined) bounds[bound] = value;
  }
  return bounds;
}

function number(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** `acc=true` is an exact value; `score:0.5:1` a range (either end may be empty). */
export function parseField(text: string): FieldFilter | null {
  const equals = /^([^=:]+)=(.*)$/.exec(text);
  if (equals) return { name: equals[1]!, equals: equals[2]! };
  const range = /^([^:]+):([^:]*):([^:]*)$/.exec(text);
  if (!range) return null;
  const min = number(range[2]!);
  const max = number(range[3]!);
  if (min === undefined && max === undefined) return null;
  return { name: range[1]!, ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
}

export function formatField(filter: FieldFilter): string {
  return filter.equals !== undefined
    ? `${filter.name}=${filter.equals}`
    : `${filter.name}:${filter.min ?? ''}:${filter.max ?? ''}`;
}

export function parseBrowserParams(search: URLSearchParams): BrowserParams {
  const sort = search.get('sort') as SampleSort | null;
  const scoreMin = number(search.get('min'));
  const scoreMax = number(search.get('max'));
  const step = number(search.get('step'));
  const line = number(search.get('line'));
  const sortField = search.get('sort_field') || undefined;
  return {
    step: step === undefined ? null : Math.trunc(step),
    line: line === undefined ? null : Math.trunc(line),
    sort: sort && SAMPLE_SORTS.includes(sort) ? sort : 'line',
    ...(sortField === undefined ? {} : { sortField }),
    ...(scoreMin === undefined ? {} : { scoreMin }),
    ...(scoreMax === undefined ? {} : { scoreMax }),
    ...derivedBounds(search),
    fields: search
      .getAll('f')
      .map(parseField)
      .filter((filter): filter is FieldFilter => filter !== null),
    q: search.get('q') ?? '',
    raw: search.get('raw') === '1',
  };
}

/** The query string for `params`, leaving defaults out so links stay short. */
export function browserSearch(params: BrowserParams): string {
  const search = new URLSearchParams();
  if (params.step !== null) search.set('step', String(params.step));
  if (params.line !== null) search.set('line', String(params.line));
  if (params.sort !== 'line') search.set('sort', params.sort);
  if (params.sortField !== undefined) search.set('sort_field', params.sortField);
  if (params.scoreMin !== undefined) search.set('min', String(params.scoreMin));
  if (params.scoreMax !== undefined) search.set('max', String(params.scoreMax));
  for (const [bound, key] of Object.entries(DERIVED_BOUNDS) as [DerivedBound, string][]) {
    const value = params[bound];
    if (value !== undefined) search.set(key, String(value));
  }
  for (const field of params.fields) search.append('f', formatField(field));
  if (params.q) search.set('q', params.q);
  if (params.raw) search.set('raw', '1');
  return search.toString();
}

/** The API's filter for the current step's samples. */
export function sampleFilter(params: BrowserParams) {
  return {
    sort: params.sort,
    ...(params.sortField === undefined ? {} : { sortField: params.sortField }),
    ...(params.scoreMin === undefined ? {} : { scoreMin: params.scoreMin }),
    ...(params.scoreMax === undefined ? {} : { scoreMax: params.scoreMax }),
    ...Object.fromEntries(
      Object.keys(DERIVED_BOUNDS)
        .filter((bound) => params[bound as DerivedBound] !== undefined)
        .map((bound) => [bound, params[bound as DerivedBound]]),
    ),
    fields: params.fields,
  };
}

/** The filter bar's conditions without the sort: what a search (its list and its export) applies. */
export function searchConditions(params: BrowserParams) {
  const { sort: _sort, sortField: _sortField, ...conditions } = sampleFilter(params);
  return conditions;
}

/** Samples per page of the list. */
const SAMPLE_PAGE = 100;

/** The sample list's query: the first page of a step's samples under the filters (the list and its prefetch). */
export function sampleListInput(runId: string, step: number, params: BrowserParams) {
  return { runId, step, limit: SAMPLE_PAGE, ...sampleFilter(params) };
}
