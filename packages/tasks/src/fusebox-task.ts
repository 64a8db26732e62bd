import { z } from 'zod';
import { deriveInstanceHash, instanceHashSchema } from './instance-hash';
import { languageOfTag } from './language-tags';
import type { TaskRecordInput, TaskSource } from './task-record';
import { REWARD_RULES } from './task-settings';

/** A test in Fusebox's format: `kind` may be left out, since `code` or `expected_stdout` tells which it is. */
const fuseboxTestSchema = z.preprocess(
  (value) =>
    value && typeof value === 'object' && !('kind' in value)
      ? { ...value, kind: 'expected_stdout' in value ? 'io' : 'assert' }
      : value,
  z.discriminatedUnion('kind', [
    z.object({ name: z.string().min(1), kind: z.literal('assert'), code: z.string() }),
    z.object({
      name: z.string().min(1),
      kind: z.literal('io'),
      stdin: z.string().default(''),
      expected_stdout: z.string(),
    }),
  ]),
);

/**
 * One line of a task file in Fusebox's own format (documented in docs/sessions.md). Only `name`, `prompt`,
 * `language` and `tests` are required.
 */
export const fuseboxTaskSchema = z.object({
  instance_hash: instanceHashSchema.optional(),
  name: z.string().min(1),
  prompt: z.string(),
  language: z.string(),
  session_mode: z.enum(['stateful', 'fresh']).optional(),
  setup_files: z.record(z.string(), z.string()).default(() => ({})),
  tests: z.array(fuseboxTestSchema),
  /** Default: every test not listed in pass_to_pass. */
  fail_to_pass: z.array(z.string()).optional(),
  pass_to_pass: z.array(z.string()).default(() => []),
  reward: z.enum(REWARD_RULES).optional(),
  run_timeout_s: z.number().optional(),
  memory_limit_mb: z.int().optional(),
  max_observation_chars: z.int().optional(),
  metadata: z.record(z.string(), z.json()).default(() => ({})),
});

export type FuseboxTask = z.output<typeof fuseboxTaskSchema>;

/**
 * Maps a task in Fusebox's format to its row. Without an instance_hash, the hash is derived from the name.
 * Python tasks default to stateful sessions unless they have stdin/stdout tests.
 */
export function fromFuseboxTask(task: FuseboxTask, source: TaskSource): TaskRecordInput {
  const id = task.instance_hash ?? deriveInstanceHash(task.name);
  const hasIoTests = task.tests.some((test) => test.kind === 'io');
  // An unknown language is kept as is, so the task is rejected naming it.
  const language = languageOfTag(task.language) ?? task.language;
  const passToPass = task.pass_to_pass;
  return {
    id,
    name: task.name,
    source,
    prompt: task.prompt,
    language: language as TaskRecordInput['language'],
    setupFiles: task.setup_files,
    tests: task.tests.map((test) =>
      test.kind === 'assert'
        ? test
        : { name: test.name, kind: 'io', stdin: test.stdin, expectedStdout: test.expected_stdout },
    ),
    failToPass:
      task.fail_to_pass ?? task.tests.map((test) => test.name).filter((name) => !passToPass.includes(name)),
    passToPass,
    sessionMode: task.session_mode ?? (language === 'python' && !hasIoTests ? 'stateful' : 'fresh'),
    metadata: {
      settings: {
        ...(task.reward === undefined ? {} : { reward: task.reward }),
        ...(task.run_timeout_s === undefined ? {} : { runTimeoutS: task.run_timeout_s }),
        ...(task.memory_limit_mb === undefined ? {} : { memoryLimitMB: task.memory_limit_mb }),
        ...(task.max_observation_chars === undefined
          ? {}
          : { maxObservationChars: task.max_observation_chars }),
      },
      extra: task.metadata,
    },
  };
}
