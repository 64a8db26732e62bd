/**
 * Settles with `promise`, or rejects with `signal.reason` as soon as the signal aborts. For queries that cannot
 * be cancelled cheaply (a short stats read): the caller stops waiting, the query finishes on its own.
 */
export async function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    // Reasons are conventionally Errors; whatever it is, it is passed on unchanged.
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
