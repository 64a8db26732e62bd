import type { Executor } from '@fusebox/local-sandbox/executor';
import type { ExecutionGate } from '../execution-gate';

/**
 * How sessions reach the sandbox: the executor, behind the global gate every execution passes through (the
 * same one as /run_code), so agent sessions and plain runs share one cluster-wide concurrency limit.
 */
export interface SessionSandbox {
  executor: Executor;
  gate: ExecutionGate;
}
