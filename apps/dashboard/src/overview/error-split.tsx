import type { KeyHistory } from '@fusebox/api-router';

type Outcome = keyof KeyHistory['outcomes'];

/** The outcomes in the groups an engineer acts on differently, each named for whose problem it is. */
const GROUPS: { label: string; title: string; outcomes: Outcome[] }[] = [
  {
    label: 'model',
    title:
      "the model's code failed, ran out of time, or was killed at the memory cap (exit 137): the reward's business, not the sandbox's",
    outcomes: ['Failed', 'Timeout', 'OutOfMemory'],
  },
  {
    label: 'infrastructure',
    title: 'the sandbox or Fusebox failed: look at the API logs',
    outcomes: ['SandboxError', 'Error'],
  },
  {
    label: 'unanswered',
    title:
      'answered 429 by the limiter (RateLimited), refused otherwise before running, or abandoned by a client that went away',
    outcomes: ['RateLimited', 'Refused', 'Abandoned'],
  },
];

/**
 * A key's finished executions that did not succeed, split by whose failure they were: "model: Failed 3 ·
 * Timeout 1", "infrastructure: SandboxError 1", "unanswered: RateLimited 2, Refused 1".
 */
export function ErrorSplit({ history }: { history: KeyHistory | undefined }) {
  const outcomes = history?.outcomes ?? {};
  const finished = Object.values(outcomes).reduce((sum, count) => sum + count, 0);
  if (finished === 0) return <>–</>;
  const errors = finished - (outcomes.Success ?? 0);
  return (
    <span className="error-split">
      {((errors / finished) * 100).toFixed(1)}% of {finished}
      {GROUPS.map((group) => {
        const counts = group.outcomes.filter((outcome) => (outcomes[outcome] ?? 0) > 0);
        if (counts.length === 0) return null;
        return (
          <span
            key={group.label}
            className="error-group"
            title={group.title}
            data-testid={`errors-${group.label}`}
          >
            {' · '}
            {group.label}: {counts.map((outcome) => `${outcome} ${outcomes[outcome]}`).join(', ')}
          </span>
        );
      })}
    </span>
  );
}
