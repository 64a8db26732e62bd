'use client';

import { useQuery } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { Loading, ProblemCard } from '~/components/query-state';
import { useQueryParams } from '~/components/use-query-params';
import { formatScore } from '~/components/format';
import { useTRPC } from '~/trpc/client';
import { type BrowserParams, browserSearch, parseBrowserParams } from './browser-params';
import { ChatView } from './chat-view';
import { TextDiff } from './text-diff';

/** `step:line`, as compare links spell a sample. */
function parseRef(text: string | null): { step: number; line: number } | null {
  const match = /^(\d+):(\d+)$/.exec(text ?? '');
  return match ? { step: Number(match[1]), line: Number(match[2]) } : null;
}

function Column({
  runId,
  side,
  at,
  filters,
  onPick,
}: {
  runId: string;
  side: 'A' | 'B';
  at: { step: number; line: number };
  /** The rollout browser's filters when it opened this comparison; "open" goes back with them. */
  filters: BrowserParams;
  onPick: (ref: string) => void;
}) {
  const trpc = useTRPC();
  const sample = useQuery(trpc.rollouts.sample.queryOptions({ runId, ...at }));
  return (
    <section className="compare-column" aria-label={`sample ${side}`}>
      {sample.isPending ? (
        <Loading what={`sample ${side}`} />
      ) : sample.isError ? (
        <ProblemCard error={sample.error} what={`Sample ${side}`} />
      ) : (
        <>
          <header className="sample-header">
            <h2>
              {side}: step {sample.data.step} · line {sample.data.line} · score{' '}
              <span className="score-value">{formatScore(sample.data.score)}</span>
            </h2>
            <Link href={`/rollouts/${runId}/browse?${browserSearch({ ...filters, ...at })}`}>open</Link>
            <label>
              same prompt:{' '}
              <select
                aria-label={`sample ${side}: same prompt at`}
                value=""
                onChange={(event) => onPick(event.target.value)}
              >
                <option value="">choose…</option>
                {sample.data.samePrompt.map((other) => (
                  <option key={`${other.step}:${other.line}`} value={`${other.step}:${other.line}`}>
                    step {other.step} · line {other.line} · score {formatScore(other.score)}
                  </option>
                ))}
              </select>
            </label>
            <form
              className="sample-picker"
              aria-label={`sample ${side}: any sample`}
              onSubmit={(event) => {
                event.preventDefault();
                const form = new FormData(event.currentTarget);
                onPick(`${form.get('step') as string}:${form.get('line') as string}`);
              }}
            >
              or step{' '}
              <input
                name="step"
                type="number"
                min={0}
                defaultValue={at.step}
                aria-label={`sample ${side}: step`}
              />{' '}
              line{' '}
              <input
                name="line"
                type="number"
                min={1}
                defaultValue={at.line}
                aria-label={`sample ${side}: line`}
              />{' '}
              <button type="submit">Show</button>
            </form>
          </header>
          <ChatView
            input={sample.data.input}
            output={sample.data.output}
            requestId={sample.data.requestId}
            raw={false}
            query={null}
          />
        </>
      )}
    </section>
  );
}

/** Two samples side by side, e.g. the same prompt at two steps; both are in the URL (`?a=3:12&b=40:7`). */
export function CompareView({ runId }: { runId: string }) {
  const { search, set: setParam } = useQueryParams();
  const a = parseRef(search.get('a'));
  const b = parseRef(search.get('b'));
  const filters = parseBrowserParams(search);
  const set = (side: 'a' | 'b', value: string) => setParam(side, value, { replace: true });
  if (!a || !b)
    return (
      <ProblemCard
        error={{
          message: 'a compare link names two samples as ?a=STEP:LINE&b=STEP:LINE',
          data: { code: 'BAD_REQUEST' },
        }}
        what="Samples to compare"
      />
    );
  return (
    <>
      <div className="compare">
        <Column runId={runId} side="A" at={a} filters={filters} onPick={(ref) => set('a', ref)} />
        <Column runId={runId} side="B" at={b} filters={filters} onPick={(ref) => set('b', ref)} />
      </div>
      <ResponseDiff runId={runId} a={a} b={b} />
    </>
  );
}

/** The two responses as a line diff, A → B, and a note when they are not two answers to one prompt. */
function ResponseDiff({
  runId,
  a,
  b,
}: {
  runId: string;
  a: { step: number; line: number };
  b: { step: number; line: number };
}) {
  const trpc = useTRPC();
  // The columns asked for the same samples: these come from the cache.
  const left = useQuery(trpc.rollouts.sample.queryOptions({ runId, ...a }));
  const right = useQuery(trpc.rollouts.sample.queryOptions({ runId, ...b }));
  const differ =
    left.data && right.data
      ? a.step === b.step && a.line === b.line
        ? 'A and B are the same sample: pick another for either side above.'
        : left.data.promptHash !== right.data.promptHash
          ? 'A and B answer different prompts.'
          : null
      : null;
  // Kept mounted while another sample loads, so an open diff stays open.
  return (
    <>
      {differ ? (
        <p className="muted" role="note">
          {differ}
        </p>
      ) : null}
      <details className="compare-diff">
        <summary>Text diff of the responses (A → B)</summary>
        {left.data && right.data ? (
          <TextDiff a={left.data.output} b={right.data.output} label="response diff" />
        ) : (
          <Loading what="the responses" />
        )}
      </details>
    </>
  );
}
