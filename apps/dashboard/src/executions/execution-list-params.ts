import type { AppRouter } from '@fusebox/api-router';
import type { inferRouterInputs } from '@trpc/server';

type ListInput = inferRouterInputs<AppRouter>['executions']['list'];
type ListStatus = NonNullable<ListInput['status']>;

/**
 * SandboxFusion's statuses, then those of requests that got no execution's answer: refused before running
 * (429s among them), abandoned by their client, or failed inside Fusebox.
 */
export const STATUSES = [
  'Success',
  'Failed',
  'SandboxError',
  'Refused',
  'Abandoned',
  'Error',
  /** Failed runs the kernel killed at the memory cap (exit 137, no time limit). */
  'OutOfMemory',
  /** Refused with 429: the limiter's queue was full, or no permit came in time. */
  'RateLimited',
] as const satisfies readonly ListStatus[];

/** `datetime-local` inputs speak local time without a zone; the URL keeps that text. */
function toMs(local: string | null): number | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/** The execution list's filters, as its URL holds them. */
export function executionListParams(search: Pick<URLSearchParams, 'get'>) {
  return {
    status: STATUSES.find((candidate) => candidate === search.get('status')),
    language: search.get('language') ?? undefined,
    session: search.get('session') ?? undefined,
    from: toMs(search.get('from')),
    to: toMs(search.get('to')),
    text: search.get('q')?.trim() || undefined,
    slowest: search.get('sort') === 'slowest',
  };
}

/** The `executions.list` input for those filters, first page (the server's prefetch and the list ask the same). */
export function executionListInput(params: ReturnType<typeof executionListParams>): ListInput {
  const { status, language, session, from, to, text, slowest } = params;
  return {
    limit: 100,
    ...(status ? { status } : {}),
    ...(language ? { language } : {}),
    ...(session ? { sessionId: session } : {}),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(text === undefined ? {} : { q: text }),
    ...(slowest ? { sort: 'slowest' as const } : {}),
  };
}
