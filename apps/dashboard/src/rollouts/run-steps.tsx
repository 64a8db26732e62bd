'use client';

import { useQuery } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { LineChart } from '~/components/line-chart';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { formatScore } from '~/components/format';
import { useTRPC } from '~/trpc/client';

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
  const stats = useQuery({ ...trpc.rollouts.steps.queryOptions({ runId }), refetchInterval: 10_000 });
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
          <p className="muted">
            Distribution buckets: {labels.join(' · ')}. Open a step to read its samples.
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
