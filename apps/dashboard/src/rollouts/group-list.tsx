'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { formatScore } from '~/components/format';
import { useQueryParams } from '~/components/use-query-params';
import { useTRPC } from '~/trpc/client';
import { useRunLive } from './use-run-live';

/**
 * A run's GRPO groups (the samples of one prompt at one step), by step; `?uniform=1` keeps those whose rewards
 * are all equal, which give the policy no learning signal, and `?step=N` one step's.
 */
export function GroupList({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const { search, set } = useQueryParams();
  useRunLive(runId);
  const uniform = search.get('uniform') === '1';
  const stepText = search.get('step');
  const step = stepText !== null && /^\d+$/.test(stepText) ? Number(stepText) : undefined;
  const groups = useInfiniteQuery({
    ...trpc.rolloutAnalysis.groups.infiniteQueryOptions(
      { runId, uniform, ...(step === undefined ? {} : { step }) },
      { getNextPageParam: (page) => page.nextCursor },
    ),
  });
  const items = groups.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <>
      <form className="filter-bar" aria-label="group filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          <input
            type="checkbox"
            checked={uniform}
            onChange={(event) => set('uniform', event.target.checked ? '1' : '')}
          />{' '}
          only groups whose rewards are all equal (no learning signal)
        </label>
        {step === undefined ? null : (
          <button type="button" onClick={() => set('step', '')}>
            All steps (now step {step})
          </button>
        )}
      </form>
      {groups.isPending ? (
        <Loading what="the groups" />
      ) : groups.isError ? (
        <ProblemCard error={groups.error} what="Groups" />
      ) : items.length === 0 ? (
        <EmptyState title="No such groups">
          <p>
            {uniform
              ? 'Every group here has rewards that differ, so each one gives the policy a signal.'
              : 'No samples yet.'}
          </p>
        </EmptyState>
      ) : (
        <>
          <table className="table" aria-label="groups">
            <thead>
              <tr>
                <th>Step</th>
                <th>Samples</th>
                <th>Rewards</th>
                <th>Mean</th>
                <th>Prompt</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {items.map((group) => (
                <tr key={`${group.step}:${group.promptHash}`}>
                  <td className="nowrap">step {group.step}</td>
                  <td>{group.samples}</td>
                  <td className="nowrap">
                    {group.min === group.max
                      ? `all ${formatScore(group.min)}`
                      : `${formatScore(group.min)}–${formatScore(group.max)}`}
                  </td>
                  <td>{formatScore(group.mean)}</td>
                  <td className="preview">{group.prompt.replace(/\s+/g, ' ')}</td>
                  <td className="nowrap">
                    <Link href={`/rollouts/${runId}/group?step=${group.step}&prompt=${group.promptHash}`}>
                      side by side
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {groups.hasNextPage ? (
            <button type="button" onClick={() => void groups.fetchNextPage()}>
              More groups
            </button>
          ) : null}
        </>
      )}
    </>
  );
}
