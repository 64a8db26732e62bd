import { z } from 'zod';
import { canonicalInstanceHash, deriveInstanceHash } from './instance-hash';
import { languageOfTag } from './language-tags';
import type { TaskRecordInput } from './task-record';

// Rows of SandboxFusion's HumanEval, MBPP and CommonOJ dataset tables (as its datasets store them, read from its
// sandbox/datasets/), each mapped to a task whose tests judge a completion the way SandboxFusion's /submit does.
// The dataset is the task's `source`, so `/submit {dataset: "mbpp", id: 11}` finds it.

const idSchema = z.union([z.string().min(1), z.number()]);
/** A JSON column SandboxFusion may hold as text. */
const jsonText = <T extends z.ZodType>(schema: T) =>
  z.union([
    schema,
    z.string().transform((text, context) => {
      try {
        return schema.parse(JSON.parse(text));
      } catch {
        context.addIssue({ code: 'custom', message: 'expected JSON text of the documented shape' });
        return z.NEVER;
      }
    }),
  ]);

/**
 * HumanEval (OpenAI's, as SandboxFusion's humaneval_python table holds it): the function's signature and
 * docstring in `prompt`, a `check(candidate)` function in `test`. `/submit` joins a completion to the prompt as
 * SandboxFusion does; an agent session's action must define the whole function.
 */
export const humanEvalRowSchema = z.object({
  task_id: idSchema,
  prompt: z.string(),
  test: z.string(),
  entry_point: z.string().regex(/^[A-Za-z_]\w*$/, 'expected a Python identifier'),
  canonical_solution: z.string().optional(),
});

/** MBPP, in SandboxFusion's table shape: the problem in `content`, assert lines in `test_list`. */
export const mbppRowSchema = z.object({
  id: idSchema,
  content: z.string(),
  test_list: jsonText(z.array(z.string()).min(1)),
  labels: jsonText(z.record(z.string(), z.json())).default(() => ({})),
});

/** CommonOJ (code_contests and the like): stdin/stdout cases in `test`, the language in `labels`. */
export const commonOjRowSchema = z.object({
  id: idSchema,
  content: z.string(),
  labels: jsonText(z.record(z.string(), z.json())).default(() => ({})),
  test: jsonText(
    z
      .array(z.object({ input: z.object({ stdin: z.string() }), output: z.object({ stdout: z.string() }) }))
      .min(1),
  ),
});

export type HumanEvalRow = z.output<typeof humanEvalRowSchema>;
export type MbppRow = z.output<typeof mbppRowSchema>;
export type CommonOjRow = z.output<typeof commonOjRowSchema>;

const has = (value: unknown, ...keys: string[]) =>
  typeof value === 'object' && value !== null && keys.every((key) => key in value);

/** Which of the three shapes a parsed line has, if any. */
export function sandboxFusionRowKind(value: unknown): 'humaneval' | 'mbpp' | 'common_oj' | undefined {
  if (has(value, 'task_id', 'prompt', 'test', 'entry_point')) return 'humaneval';
  if (has(value, 'content', 'test_list')) return 'mbpp';
  if (has(value, 'content', 'test') && Array.isArray(parsedTest(value))) return 'common_oj';
  return undefined;
}

function parsedTest(value: unknown): unknown {
  const test = (value as { test: unknown }).test;
  if (typeof test !== 'string') return test;
  try {
    return JSON.parse(test) as unknown;
  } catch {
    return undefined;
  }
}

const taskId = (id: string | number) => canonicalInstanceHash(id) ?? deriveInstanceHash(String(id));

export function fromHumanEvalRow(row: HumanEvalRow): TaskRecordInput {
  const name = String(row.task_id);
  return {
    id: taskId(row.task_id),
    name,
    source: 'humaneval',
    prompt: row.prompt,
    language: 'python',
    setupFiles: {},
    tests: [{ name: 'check', kind: 'assert', code: `${row.test}\n\ncheck(${row.entry_point})\n` }],
    failToPass: ['check'],
    passToPass: [],
    sessionMode: 'stateful',
    metadata: {
      extra: {
        labels: { task_id: row.task_id, entry_point: row.entry_point, test: row.test },
        ...(row.canonical_solution === undefined ? {} : { canonical_solution: row.canonical_solution }),
      },
    },
  };
}

/** SandboxFusion's MBPP prompt (zero-shot) and its rule: the setup code, the solution, then every assert. */
export function fromMbppRow(row: MbppRow): TaskRecordInput {
  const setup = typeof row.labels.test_setup_code === 'string' ? row.labels.test_setup_code : '';
  return {
    id: taskId(row.id),
    name: String(row.id),
    source: 'mbpp',
    prompt: `You are an expert Python programmer, and here is your task: ${row.content} Your code should pass these tests:\n\n${row.test_list.join('\n')}`,
    language: 'python',
    setupFiles: {},
    tests: [{ name: 'test_list', kind: 'assert', code: `${setup}\n${row.test_list.join('\n')}\n` }],
    failToPass: ['test_list'],
    passToPass: [],
    sessionMode: 'stateful',
    metadata: { extra: { labels: row.labels } },
  };
}

/** One io test per case; the language is the row's `labels.programming_language` (python when absent). */
export function fromCommonOjRow(row: CommonOjRow): TaskRecordInput {
  const label = row.labels.programming_language;
  const language = typeof label === 'string' ? (languageOfTag(label) ?? label) : 'python';
  const names = row.test.map((_, index) => `case_${index + 1}`);
  return {
    id: taskId(row.id),
    name: String(row.id),
    source: 'common_oj',
    prompt: row.content,
    language: language as TaskRecordInput['language'],
    setupFiles: {},
    tests: row.test.map((test, index) => ({
      name: names[index] as string,
      kind: 'io',
      stdin: test.input.stdin,
      expectedStdout: test.output.stdout,
    })),
    failToPass: names,
    passToPass: [],
    sessionMode: 'fresh',
    metadata: { extra: { labels: row.labels } },
  };
}
