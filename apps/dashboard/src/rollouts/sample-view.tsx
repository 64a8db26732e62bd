'use client';

import { parseSampleQuery, shownText } from '@fusebox/rollouts/query';
import { useQuery } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { type RefObject, useMemo } from 'react';
import { Loading, ProblemCard } from '~/components/query-state';
import { formatScore } from '~/components/format';
import { useTRPC } from '~/trpc/client';
import { type BrowserParams, browserSearch, sampleFilter } from './browser-params';
import { ChatView } from './chat-view';
import { SamplePanel } from './sample-panel';

interface SampleViewProps {
  runId: string;
  step: number;
  line: number;
  params: BrowserParams;
  onRawChange: (raw: boolean) => void;
  scrollRef: RefObject<HTMLDivElement | null>;
}

/** One sample: its conversation (or raw text) with search matches marked, and its details beside it. */
export function SampleView({ runId, step, line, params, onRawChange, scrollRef }: SampleViewProps) {
  const trpc = useTRPC();
  const sample = useQuery(
    trpc.rollouts.sample.queryOptions({ runId, step, line, filter: sampleFilter(params) }),
  );
  const extras = sample.data?.extras;
  const query = useMemo(() => {
    if (!params.q) return null;
    try {
      // The sample's own extra fields are what the query may compare; the server has refused any other error.
      const parsed = parseSampleQuery(params.q, { knownFields: new Set(Object.keys(extras ?? {})) });
      const shown = parsed && shownText(parsed);
      return shown && shown.terms.length > 0 ? shown : null;
    } catch {
      return null;
    }
  }, [params.q, extras]);
  if (sample.isPending) return <Loading what="the sample" />;
  if (sample.isError) return <ProblemCard error={sample.error} what="Sample" />;
  const data = sample.data;
  // The browser's filters ride along, so "open" on the compare page comes back to the same filtered list.
  const compareHref = (otherStep: number, otherLine: number) => {
    const filters = browserSearch({ ...params, step: null, line: null });
    return `/rollouts/${runId}/compare?a=${step}:${line}&b=${otherStep}:${otherLine}${filters ? `&${filters}` : ''}`;
  };
  const samePrompt = data.samePrompt[0];
  // A prompt sampled once has no other answer to compare with: a neighbour beats the sample beside itself, and
  // the compare page picks any other.
  const neighbour = data.position?.next ?? data.position?.prev ?? null;
  return (
    <div className="sample-view">
      <header className="sample-header">
        <h2>
          Step {data.step} · line {data.line} · score{' '}
          <span className="score-value">{formatScore(data.score)}</span>
        </h2>
        <span className="muted">
          {data.position
            ? `${data.position.index} of ${data.position.total} in this step's list`
            : 'not in the filtered list'}
        </span>
        <label className="toggle">
          <input
            type="checkbox"
            checked={params.raw}
            onChange={(event) => onRawChange(event.target.checked)}
          />{' '}
          raw text
        </label>
        <Link
          href={
            samePrompt ? compareHref(samePrompt.step, samePrompt.line) : compareHref(step, neighbour ?? line)
          }
          title={
            samePrompt
              ? 'beside another sample of the same prompt'
              : 'this prompt was sampled once in the run: beside the next sample of the list'
          }
        >
          Compare…
        </Link>
      </header>
      <div className="sample-body">
        <div className="sample-scroll" ref={scrollRef} tabIndex={-1} aria-label="conversation">
          <ChatView
            key={`${step}:${line}:${params.q}`}
            input={data.input}
            output={data.output}
            requestId={data.requestId}
            raw={params.raw}
            query={query}
          />
        </div>
        <SamplePanel sample={data} compareHref={compareHref} />
      </div>
    </div>
  );
}
