'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { useEffect, useRef } from 'react';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { useTRPC } from '~/trpc/client';
import { type BrowserParams, browserSearch, sampleFilter } from './browser-params';
import { FilterBar } from './filter-bar';
import { QueryBox } from './query-box';
import { SampleList } from './sample-list';
import { SampleView } from './sample-view';
import { SearchResults, useSearchHits } from './search-results';
import { useBrowserParams } from './use-browser-params';
import { useKeys } from './use-keys';
import { useRunLive } from './use-run-live';

const SCROLL_STEP = 240;

/**
 * The rollout browser: a step's samples (or a search's hits) on the left, the chosen sample on the right.
 * Everything it shows is in the URL; the keyboard drives it like verl's viewer, and more.
 */
export function RolloutBrowser({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [params, setParams, updating] = useBrowserParams();
  useRunLive(runId);
  const steps = useQuery(trpc.rollouts.stepList.queryOptions({ runId }));
  const stepNumbers = steps.data?.steps.map((step) => step.step) ?? [];
  const step = params.step ?? stepNumbers[0] ?? null;
  const searchInput = useRef<HTMLInputElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const hits = useSearchHits(runId, params);
  const sample = useQuery({
    ...trpc.rollouts.sample.queryOptions({
      runId,
      step: step ?? 0,
      line: params.line ?? 0,
      filter: sampleFilter(params),
    }),
    enabled: step !== null && params.line !== null,
  });

  // A link to the run alone opens its first step, written into the URL so a reload lands on the same view.
  useEffect(() => {
    if (params.step === null && step !== null) setParams({ step });
  }, [params.step, step, setParams]);

  const goToSample = (target: { step: number; line: number }) => setParams(target);
  const firstOfStep = async (target: number) => {
    const first = await queryClient.fetchQuery(
      trpc.rollouts.firstSample.queryOptions({ runId, step: target, ...sampleFilter(params) }),
    );
    setParams({ step: target, line: first.line });
  };
  const moveSample = async (direction: 1 | -1) => {
    if (step === null) return;
    if (params.q) {
      const list = hits.data?.pages.flatMap((page) => page.items) ?? [];
      const index = list.findIndex((hit) => hit.step === params.step && hit.line === params.line);
      const target = list[index < 0 ? 0 : index + direction];
      if (target) goToSample(target);
      else if (direction === 1 && hits.hasNextPage) await hits.fetchNextPage();
      return;
    }
    if (params.line === null) return firstOfStep(step);
    const position = sample.data?.position;
    const target = direction === 1 ? position?.next : position?.prev;
    if (target !== null && target !== undefined) goToSample({ step, line: target });
    else if (!position) await firstOfStep(step);
  };
  const moveStep = (direction: 1 | -1) => {
    if (step === null) return;
    const index = stepNumbers.indexOf(step);
    const target = stepNumbers[index + direction];
    if (target !== undefined) void firstOfStep(target);
  };
  const focusSearch = () => {
    searchInput.current?.focus();
    searchInput.current?.select();
  };
  const keysLive = useKeys({
    n: () => void moveSample(1),
    p: () => void moveSample(-1),
    N: () => moveStep(1),
    P: () => moveStep(-1),
    '/': focusSearch,
    f: focusSearch,
    j: () => scrollRef.current?.scrollBy({ top: SCROLL_STEP }),
    k: () => scrollRef.current?.scrollBy({ top: -SCROLL_STEP }),
  });

  // With a step in the URL the list loads at once, beside the step list rather than after it.
  if (steps.isPending && step === null) return <Loading what="the run" />;
  if (steps.isError) return <ProblemCard error={steps.error} what="Rollout run" />;
  if (step === null)
    return (
      <EmptyState title="This run has no samples yet">
        <p>
          Its dump directory had no readable lines. Run `fusebox rollouts import` again once training has
          written a step.
        </p>
      </EmptyState>
    );
  const change = (patch: Partial<BrowserParams>) => setParams(patch, { push: true });
  return (
    <div className="browser-page">
      <header className="browser-bar">
        <Link href={`/rollouts/${runId}`} className="run-name">
          {steps.data?.run.name ?? '…'}
        </Link>
        <div className="step-nav" role="group" aria-label="step">
          <button
            type="button"
            onClick={() => moveStep(-1)}
            disabled={stepNumbers.indexOf(step) <= 0}
            title="previous step (P)"
          >
            ◀
          </button>
          <select
            aria-label="step"
            value={step}
            onChange={(event) => void firstOfStep(Number(event.target.value))}
          >
            {(stepNumbers.length > 0 ? stepNumbers : [step]).map((number) => (
              <option key={number} value={number}>
                step {number}
              </option>
            ))}
          </select>
          <button
            type="button"
            onClick={() => moveStep(1)}
            disabled={stepNumbers.indexOf(step) >= stepNumbers.length - 1}
            title="next step (N)"
          >
            ▶
          </button>
        </div>
        <form
          role="search"
          className="search"
          onSubmit={(event) => {
            event.preventDefault();
            change({ q: searchInput.current?.value.trim() ?? '', line: null });
            searchInput.current?.blur();
          }}
        >
          <QueryBox key={params.q} runId={runId} step={step} initial={params.q} inputRef={searchInput} />
          {params.q ? (
            <button type="button" onClick={() => change({ q: '', line: null })}>
              Clear search
            </button>
          ) : null}
        </form>
        {/* Listed once they work. */}
        {keysLive ? (
          <span className="keys muted" aria-label="keyboard shortcuts">
            n/p sample · N/P step · / find · j/k scroll
          </span>
        ) : null}
      </header>
      <FilterBar runId={runId} step={step} params={params} onChange={change} />
      <div className="browser">
        <div className="list-pane" aria-busy={updating}>
          {params.q ? (
            <SearchResults runId={runId} params={params} />
          ) : (
            <SampleList runId={runId} step={step} params={params} />
          )}
        </div>
        <div className="sample-pane">
          {params.line === null ? (
            <EmptyState title="Pick a sample">
              <p>Click a sample on the left, or press n for the first one.</p>
            </EmptyState>
          ) : (
            <SampleView
              runId={runId}
              step={step}
              line={params.line}
              params={params}
              scrollRef={scrollRef}
              onRawChange={(raw) => setParams({ raw })}
            />
          )}
        </div>
      </div>
      <p className="deep-link muted">
        Link to this view: <code>{`/rollouts/${runId}/browse?${browserSearch({ ...params, step })}`}</code>
      </p>
    </div>
  );
}
