import { LimiterTimeoutError } from './errors/limiter-timeout-error';
import type { AcquireOptions } from './limiter';
import { checkTimeout } from './options';

/**
 * One acquire's end conditions: the caller's signal and its timeout, combined into one signal, so every stage
 * of the wait (the in-process queue, the database) stops on either.
 */
export interface AcquireDeadline {
  /** Aborts when the caller aborts (reason: theirs) or the timeout passes (reason: LimiterTimeoutError). */
  signal: AbortSignal;
  /** The acquire's whole timeout; Infinity when there is none. */
  timeoutMs: number;
  /** Milliseconds left before the timeout; Infinity when there is none. */
  remainingMs(): number;
  /** Stops the timer once the acquire has settled. */
  dispose(): void;
}

/** Validates `options` and starts the clock. Throws the caller's reason at once if the signal already aborted. */
export function startDeadline(
  key: string,
  options: AcquireOptions,
  defaultTimeoutMs: number,
): AcquireDeadline {
  const timeoutMs = checkTimeout('timeoutMs', options.timeoutMs, defaultTimeoutMs);
  options.signal?.throwIfAborted();
  const controller = new AbortController();
  const started = performance.now();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // A plain timer rather than AbortSignal.timeout: its reason must be our typed error, and it must be cleared.
  const timer = Number.isFinite(timeoutMs)
    ? setTimeout(() => controller.abort(new LimiterTimeoutError(key, timeoutMs)), timeoutMs)
    : undefined;
  return {
    signal: controller.signal,
    timeoutMs,
    remainingMs: () =>
      Number.isFinite(timeoutMs) ? Math.max(0, timeoutMs - (performance.now() - started)) : Infinity,
    dispose() {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
}
