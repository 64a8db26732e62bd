import type { FifoGate } from './fifo-gate';

/**
 * When an execution was asked for, got its slot and finished. Queue wait is `acquiredAt - requestedAt` and
 * never counts against the execution's own timeouts.
 */
export interface ExecutionTiming {
  requestedAt: Date;
  acquiredAt: Date;
  finishedAt: Date;
  queueWaitMs: number;
}

/** Runs `execute` once the gate grants a slot, and reports how long it queued. */
export async function gated<T>(
  gate: FifoGate,
  execute: () => Promise<T>,
  { signal }: { signal?: AbortSignal } = {},
): Promise<{ result: T; timing: ExecutionTiming }> {
  const requestedAt = new Date();
  const asked = performance.now();
  const release = await gate.acquire({ signal });
  const queueWaitMs = performance.now() - asked;
  const acquiredAt = new Date();
  try {
    const result = await execute();
    return { result, timing: { requestedAt, acquiredAt, finishedAt: new Date(), queueWaitMs } };
  } finally {
    release();
  }
}
