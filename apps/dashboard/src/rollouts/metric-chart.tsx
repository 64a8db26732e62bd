'use client';

import { useQuery } from '@tanstack/react-query';
import {
  BUILTIN_METRICS,
  extraMetric,
  metricLabel,
  parseMetric,
  type SampleMetric,
} from '@fusebox/rollouts/query';
import { LineChart } from '~/components/line-chart';
import { Loading, ProblemCard } from '~/components/query-state';
import { formatChars, formatScore } from '~/components/format';
import { useQueryParams } from '~/components/use-query-params';
import { useTRPC } from '~/trpc/client';
import { MetricHistogram } from './metric-histogram';

/** The split field a run is charted by when its dump has one: verl writes each sample's dataset there. */
const DEFAULT_SPLIT = 'data_source';
/** Line colours of a split chart's groups, in the order of their size. */
const GROUP_COLORS = [
  'var(--accent)',
  'var(--ok)',
  '#5b9cf5',
  'var(--bad)',
  '#a77bf0',
  '#2a9d8f',
  '#e76f51',
  '#9aa3b2',
];
/** The split parameter's value for "split by nothing", so a run with a data_source can still be charted whole. */
const NO_SPLIT = '-';

/** Axis labels short enough for a small chart: 0.75, 539, 12.4k. */
const formatValue = (value: number) =>
  Math.abs(value) >= 1000
    ? formatChars(value)
    : Math.abs(value) >= 100
      ? String(Math.round(value))
      : formatScore(value);

interface Props {
  runId: string;
  /** The URL parameter that holds this chart's metric, and the metric it shows without one. */
  param: string;
  defaultMetric: SampleMetric;
  /** The dump's extra fields (from its last step): numeric ones are metrics, text ones can split the chart. */
  fields: { name: string; kinds: string[] }[];
}

/**
 * A metric over steps: with no split, its mean, median and 10th–90th percentile band; split by a text field
 * (`data_source`), one small chart per value, each with its own band, so a collapse in one dataset shows.
 */
export function MetricChart({ runId, param, defaultMetric, fields }: Props) {
  const trpc = useTRPC();
  const { search, set } = useQueryParams();
  const numeric = fields.filter((field) =>
    field.kinds.every((kind) => kind === 'number' || kind === 'boolean'),
  );
  const text = fields.filter((field) => field.kinds.includes('string'));
  const metric = parseMetric(search.get(param)) ?? defaultMetric;
  const splitParam = search.get('split');
  const split =
    splitParam === null
      ? text.some((field) => field.name === DEFAULT_SPLIT)
        ? DEFAULT_SPLIT
        : NO_SPLIT
      : splitParam;
  // Live through the run page's useRunLive (SSE), not a poll.
  const data = useQuery(
    trpc.rolloutAnalysis.metricSteps.queryOptions({
      runId,
      metric,
      splitBy: split === NO_SPLIT ? null : split,
    }),
  );
  const label = metricLabel(metric);
  return (
    <section className="metric-chart" aria-label={`${label} over steps`}>
      <h2>
        <select
          aria-label={`${param} metric`}
          value={metric}
          onChange={(event) => set(param, event.target.value, { replace: true })}
        >
          {BUILTIN_METRICS.map((name) => (
            <option key={name} value={name}>
              {metricLabel(name)}
            </option>
          ))}
          {numeric.map((field) => (
            <option key={field.name} value={extraMetric(field.name)}>
              {field.name}
            </option>
          ))}
        </select>{' '}
        over steps, split by{' '}
        <select
          aria-label={`${param} split`}
          value={split}
          onChange={(event) => set('split', event.target.value, { replace: true })}
        >
          <option value={NO_SPLIT}>nothing</option>
          {text.map((field) => (
            <option key={field.name} value={field.name}>
              {field.name}
            </option>
          ))}
        </select>
      </h2>
      {data.isPending ? (
        <Loading what={label} />
      ) : data.isError ? (
        <ProblemCard error={data.error} what={`Chart of ${label}`} />
      ) : (
        <div className={data.data.groups.length > 1 ? 'chart-grid' : undefined}>
          {data.data.groups.map((group, index) => {
            const name = data.data.splitBy ? `${data.data.splitBy} = ${group.name ?? '(none)'}` : label;
            const color = GROUP_COLORS[index % GROUP_COLORS.length]!;
            return (
              <div key={group.name ?? ''}>
                {data.data.splitBy ? (
                  <h3>
                    {name} <span className="muted">({group.samples.toLocaleString()} samples)</span>
                  </h3>
                ) : null}
                <LineChart
                  label={`${label} over steps${data.data.splitBy ? `, ${name}` : ''}`}
                  xLabels={group.steps.map((step) => `step ${step.step}`)}
                  series={[
                    { name: `mean ${label}`, color, values: group.steps.map((step) => step.mean) },
                    { name: 'median', color, values: group.steps.map((step) => step.median), dashed: true },
                  ]}
                  band={{
                    name: '10th–90th percentile',
                    color,
                    low: group.steps.map((step) => step.p10),
                    high: group.steps.map((step) => step.p90),
                  }}
                  height={data.data.groups.length > 1 ? 160 : 200}
                  formatY={formatValue}
                />
              </div>
            );
          })}
          {data.data.hiddenGroups > 0 ? (
            <p className="muted">
              {data.data.hiddenGroups} rarer values of {data.data.splitBy} are not charted.
            </p>
          ) : null}
        </div>
      )}
      {data.data ? (
        <MetricHistogram
          runId={runId}
          param={param}
          metric={metric}
          label={label}
          steps={data.data.steps}
          formatValue={formatValue}
        />
      ) : null}
    </section>
  );
}
