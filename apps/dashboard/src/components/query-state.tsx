'use client';

import type { ReactNode } from 'react';

/** What went wrong with a request, in the words the page shows. */
export interface Problem {
  kind: 'not-found' | 'unreachable' | 'invalid' | 'error';
  title: string;
  detail: string;
}

interface TrpcLikeError {
  message: string;
  data?: { code?: string; httpStatus?: number } | null;
}

/** tRPC reports a refused input as zod's issues in JSON; people want one line per issue. */
function readableIssues(message: string): string {
  try {
    const issues = JSON.parse(message) as { path?: unknown[]; message?: string }[];
    if (!Array.isArray(issues)) return message;
    return issues
      .map((issue) => `${(issue.path ?? []).join('.') || 'input'}: ${issue.message ?? 'invalid'}`)
      .join('; ');
  } catch {
    return message;
  }
}

/**
 * Sorts a failed tRPC call into what the user can act on: something that does not exist (a stale link), an API
 * that cannot be reached, an input the API refused, or anything else.
 */
export function describeProblem(error: TrpcLikeError, what: string): Problem {
  const code = error.data?.code;
  const status = error.data?.httpStatus;
  if (code === 'NOT_FOUND') return { kind: 'not-found', title: `${what} not found`, detail: error.message };
  if (code === 'BAD_REQUEST' || code === 'PARSE_ERROR')
    return {
      kind: 'invalid',
      title: `This link does not name ${what.toLowerCase()}`,
      detail: readableIssues(error.message),
    };
  if (
    status === 502 ||
    /cannot reach the Fusebox API|fetch failed|Failed to fetch|NetworkError|Unable to transform/i.test(
      error.message,
    )
  )
    return {
      kind: 'unreachable',
      title: 'The Fusebox API is unreachable',
      detail: `${error.message}. Is \`fusebox serve\` running?`,
    };
  return { kind: 'error', title: `Could not load ${what.toLowerCase()}`, detail: error.message };
}

/** A failed request, shown in the page (never a blank screen or a stack trace). */
export function ProblemCard({
  error,
  what,
  children,
}: {
  error: TrpcLikeError;
  what: string;
  children?: ReactNode;
}) {
  const problem = describeProblem(error, what);
  return (
    <section className={`card problem ${problem.kind}`} role="alert" aria-label={problem.title}>
      <h2>{problem.title}</h2>
      <p>{problem.detail}</p>
      {children}
    </section>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" aria-busy="true">
      Loading {what}…
    </p>
  );
}

/** An empty state that says what to do next. */
export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="card empty" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}
