import { tracked } from '@trpc/server';
import { setTimeout as sleep } from 'node:timers/promises';

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
