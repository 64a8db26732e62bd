'use client';

import { useQuery } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { Link } from '~/components/link';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { formatTime } from '~/components/format';
import { useRefetchOnChange } from '~/components/use-refetch-on-change';
import { useTRPC } from '~/trpc/client';

/** Every imported run, newest first, kept live, or how to import the first one. */
export function RunList() {
  const trpc = useTRPC();
  const runs = useQuery(trpc.rollouts.runs.queryOptions());
  const live = useSubscription(trpc.rollouts.runsChanges.subscriptionOptions());
  useRefetchOnChange(live.data?.id, [trpc.rollouts.runs.queryKey()], live.data?.data.changedLately);
  if (runs.isPending) return <Loading what="rollout runs" />;
  if (runs.isError) return <ProblemCard error={runs.error} what="Rollout runs" />;
  if (runs.data.length === 0)
    return (
      <EmptyState title="No rollouts imported yet">
        <p>
          Point verl at a dump directory with <code>trainer.rollout_data_dir=/path/to/rollouts</code>, then
          import it:
        </p>
        <pre className="code">fusebox rollouts import /path/to/rollouts --watch</pre>
        <p>
          <code>--watch</code> keeps importing new steps while training runs. Re-importing never duplicates a
          sample.
        </p>
      </EmptyState>
    );
  return (
    <table className="table" aria-label="rollout runs">
      <thead>
        <tr>
          <th>Run</th>
          <th>Steps</th>
          <th>Samples</th>
          <th>Skipped lines</th>
          <th>Directory</th>
          <th>Updated</th>
        </tr>
      </thead>
      <tbody>
        {runs.data.map((run) => (
          <tr key={run.id}>
            <td>
              <Link href={`/rollouts/${run.id}`}>{run.name}</Link>
            </td>
            <td>{run.steps}</td>
            <td>{run.samples.toLocaleString()}</td>
            <td>{run.rejected}</td>
            <td>
              <code>{run.sourceDir}</code>
            </td>
            <td>{formatTime(run.updatedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
