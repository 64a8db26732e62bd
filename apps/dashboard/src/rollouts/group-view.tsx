'use client';

import { useQuery } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { Loading, ProblemCard } from '~/components/query-state';
import { formatChars, formatScore } from '~/components/format';
import { useQueryParams } from '~/components/use-query-params';
import { useTRPC } from '~/trpc/client';
import { ChatView } from './chat-view';
import { ToolErrors } from './tool-errors';

/** One GRPO group: the prompt once, then each of its samples' responses side by side (`?step=3&prompt=HASH`). */
export function GroupView({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const { search } = useQueryParams();
  const step = Number(search.get('step'));
  const promptHash = search.get('prompt') ?? '';
  const valid = Number.isSafeInteger(step) && step >= 0 && /^[0-9a-f]{16}$/.test(promptHash);
  const group = useQuery({
    ...trpc.rolloutAnalysis.group.queryOptions({ runId, step, promptHash }),
    enabled: valid,
  });
  if (!valid)
    return (
      <ProblemCard
        error={{ message: 'a group link names ?step=STEP&prompt=HASH', data: { code: 'BAD_REQUEST' } }}
        what="Group"
      />
    );
  if (group.isPending) return <Loading what="the group" />;
  if (group.isError) return <ProblemCard error={group.error} what="Group" />;
  const { samples } = group.data;
  return (
    <>
      <p>
        <Link href={`/rollouts/${runId}`}>{group.data.run.name}</Link> · step {group.data.step} ·{' '}
        {samples.length} samples{group.data.more ? ' (the first ones)' : ''} ·{' '}
        {group.data.uniform ? (
          <strong className="bad-text">
            every reward is {formatScore(samples[0]!.score)}: no learning signal
          </strong>
        ) : (
          `rewards ${samples.map((sample) => formatScore(sample.score)).join(', ')}`
        )}
      </p>
      <details className="group-prompt">
        <summary>The prompt</summary>
        <pre className="text">{group.data.input}</pre>
      </details>
      <div className="group-columns">
        {samples.map((sample) => (
          <section key={sample.line} className="compare-column" aria-label={`line ${sample.line}`}>
            <header className="sample-header">
              <h2>
                line {sample.line} · score <span className="score-value">{formatScore(sample.score)}</span>
              </h2>
              <span className="muted">
                {formatChars(sample.responseChars)} chars · {sample.toolCalls} calls
                {sample.toolErrors > 0 ? <ToolErrors count={sample.toolErrors} /> : null} · {sample.turns}{' '}
                turns
              </span>{' '}
              <Link href={`/rollouts/${runId}/browse?step=${group.data.step}&line=${sample.line}`}>open</Link>
            </header>
            <ChatView input="" output={sample.output} requestId={sample.requestId} raw={false} query={null} />
          </section>
        ))}
      </div>
    </>
  );
}
