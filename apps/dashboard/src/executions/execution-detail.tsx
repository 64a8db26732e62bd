'use client';

import { useQuery } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { CodeBlock } from '~/components/code-block';
import { Loading, ProblemCard } from '~/components/query-state';
import { formatMs, formatTime } from '~/components/format';
import { useTRPC } from '~/trpc/client';

/** One execution: its code, what it printed, and where its time went (permit wait, sandbox queue, compile, run). */
export function ExecutionDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const execution = useQuery(trpc.executions.byId.queryOptions({ id }));
  if (execution.isPending) return <Loading what="the execution" />;
  if (execution.isError)
    return (
      <ProblemCard error={execution.error} what="Execution">
        <Link href="/executions">All executions</Link>
      </ProblemCard>
    );
  const e = execution.data;
  // The permit's wait is the timestamps' gap; the rest of the recorded wait was the executor's queue.
  const permitWaitMs = e.acquiredAt
    ? new Date(e.acquiredAt).getTime() - new Date(e.requestedAt).getTime()
    : null;
  return (
    <>
      <h1>
        Execution <span className={`badge ${e.status === 'Success' ? 'ok' : 'error'}`}>{e.status}</span>
      </h1>
      <section className="card wide" aria-label="timings">
        <dl>
          <dt>source · language</dt>
          <dd>
            {e.source} · {e.language}
          </dd>
          <dt>requested</dt>
          <dd>{formatTime(e.requestedAt)}</dd>
          <dt>permit wait · sandbox queue</dt>
          <dd>
            {formatMs(permitWaitMs)}
            {e.limiterKey ? ` on ${e.limiterKey}` : ''} ·{' '}
            {formatMs(Math.max(e.queueWaitMs - (permitWaitMs ?? 0), 0))}
          </dd>
          <dt>compile · run</dt>
          <dd>
            {formatMs(e.compileMs)} · {formatMs(e.runMs)}
          </dd>
          <dt>run status · exit code</dt>
          <dd>
            {e.runStatus ?? '–'} · {e.returnCode ?? '–'}
          </dd>
          {e.message ? (
            <>
              <dt>message</dt>
              <dd>{e.message}</dd>
            </>
          ) : null}
          <dt>worker</dt>
          <dd>{e.workerId ?? '–'}</dd>
          {e.requestId || e.toolInstance ? (
            <>
              <dt>rollout request · tool instance</dt>
              <dd>
                <code>{e.requestId ?? '–'}</code> · <code>{e.toolInstance ?? '–'}</code>
              </dd>
            </>
          ) : null}
          {e.sessionId ? (
            <>
              <dt>session</dt>
              <dd>
                <Link href={`/sessions/${e.sessionId}`}>{e.sessionId}</Link>
              </dd>
            </>
          ) : null}
        </dl>
      </section>
      <h2>Code</h2>
      <CodeBlock code={e.code} language={e.language} label="code" />
      {e.stdin ? (
        <>
          <h2>stdin</h2>
          <pre className="text">{e.stdin}</pre>
        </>
      ) : null}
      <h2>stdout{e.outputTruncated ? ' (truncated)' : ''}</h2>
      <pre className="text" aria-label="stdout">
        {e.stdout || '(empty)'}
      </pre>
      <h2>stderr</h2>
      <pre className="text" aria-label="stderr">
        {e.stderr || '(empty)'}
      </pre>
    </>
  );
}
