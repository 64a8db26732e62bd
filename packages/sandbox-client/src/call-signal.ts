import { SandboxTimeoutError } from './errors/timeout-error';

/**
 * The signal one call runs under. It aborts with the caller's own reason when the caller's signal aborts, with a
 * SandboxTimeoutError when `timeoutMs` passes, and with whatever reason `own` is aborted with (the client aborts
 * it on close). The timeout is a plain timer that is cleared when the call ends: AbortSignal.timeout's timer
 * cannot be cleared, so at high call rates with long timeouts, finished calls would leave live timers behind.
 */
export function callSignal(
  own: AbortController,
  callerSignal: AbortSignal | undefined,
  timeoutMs: number,
  url: string,
): { signal: AbortSignal; dispose(): void } {
  const timer = Number.isFinite(timeoutMs)
    ? setTimeout(() => own.abort(new SandboxTimeoutError(url, timeoutMs)), timeoutMs)
    : undefined;
  const signal = callerSignal ? AbortSignal.any([callerSignal, own.signal]) : own.signal;
  return { signal, dispose: () => clearTimeout(timer) };
}
