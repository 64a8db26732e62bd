'use client';

import { useQuery } from '@tanstack/react-query';
import type { SampleMetric } from '@fusebox/rollouts/query';
import { Loading, ProblemCard } from '~/components/query-state';
import { useQueryParams } from '~/components/use-query-params';
import { useTRPC } from '~/trpc/client';

/**
 * One step's distribution of the metric its chart shows (the chart's own picker chooses it): a bar per value
 * when the step has few, else 20 of equal width. The step is in the URL (`PARAM_step`), the last by default.
 */
export function MetricHistogram({
  runId,
  param,
  metric,
  label,
  steps,
  formatValue,
}: {
  runId: string;
  param: string;
  metric: SampleMetric;
  label: string;
  steps: number[];
  formatValue: (value: number) => string;
}) {
  const trpc = useTRPC();
  const { search, set } = useQueryParams();
  const stepParam = `${param}_step`;
  const wanted = Number(search.get(stepParam));
  const step = steps.includes(wanted) ? wanted : steps.at(-1);
  const data = useQuery({
    ...trpc.rolloutAnalysis.metricHistogram.queryOptions({ runId, step: step ?? 0, metric }),
    enabled: step !== undefined,
  });
  if (step === undefined) return null;
  const name = `${label} at step ${step}`;
  return (
    <figure className="metric-histogram" aria-label={`histogram of ${name}`}>
      <figcaption>
        Distribution at step{' '}
        <select
          aria-label={`${param} histogram step`}
          value={step}
          onChange={(event) => set(stepParam, event.target.value, { replace: true })}
        >
          {steps.map((candidate) => (
            <option key={candidate} value={candidate}>
              {candidate}
            </option>
          ))}
        </select>
        {data.data && data.data.missing > 0 ? (
          <span className="muted"> · {data.data.missing} samples without a value</span>
        ) : null}
      </figcaption>
      {data.isPending ? (
        <Loading what={`the histogram of ${name}`} />
      ) : data.isError ? (
        <ProblemCard error={data.error} what={`Histogram of ${name}`} />
      ) : (
        <ol className="bars" aria-label={`${name}, samples per value`}>
          {data.data.buckets.map((bucket) => {
            const most = Math.max(1, ...data.data.buckets.map((each) => each.count));
            const range =
              bucket.lo === bucket.hi
                ? formatValue(bucket.lo)
                : `${formatValue(bucket.lo)}–${formatValue(bucket.hi)}`;
            return (
              <li
                key={bucket.lo}
                title={`${range}: ${bucket.count}`}
                aria-label={`${range}: ${bucket.count}`}
              >
                <i style={{ height: `${Math.max(2, (bucket.count / most) * 100)}%` }} />
                <span>{range}</span>
              </li>
            );
          })}
        </ol>
      )}
    </figure>
  );
}
