'use client';

import { Link } from '~/components/link';
import { useQuery } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import type { AppRouter } from '@fusebox/api-router';
import type { inferRouterOutputs } from '@trpc/server';
import { useEffect, useState } from 'react';
import { LineChart } from '~/components/line-chart';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { type ApiAddress, FirstExecution } from '~/components/first-execution';
import { formatMs } from '~/components/format';
import { useTRPC } from '~/trpc/client';
import { ErrorSplit } from './error-split';

type Outputs = inferRouterOutputs<AppRouter>;
type LiveLoad = Outputs['limiter']['stats'];
type KeyHistory = Outputs['overview']['history']['keys'][number];

const MINUTES = 15;
const BUCKET_SECONDS = 5;

/** Whether this key is where rollouts wait: the question the overview answers first. */
function verdict(
  inFlight: number,
  limit: number,
  waiting: number,
  unit: 'permit' | 'slot',
): { label: string; tone: string } {
  if (waiting > 0 && inFlight >= limit)
    return { label: `saturated: ${waiting} waiting for a ${unit}`, tone: 'bad' };
  if (inFlight >= limit) return { label: 'at the limit', tone: 'warn' };
  if (inFlight === 0) return { label: 'idle', tone: 'muted' };
  return { label: `${limit - inFlight} ${unit}s free`, tone: 'ok' };
}

function KeyCard({
  keyName,
  live,
  history,
  limit,
}: {
  keyName: string;
  live: LiveLoad['keys'][number] | undefined;
  history: KeyHistory | undefined;
  limit: number;
}) {
  const inFlight = live?.inFlight ?? 0;
  const waiting = live?.waiting ?? 0;
  const state = verdict(inFlight, limit, waiting, live?.source === 'executor' ? 'slot' : 'permit');
  return (
    <section className="card key-card" aria-label={`limiter ${keyName}`}>
      <h2>
        {keyName} <span className={`badge ${state.tone}`}>{state.label}</span>
      </h2>
      <p className="muted key-source">
        {live?.source === 'executor'
          ? 'sandbox slots of this API process (FUSEBOX_EXECUTOR_CONCURRENCY)'
          : 'cluster-wide permits, shared by every API process (FUSEBOX_MAX_CONCURRENCY)'}
      </p>
      <div className="big-numbers">
        <div>
          <span className="big" data-testid={`in-flight-${keyName}`}>
            {inFlight}
          </span>
          <span className="muted"> / {limit} in flight</span>
        </div>
        <div>
          <span className="big" data-testid={`waiting-${keyName}`}>
            {waiting}
          </span>
          <span className="muted"> waiting</span>
        </div>
        <div>
          <span className="big">{(history?.perSecond ?? 0).toFixed(1)}</span>
          <span className="muted"> executions/s</span>
        </div>
      </div>
      {live?.source === 'executor' ? (
        <>
          <p className="muted">
            Every execution this API process ran, whichever key gated it. Its queue shows on each
            limiter&apos;s card as <em>sandbox queue</em>: time spent with a permit, waiting for a slot here.
          </p>
          <dl>
            <dt>errors ({MINUTES} min)</dt>
            <dd data-testid={`errors-${keyName}`}>
              <ErrorSplit history={history} />
            </dd>
          </dl>
        </>
      ) : (
        <dl>
          <dt>run time p50 / p95</dt>
          <dd>
            {formatMs(history?.runMs.p50)} / {formatMs(history?.runMs.p95)}
          </dd>
          <dt title="requested → permit granted: the global limit holding executions back">
            permit wait p50 / p95
          </dt>
          <dd data-testid={`permit-wait-${keyName}`}>
            {formatMs(history?.permitWaitMs.p50)} / {formatMs(history?.permitWaitMs.p95)}
          </dd>
          <dt title="permit granted → sandbox slot: this machine's executor being the bottleneck">
            sandbox queue p50 / p95
          </dt>
          <dd data-testid={`sandbox-queue-${keyName}`}>
            {formatMs(history?.sandboxQueueMs.p50)} / {formatMs(history?.sandboxQueueMs.p95)}
          </dd>
          <dt>errors ({MINUTES} min)</dt>
          <dd data-testid={`errors-${keyName}`}>
            <ErrorSplit history={history} />
          </dd>
        </dl>
      )}
    </section>
  );
}

/**
 * Live load per limiter key: permits in flight against the limit, waiters, throughput, run-time percentiles,
 * where executions waited (for a permit, or for a sandbox slot), errors, and the last 15 minutes as a chart that the live stream keeps extending.
 */
