import type { AppRouter } from '@fusebox/api-router';
import type { inferRouterOutputs } from '@trpc/server';
import type { ReactNode } from 'react';
import { formatMs, formatScore, formatTime } from '~/components/format';
import { SessionEvents } from './session-events';
import { useWholeAction } from './session-actions';

type Session = inferRouterOutputs<AppRouter>['sessions']['byId'];
type Action = Session['actions'][number];
type Scored = NonNullable<NonNullable<Session['rewardDetail']>[number]['search']>;

/** The tags each convention writes a query in, to show the query as the model wrote it. */
const QUERY_TAGS = {
  'search-r1': ['<search>', '</search>'],
  'r1-searcher': ['<|begin_of_query|>', '<|end_of_query|>'],
} as const;

/** The task's rule as people read it. */
const RULE_NAMES: Record<string, string> = {
  em: 'exact match (em)',
  subem: 'sub-exact match (subem)',
  f1: 'token F1 (f1)',
};

/** A passage's title is its first line (Search-R1's corpus format), often quoted. */
function splitPassage(contents: string): { title: string; text: string } {
  const [title = '', ...text] = contents.split('\n');
  return { title: title.replace(/^"(.*)"$/, '$1'), text: text.join('\n') };
}

function signed(value: number): string {
  if (value === 0) return '0';
  return value > 0 ? `+${formatScore(value)}` : `−${formatScore(-value)}`;
}

/**
 * A search session: the question and golden answers, each turn's query with the passages it was answered
 * (id, title, BM25 score, text on demand), and the final answer's score in its parts. Everything is read from
 * what the session stored; nothing is searched again.
 */
export function SearchTimeline({
  session: s,
  actions,
  more,
}: {
  session: Session & { search: NonNullable<Session['search']> };
  /** The actions loaded so far (the timeline pages them). */
  actions: Action[];
  /** The control that loads the next page, if any. */
  more: ReactNode;
}) {
  const scored = s.rewardDetail?.[0]?.search;
  const golden = scored?.golden ?? s.search.golden;
  return (
    <>
      <h1>
        Session {s.id} <span className="badge">{s.state}</span> <span className="badge muted">search</span>
      </h1>
      <section className="card wide" aria-label="task and reward">
        <dl>
          <dt>task</dt>
          <dd>
            {s.task.name} ({s.taskId})
          </dd>
          <dt>question</dt>
          <dd>{s.task.prompt}</dd>
          <dt>golden answers</dt>
          <dd aria-label="golden answers">{golden.join(' · ')}</dd>
          <dt>corpus</dt>
          <dd>{s.search.corpus ?? 'the only one imported'}</dd>
          <dt>started</dt>
          <dd>{formatTime(s.createdAt)}</dd>
          <dt>reward</dt>
          <dd className="score-value">{formatScore(s.reward)}</dd>
        </dl>
      </section>
      <ol className="timeline" aria-label="timeline">
        {actions.map((action) => (
          <SearchAction
            key={action.seq}
            sessionId={s.id}
            action={action}
            previewChars={s.actionPreviewChars}
            answered={scored?.answerAction === action.seq}
          />
        ))}
        {more}
        <SessionEvents events={s.events} more={s.moreEvents} />
      </ol>
      {scored ? (
        <AnswerScore scored={scored} reward={s.reward} />
      ) : s.rewardDetail ? (
        // Scored before rewards kept their parts: the stored summary is all there is.
        <section className="card wide" aria-label="answer and score">
          <h2>Answer</h2>
          <p>{s.rewardDetail[0]?.detail}</p>
        </section>
      ) : (
        <section className="card wide" aria-label="answer and score">
          <h2>Answer</h2>
          <p className="muted">Not scored yet: the session gets its score from /compute_reward.</p>
        </section>
      )}
    </>
  );
}

function SearchAction({
  sessionId,
  action: cut,
  previewChars,
  answered,
}: {
  sessionId: string;
  action: Action;
  previewChars: number;
  answered: boolean;
}) {
  const { shown: action, note } = useWholeAction(sessionId, cut, previewChars);
  const record = action.search;
  const [open, close] = record ? QUERY_TAGS[record.tags] : ['', ''];
  return (
    <li className="turn assistant" aria-label={`action ${action.seq}`}>
      <header>
        <span className="role assistant">action {action.seq}</span>
        <span className="muted">
          {formatTime(action.createdAt)} · {action.status} · {formatMs(action.durationMs)}
        </span>
        {answered ? <span className="badge ok">final answer</span> : null}
      </header>
      {note}
      {/* An action stored before action.search still has its query, without the convention it came in. */}
      {record || action.code ? (
        <div aria-label="query">
          <span className="badge">query</span>{' '}
          <code>
            {open}
            {action.code}
            {close}
          </code>
        </div>
      ) : null}
      <details>
        <summary>The model&apos;s text ({action.content.length} characters)</summary>
        <pre className="text">{action.content}</pre>
      </details>
      {record && record.documents.length > 0 ? (
        <table className="table" aria-label="documents">
          <thead>
            <tr>
              <th>#</th>
              <th>id</th>
              <th>title and text</th>
              <th>score</th>
            </tr>
          </thead>
          <tbody>
            {record.documents.map((document, index) => {
              const { title, text } = splitPassage(document.contents);
              return (
                <tr key={index}>
                  <td>{index + 1}</td>
                  <td>
                    <code>{document.id ?? '–'}</code>
                  </td>
                  <td>
                    <details>
                      <summary>{title}</summary>
                      <p>{text}</p>
                    </details>
                  </td>
                  <td>{document.score === null ? '–' : document.score.toFixed(3)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : action.observation !== '' ? (
        // No passages: the hint for a turn without a query, the reason a search failed, or "no passage matches".
        <div className="tool-response" aria-label="observation">
          <span className="badge">observation</span>
          <pre className="text">{action.observation}</pre>
        </div>
      ) : null}
    </li>
  );
}

function AnswerScore({ scored, reward }: { scored: Scored; reward: number | null }) {
  const terms = [
    { name: 'retrieval', earned: scored.earned.retrieval, of: scored.terms.retrieval },
    { name: 'format', earned: scored.earned.format, of: scored.terms.format },
    { name: 'format penalty', earned: -scored.earned.formatPenalty, of: -scored.terms.format_penalty },
  ];
  const termsOn = terms.some((term) => term.of !== 0);
  return (
    <section className="card wide" aria-label="answer and score">
      <h2>Answer</h2>
      <dl>
        <dt>final answer</dt>
        <dd aria-label="final answer">
          {scored.answer === null ? (
            <span className="badge error">no answer in any action</span>
          ) : (
            <>
              <code>{scored.answer}</code> <span className="muted">(action {scored.answerAction})</span>
            </>
          )}
        </dd>
        <dt>golden answers</dt>
        <dd>{scored.golden.join(' · ')}</dd>
        <dt>{RULE_NAMES[scored.rule] ?? scored.rule}</dt>
        <dd aria-label="answer score">{formatScore(scored.answerScore)}</dd>
        <dt>R1-Searcher terms</dt>
        <dd aria-label="terms">
          {termsOn
            ? terms
                .filter((term) => term.of !== 0)
                .map((term) => `${term.name} ${signed(term.earned)} of ${signed(term.of)}`)
                .join(' · ')
            : 'off for this task'}
        </dd>
        <dt>reward</dt>
        <dd className="score-value">{formatScore(reward)}</dd>
      </dl>
    </section>
  );
}
