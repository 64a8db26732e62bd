import { tracked } from '@trpc/server';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Seconds within which a change counts as lately made, when a stream's first event is read: the page around
 * it may have been rendered before that change (the render and the stream's first read are seconds apart), so
 * the page refetches once (see `useRefetchOnChange`). Longer than any render-to-subscribe gap, and short enough
 * that a run nobody is importing costs no refetch.
 */
export const CHANGED_LATELY_S = 30;

/**
 * A live view's SSE stream: reads what the view shows a version of every `intervalMs` (the first at once) and
 * sends it when the version changed, as `tracked(version, value)` so a reconnecting client resumes without a
 * duplicate. The browser refetches on each event instead of polling; an unchanged view costs one small read
 * per interval on the server and nothing on the wire.
 */
export async function* watchChanges<T>(
  read: () => Promise<{ version: string; value: T }>,
  intervalMs: number,
  signal: AbortSignal | undefined,
) {
  let last: string | undefined;
  while (!signal?.aborted) {
    const { version, value } = await read();
    if (version !== last) {
      last = version;
      yield tracked(version, value);
    }
    await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
  }
}
