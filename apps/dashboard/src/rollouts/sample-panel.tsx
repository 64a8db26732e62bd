'use client';

import { Link } from '~/components/link';
import { formatScore } from '~/components/format';
import { CopyButton } from '~/components/copy-button';
import type { Sample } from './types';

/** A sample as one line of verl's dump would hold it, with its place in the run: what "Copy as JSON" copies. */
function sampleJson(sample: Sample): string {
  const { step, line, requestId, input, output, gts, score, extras } = sample;
  return JSON.stringify(
    { run: sample.run.name, step, line, request_id: requestId, input, output, gts, score, ...extras },
    null,
    2,
  );
}

function Value({ value }: { value: unknown }) {
  if (typeof value === 'string') return <code>{value}</code>;
  return <code>{JSON.stringify(value)}</code>;
}

/** Score, ground truth, extras and the same prompt's other samples, beside the conversation. */
export function SamplePanel({
  sample,
  compareHref,
}: {
  sample: Sample;
  compareHref: (step: number, line: number) => string;
}) {
  return (
    <aside className="side-panel" aria-label="sample details">
      <p>
        <CopyButton label="Copy as JSON" text={() => sampleJson(sample)} />{' '}
        <Link href={`/rollouts/${sample.run.id}/group?step=${sample.step}&prompt=${sample.promptHash}`}>
          its GRPO group, side by side
        </Link>
      </p>
      <dl>
        <dt>score</dt>
        <dd className="score-value">{formatScore(sample.score)}</dd>
        <dt>ground truth</dt>
        <dd>
          <Value value={sample.gts} />
        </dd>
        {sample.requestId ? (
          <>
            <dt>request_id</dt>
            <dd>
              <code>{sample.requestId}</code>
            </dd>
          </>
        ) : null}
        {Object.entries(sample.extras).map(([name, value]) => (
          <div key={name} className="extra">
            <dt>{name}</dt>
            <dd>
              {name === 'sid' && sample.session ? (
                <Link href={`/sessions/${sample.session.id}`} aria-label="session of this sample">
                  {sample.session.id}
                </Link>
              ) : (
                <Value value={value} />
              )}
              {name === 'sid' && sample.session ? (
                <span className="muted">
                  {' '}
                  · {sample.session.state} · {sample.session.actionCount} actions
                  {sample.session.errorCount > 0 ? ` · ${sample.session.errorCount} errors` : ''}
                </span>
              ) : null}
            </dd>
          </div>
        ))}
      </dl>
      <h3>Same prompt elsewhere</h3>
      {sample.samePrompt.length === 0 ? (
        <p className="muted">This prompt appears only here.</p>
      ) : (
        <ul className="same-prompt">
          {sample.samePrompt.slice(0, 30).map((other) => (
            <li key={`${other.step}:${other.line}`}>
              step {other.step} · line {other.line} · score {formatScore(other.score)}{' '}
              <Link href={compareHref(other.step, other.line)}>compare</Link>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
