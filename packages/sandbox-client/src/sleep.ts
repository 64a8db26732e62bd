import type { CallAbort } from './call-abort';

/** Waits `ms`, or less: it resolves as soon as the call aborts, so no backoff outlives an abort. */
export function sleep(ms: number, abort: CallAbort): Promise<void> {
  if (abort.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      abort.off('abort', onAbort);
      resolve();
    }, ms);
    abort.once('abort', onAbort);
  });
}
