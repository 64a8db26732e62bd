import { type RunCodeRequest, runCodeRequestSchema } from '@fusebox/sandbox-client/protocol';
import type { StoredTask } from '@fusebox/tasks';

/** The `/run_code` request that runs `code` as one of the task's programs: its language, limits and files. */
export function programRequest(task: StoredTask, code: string): RunCodeRequest {
  const { runTimeoutS, memoryLimitMB } = task.settings;
  return runCodeRequestSchema.parse({
    code,
    language: task.language,
    compile_timeout: runTimeoutS,
    run_timeout: runTimeoutS,
    memory_limit_MB: memoryLimitMB,
    files: task.setupFiles,
  });
}
