'use client';

import type { AppRouter } from '@fusebox/api-router';
import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { Link } from '~/components/link';
import { CodeBlock } from '~/components/code-block';
import { Loading, ProblemCard } from '~/components/query-state';
import { formatMs, formatScore, formatTime } from '~/components/format';
import { useTRPC } from '~/trpc/client';
import { SearchTimeline } from './search-timeline';
import { SessionEvents } from './session-events';
import { type SessionAction, useSessionActions, useWholeAction } from './session-actions';

type Session = inferRouterOutputs<AppRouter>['sessions']['byId'];

function fraction(count: number | null, total: number | null): string {
  return count === null || total === null ? '–' : `${count} of ${total}`;
}

/**
 * A session from its task to its reward: each action with the code it ran and what it observed, and errors; a
 * search task's session as its queries, passages and scored answer (search-timeline.tsx).
 */
export function SessionTimeline({ id }: { id: string }) {
  const trpc = useTRPC();
  const session = useQuery(trpc.sessions.byId.queryOptions({ id }));
  if (session.isPending) return <Loading what="the session" />;
  if (session.isError)
    return (
      <ProblemCard error={session.error} what="Session">
        <Link href="/sessions">All sessions</Link>
      </ProblemCard>
    );
  return <LoadedTimeline session={session.data} />;
}

function LoadedTimeline({ session: s }: { session: Session }) {
  const { actions, button } = useSessionActions(s);
  if (s.search)
    return <SearchTimeline session={{ ...s, search: s.search }} actions={actions} more={button} />;
  return (
    <>
      <h1>
        Session {s.id} <span className="badge">{s.state}</span>
      </h1>
      <section className="card wide" aria-label="task and reward">
        <dl>
          <dt>task</dt>
          <dd>
            {s.task.name} ({s.taskId}, {s.task.language})
          </dd>
          <dt>started</dt>
          <dd>{formatTime(s.createdAt)}</dd>
          <dt>reward</dt>
          <dd className="score-value">{formatScore(s.reward)}</dd>
          <dt>fail → pass</dt>
          <dd>{fraction(s.f2pCount, s.f2pTotal)}</dd>
          <dt>pass → pass</dt>
          <dd>{fraction(s.p2pCount, s.p2pTotal)}</dd>
        </dl>
      </section>
      <ol className="timeline" aria-label="timeline">
        {actions.map((action) => (
          <PlainAction
            key={action.seq}
            sessionId={s.id}
            action={action}
            language={s.task.language}
            previewChars={s.actionPreviewChars}
          />
        ))}
        {button}
        <SessionEvents events={s.events} more={s.moreEvents} />
      </ol>
      {s.rewardDetail ? (
        <table className="table" aria-label="tests">
          <thead>
            <tr>
              <th>test</th>
              <th>group</th>
              <th>result</th>
              <th>detail</th>
            </tr>
          </thead>
          <tbody>
            {s.rewardDetail.map((test) => (
              <tr key={`${test.group}:${test.name}`}>
                <td>{test.name}</td>
                <td>{test.group}</td>
                <td>
                  <span className={`badge ${test.passed ? 'ok' : 'error'}`}>
                    {test.passed ? 'passed' : test.status}
                  </span>
                </td>
                <td>
                  <code>{test.detail.slice(-200)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

function PlainAction({
  sessionId,
  action,
  language,
  previewChars,
}: {
  sessionId: string;
  action: SessionAction;
  language: string;
  previewChars: number;
}) {
  const { shown, note } = useWholeAction(sessionId, action, previewChars);
  return (
    <li className="turn assistant" aria-label={`action ${action.seq}`}>
      <header>
        <span className="role assistant">action {action.seq}</span>
        <span className="muted">
          {formatTime(action.createdAt)} · {action.status}
          {action.returnCode === null ? '' : ` · exit ${action.returnCode}`} · {formatMs(action.durationMs)}
        </span>
        {action.executionId ? <Link href={`/executions/${action.executionId}`}>execution</Link> : null}
      </header>
      {note}
      {shown.code !== null ? (
        <CodeBlock code={shown.code} language={language} label="action code" />
      ) : (
        <pre className="text">{shown.content}</pre>
      )}
      <div className="tool-response" aria-label="observation">
        <span className="badge">observation</span>
        <pre className="text">{shown.observation}</pre>
      </div>
    </li>
  );
}
