import { afterAll, beforeAll } from 'vitest';
import { type Executor, createExecutor } from '../src/executor';
import type { ExecutorOptions } from '../src/executor-options';

/**
 * One real executor (bubblewrap, cgroups) shared by the tests of a file, closed after them. Warnings are kept
 * so tests can assert on them.
 */
export function useExecutor(options: ExecutorOptions = {}): { executor: () => Executor; warnings: string[] } {
  let executor: Executor | undefined;
  const warnings: string[] = [];
  beforeAll(async () => {
    executor = await createExecutor({
      concurrency: 2,
      warn: (message) => warnings.push(message),
      ...options,
    });
  });
  afterAll(() => executor?.close());
  return {
    executor: () => {
      if (!executor) throw new Error('the executor is not ready');
      return executor;
    },
    warnings,
  };
}
