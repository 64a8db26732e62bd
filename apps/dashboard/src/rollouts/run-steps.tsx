'use client';

import { useQuery } from '@tanstack/react-query';
import { Suspense } from 'react';
import { Link } from '~/components/link';
import { LineChart } from '~/components/line-chart';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { formatScore } from '~/components/format';
import { useTRPC } from '~/trpc/client';
import { MetricChart } from './metric-chart';
import { useRunLive } from './use-run-live';

function Histogram({ counts, labels }: { counts: number[]; labels: string[] }) {
  const max = Math.max(1, ...counts);
  return (
    <span className="histogram" aria-label="score distribution">
      {counts.map((count, index) => (
        <i
          key={index}
          style={{ height: `${Math.max(2, (count / max) * 100)}%` }}
          title={`${labels[index]}: ${count}`}
        />
      ))}
    </span>
  );
}

/** A run's steps: mean score over steps with the 10th–90th percentile band, and each step's distribution. */
export function RunSteps({ runId }: { runId: string }) {
  const trpc = useTRPC();
  useRunLive(runId);
  // Live through useRunLive: the import's SSE stream refetches these when a step or line arrives; no polling.
  const stats = useQuery(trpc.rollouts.steps.queryOptions({ runId }));
  const lastStep = stats.data?.steps.at(-1)?.step;
  const fields = useQuery({
    ...trpc.rollouts.fields.queryOptions({ runId, step: lastStep ?? 0 }),
    enabled: lastStep !== undefined,
  });
  const groups = useQuery(trpc.rolloutAnalysis.groupSteps.queryOptions({ runId }));
  const groupsOf = new Map((groups.data ?? []).map((step) => [step.step, step]));
  if (stats.isPending) return <Loading what="the run" />;
  if (stats.isError) return <ProblemCard error={stats.error} what="Rollout run" />;
  const { run, steps, buckets } = stats.data;
  const labels = buckets.map((bucket) => bucket.label);
  return (
    <>
      <h1>
        Rollouts · {run.name} <Link href={`/rollouts/${runId}/browse`}>Browse samples →</Link>
      </h1>
      {steps.length === 0 ? (
        <EmptyState title="No samples yet">
          <p>The run exists but none of its lines could be imported yet.</p>
        </EmptyState>
      ) : (
        <>
          <LineChart
            label="score over steps"
            xLabels={steps.map((step) => `step ${step.step}`)}
            series={[
              { name: 'mean score', color: 'var(--accent)', values: steps.map((step) => step.mean) },
              { name: 'median', color: 'var(--ok)', values: steps.map((step) => step.median), dashed: true },
            ]}
            band={{
              name: '10th–90th percentile',
              color: 'var(--accent)',
              low: steps.map((step) => step.p10),
              high: steps.map((step) => step.p90),
            }}
            formatY={formatScore}
          />
          <Suspense fallback={<Loading what="the charts" />}>
            <MetricChart
              runId={runId}
              param="metric"
              defaultMetric="response_chars"
              fields={fields.data ?? []}
            />
            <MetricChart
              runId={runId}
              param="metric2"
              defaultMetric="tool_calls"
              fields={fields.data ?? []}
            />
          </Suspense>
          <p className="muted">
            Distribution buckets: {labels.join(' · ')}. Open a step to read its samples. A GRPO group is the
            samples of one prompt at one step; when their rewards are all equal its advantages are all zero,
            so it teaches nothing: <Link href={`/rollouts/${runId}/groups?uniform=1`}>list those groups</Link>
            .
          </p>
          <table className="table" aria-label="steps">
            <thead>
              <tr>
                <th>Step</th>
                <th>Samples</th>
                <th>Mean</th>
                <th>Min</th>
                <th>Median</th>
                <th>Max</th>
                <th title={labels.join(' · ')}>Score distribution</th>
                <th>Groups</th>
                <th title="groups whose rewards are all equal: no learning signal">All-equal groups</th>
                <th>Skipped lines</th>
              </tr>
            </thead>
            <tbody>
              {steps.map((step) => (
                <tr key={step.step}>
                  <td className="nowrap">
                    <Link href={`/rollouts/${runId}/browse?step=${step.step}`}>step {step.step}</Link>
                  </td>
                  <td>{step.samples}</td>
                  <td>{formatScore(step.mean)}</td>
                  <td>{formatScore(step.min)}</td>
                  <td>{formatScore(step.median)}</td>
                  <td>{formatScore(step.max)}</td>
                  <td>
                    <Histogram counts={step.histogram} labels={labels} />
                  </td>
                  <td>{groupsOf.get(step.step)?.groups ?? ''}</td>
                  <td>
                    {groupsOf.get(step.step) ? (
                      <Link
                        href={`/rollouts/${runId}/groups?step=${step.step}&uniform=1`}
                        aria-label={`all-equal groups of step ${step.step}`}
                      >
                        {groupsOf.get(step.step)!.uniform} ({groupsOf.get(step.step)!.uniformSamples} samples)
                      </Link>
                    ) : null}
                  </td>
                  <td>{step.rejected || ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}