export function LoadOverview({ api }: { api: ApiAddress }) {
  const trpc = useTRPC();
  const history = useQuery({
    ...trpc.overview.history.queryOptions({ minutes: MINUTES, bucketSeconds: BUCKET_SECONDS }),
    refetchInterval: 15_000,
  });
  const initial = useQuery(trpc.limiter.stats.queryOptions());
  const [samples, setSamples] = useState<LiveLoad[]>([]);
  const live = useSubscription(
    trpc.limiter.inFlight.subscriptionOptions(undefined, {
      onData: (event) =>
        setSamples((previous) => [
          ...previous.filter((sample) => sample.at > Date.now() - MINUTES * 60_000),
          event.data,
        ]),
    }),
  );
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), BUCKET_SECONDS * 1000);
    return () => clearInterval(timer);
  }, []);

  if (history.isPending) return <Loading what="load" />;
  if (history.isError) return <ProblemCard error={history.error} what="Load" />;
  const latest = samples.at(-1) ?? initial.data;
  const keys = [
    ...new Set([...(latest?.keys.map((key) => key.key) ?? []), ...history.data.keys.map((key) => key.key)]),
  ].sort();
  const limits = new Map(history.data.limits.map((limit) => [limit.key, limit.limit]));
  const start = now - MINUTES * 60_000;
  const buckets = Array.from(
    { length: (MINUTES * 60) / BUCKET_SECONDS },
    (_, index) => start + index * BUCKET_SECONDS * 1000,
  );
  // `now` moves every few seconds, the live samples every second: one newer than `now` belongs to the last bucket.
  const bucketOf = (t: number) =>
    Math.min(Math.floor((t - start) / (BUCKET_SECONDS * 1000)), buckets.length - 1);

  return (
    <>
      <p className="live-status muted" aria-live="polite">
        {live.status === 'pending' ? (
          <span className="live-dot">● live</span>
        ) : live.status === 'error' ? (
          `live updates interrupted: ${live.error?.message ?? ''}`
        ) : (
          'connecting…'
        )}
        {latest?.limiterError ? ` · cluster limiter stats unavailable: ${latest.limiterError}` : ''}
      </p>
      <p className="muted">
        <Link href="/executions?sort=slowest">The slowest executions</Link> ·{' '}
        <Link href="/executions?status=SandboxError">sandbox errors</Link> ·{' '}
        <Link href="/executions?status=Refused">refused requests</Link>
      </p>
      {keys.length === 0 ||
      (!history.data.hasExecutions &&
        (latest?.keys ?? []).every((key) => key.inFlight === 0 && key.waiting === 0) &&
        history.data.keys.length === 0) ? (
        <EmptyState title="No executions yet">
          <p>Send the first one and watch it here:</p>
          <FirstExecution api={api} />
        </EmptyState>
      ) : null}
      <div className="key-cards">
        {keys.map((key) => {
          const liveKey = latest?.keys.find((entry) => entry.key === key);
          const keyHistory = history.data.keys.find((entry) => entry.key === key);
          const limit = liveKey?.limit ?? limits.get(key) ?? 0;
          const inFlight = buckets.map(() => 0);
          const waiting = buckets.map(() => 0);
          for (const point of keyHistory?.points ?? []) {
            const index = bucketOf(point.t);
            if (index >= 0 && index < buckets.length) {
              inFlight[index] = Math.max(inFlight[index]!, point.inFlight);
              waiting[index] = Math.max(waiting[index]!, point.waiting);
            }
          }
          for (const sample of samples) {
            const entry = sample.keys.find((candidate) => candidate.key === key);
            const index = bucketOf(sample.at);
            if (entry && index >= 0 && index < buckets.length) {
              inFlight[index] = Math.max(inFlight[index]!, entry.inFlight);
              waiting[index] = Math.max(waiting[index]!, entry.waiting);
            }
          }
          return (
            <div key={key} className="key-block">
              <KeyCard keyName={key} live={liveKey} history={keyHistory} limit={limit} />
              <LineChart
                label={`${key}: in flight and waiting, last ${MINUTES} minutes`}
                xLabels={buckets.map((t) => new Date(t).toLocaleTimeString())}
                series={[
                  { name: 'in flight', color: 'var(--accent)', values: inFlight },
                  { name: 'waiting', color: 'var(--bad)', values: waiting },
                  { name: 'limit', color: 'var(--muted)', values: buckets.map(() => limit), dashed: true },
                ]}
                height={160}
              />
            </div>
          );
        })}
      </div>
    </>
  );
}
