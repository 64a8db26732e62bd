import type { SqlClient } from '@fusebox/db/sql-client';

/**
 * Calls `each` for every item, in up to `options.jobs` sessions at once: the client's own, and others opened
 * with `openSession` for this and closed after it (without it, in the client's alone). Each session takes the
 * next item in order; after a failure none takes another, and the first failure is thrown once every session
 * has stopped.
 */
export async function eachInSessions<T>(
  client: SqlClient,
  options: { jobs: number; openSession?: (() => Promise<SqlClient>) | undefined },
  items: readonly T[],
  each: (session: SqlClient, item: T) => Promise<void>,
): Promise<void> {
  const { openSession } = options;
  const more = openSession ? Math.min(options.jobs, items.length) - 1 : 0;
  const opened = await Promise.allSettled(Array.from({ length: Math.max(0, more) }, () => openSession!()));
  const extra = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  let next = 0;
  let failed = false;
  const work = async (session: SqlClient) => {
    while (!failed && next < items.length) {
      const item = items[next++]!;
      await each(session, item).catch((error: unknown) => {
        failed = true;
        throw error;
      });
    }
  };
  try {
    const notOpened = opened.find((result) => result.status === 'rejected');
    if (notOpened) throw notOpened.reason;
    const outcomes = await Promise.allSettled([client, ...extra].map(work));
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure) throw failure.reason;
  } finally {
    await Promise.allSettled(extra.map((session) => session.close()));
  }
}
