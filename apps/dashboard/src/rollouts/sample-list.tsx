'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { InfiniteList } from '~/components/infinite-list';
import { formatChars, formatCount, formatScore } from '~/components/format';
import { useTRPC } from '~/trpc/client';
import { type BrowserParams, browserSearch, sampleListInput } from './browser-params';
import { ExportSamples } from './export-samples';
import { ToolErrors } from './tool-errors';

function extrasSummary(extras: Record<string, unknown>): string {
  return Object.entries(extras)
    .filter(([, value]) => typeof value !== 'object')
    .slice(0, 3)
    .map(([name, value]) => `${name}=${String(value).slice(0, 16)}`)
    .join(' · ');
}

/** The samples of one step under the filters, loaded a page at a time as the list scrolls. */
export function SampleList({ runId, step, params }: { runId: string; step: number; params: BrowserParams }) {
  const trpc = useTRPC();
  const samples = useInfiniteQuery(
    trpc.rollouts.samples.infiniteQueryOptions(sampleListInput(runId, step, params), {
      getNextPageParam: (page) => page.nextCursor,
    }),
  );
  if (samples.isPending) return <Loading what="samples" />;
  if (samples.isError) return <ProblemCard error={samples.error} what="Samples" />;
  const total = samples.data.pages[0]?.total ?? 0;
  if (total === 0)
    return (
      <EmptyState title="No samples match">
        <p>No sample of step {step} passes these filters. Widen the score range or remove a field filter.</p>
      </EmptyState>
    );
  return (
    <>
      <p className="list-count" aria-live="polite">
        {formatCount(total, 'sample', 'samples')}{' '}
        <ExportSamples runId={runId} source={{ kind: 'step', step }} params={params} />
      </p>
      <InfiniteList
        label="samples"
        query={samples}
        rowHeight={64}
        selectedIndex={(list) => list.findIndex((item) => item.line === params.line)}
        renderRow={(item) => {
          return (
            <Link
              href={`/rollouts/${runId}/browse?${browserSearch({ ...params, step, line: item.line })}`}
              className={`row sample-row ${item.line === params.line ? 'selected' : ''}`}
              aria-current={item.line === params.line ? 'true' : undefined}
              replace
              scroll={false}
              data-line={item.line}
            >
              <span className="row-head">
                <strong>#{item.line}</strong> <span className="score-chip">{formatScore(item.score)}</span>{' '}
                <span className="muted">{extrasSummary(item.extras)}</span>
                <span
                  className="muted right"
                  title="response characters · tool calls (failed) · assistant turns"
                >
                  {formatChars(item.responseChars)} · {item.toolCalls} calls
                  {item.toolErrors > 0 ? <ToolErrors count={item.toolErrors} /> : null} · {item.turns} turns
                </span>
              </span>
              <span className="preview">{item.prompt.replace(/\s+/g, ' ')}</span>
              <span className="preview muted">…{item.answer.replace(/\s+/g, ' ').slice(-64)}</span>
            </Link>
          );
        }}
      />
    </>
  );
}
