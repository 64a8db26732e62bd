import { languageSchema } from '@fusebox/sandbox-client/protocol';
import { z } from 'zod';
import { taskTestsSchema } from './task-test';
import { taskMetadataSchema } from './task-settings';

/**
 * Where a task came from: the set shipped with Fusebox, Fusebox's own format, or one of SandboxFusion's dataset
 * shapes (AutoEval, HumanEval, MBPP, CommonOJ rows). It is the task's dataset in the dataset API.
 */
export const TASK_SOURCES = ['builtin', 'fusebox', 'autoeval', 'humaneval', 'mbpp', 'common_oj'] as const;
export type TaskSource = (typeof TASK_SOURCES)[number];

/**
 * `stateful`: one Python interpreter per session, state kept between actions. `fresh`: every action runs as a
 * new program in a new sandbox.
 */
export const SESSION_MODES = ['stateful', 'fresh'] as const;
export type SessionMode = (typeof SESSION_MODES)[number];

/**
 * A task as it is stored, whatever format it was imported from: the `task` row's columns. The checks here are
 * the ones a reward depends on, so a task that passes them can always be scored.
 */
export const taskRecordSchema = z
  .object({
    id: z.string().regex(/^-?\d{1,19}$/, 'expected an int64 in decimal'),
    name: z.string().min(1),
    source: z.enum(TASK_SOURCES),
    prompt: z.string(),
    /** `search` for a search task, which runs no code. */
    language: z.enum([...languageSchema.options, 'search']),
    setupFiles: z.record(z.string(), z.string()),
    tests: taskTestsSchema,
    failToPass: z.array(z.string()),
    passToPass: z.array(z.string()),
    sessionMode: z.enum(SESSION_MODES),
    metadata: taskMetadataSchema,
  })
  .superRefine((task, context) => {
    const problem = (path: (string | number)[], message: string) =>
      context.addIssue({ code: 'custom', path, message });
    if (task.language === 'search') {
      // Scored on its answer, not by tests.
      if (!task.metadata.search) problem(['metadata', 'search'], 'a search task needs its golden answers');
      return;
    }
    if (task.tests.length === 0) problem(['tests'], 'a task needs at least one test');
    const names = new Set<string>();
    task.tests.forEach((test, index) => {
      if (names.has(test.name))
        problem(['tests', index, 'name'], `duplicate test name ${JSON.stringify(test.name)}`);
      names.add(test.name);
      if (task.sessionMode === 'stateful' && test.kind === 'io') {
        problem(
          ['tests', index],
          'stdin/stdout tests need session_mode "fresh" (a stateful session has no program to feed)',
        );
      }
    });
    if (task.failToPass.length === 0)
      problem(['fail_to_pass'], 'a task needs at least one fail-to-pass test');
    for (const [field, list] of [
      ['fail_to_pass', task.failToPass],
      ['pass_to_pass', task.passToPass],
    ] as const) {
      list.forEach((name, index) => {
        if (!names.has(name)) problem([field, index], `no test is named ${JSON.stringify(name)}`);
      });
    }
    for (const name of task.passToPass) {
      if (task.failToPass.includes(name))
        problem(['pass_to_pass'], `${JSON.stringify(name)} is also fail-to-pass`);
    }
    task.tests.forEach((test, index) => {
      if (!task.failToPass.includes(test.name) && !task.passToPass.includes(test.name)) {
        problem(
          ['tests', index, 'name'],
          `${JSON.stringify(test.name)} is in neither fail_to_pass nor pass_to_pass`,
        );
      }
    });
    if (task.sessionMode === 'stateful' && task.language !== 'python') {
      problem(
        ['session_mode'],
        'stateful sessions run a Python interpreter; use "fresh" for other languages',
      );
    }
  });

export type TaskRecord = z.output<typeof taskRecordSchema>;
export type TaskRecordInput = z.input<typeof taskRecordSchema>;
