import { describeIssues, parseJsonExact } from '@fusebox/input';
import { autoEvalRowSchema, fromAutoEvalRow, looksLikeAutoEvalRow } from './autoeval-row';
import { fromFuseboxTask, fuseboxTaskSchema } from './fusebox-task';
import {
  commonOjRowSchema,
  fromCommonOjRow,
  fromHumanEvalRow,
  fromMbppRow,
  humanEvalRowSchema,
  mbppRowSchema,
  sandboxFusionRowKind,
} from './sandboxfusion-rows';
import { fromSearchTask, looksLikeSearchTask, searchTaskSchema } from './search-task';
import { type TaskRecord, type TaskRecordInput, taskRecordSchema } from './task-record';

/**
 * Which shape a task file's lines have; `auto` decides per line (an AutoEval row has content, labels and test; a
 * search task a question and no tests).
 */
export const TASK_FORMATS = [
  'auto',
  'fusebox',
  'autoeval',
  'search',
  'humaneval',
  'mbpp',
  'common_oj',
] as const;
export type TaskFormat = (typeof TASK_FORMATS)[number];

export type ParsedTaskLine = { ok: true; task: TaskRecord } | { ok: false; problem: string };

/**
 * Parses one line of a task file into the task it stores, or says what is wrong with it. Tasks in Fusebox's
 * format are recorded with `source` (builtin for the shipped set, fusebox otherwise).
 */
export function parseTaskLine(
  line: string,
  { format, source }: { format: TaskFormat; source: 'builtin' | 'fusebox' },
): ParsedTaskLine {
  let value: unknown;
  try {
    value = parseJsonExact(line);
  } catch (error) {
    return { ok: false, problem: `not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'expected a JSON object' };
  }
  let record: TaskRecordInput;
  const shape = format === 'auto' ? sandboxFusionRowKind(value) : format;
  if (shape === 'humaneval') {
    const parsed = humanEvalRowSchema.safeParse(value);
    if (!parsed.success) return { ok: false, problem: `HumanEval row: ${describeIssues(parsed.error)}` };
    record = fromHumanEvalRow(parsed.data);
  } else if (shape === 'mbpp') {
    const parsed = mbppRowSchema.safeParse(value);
    if (!parsed.success) return { ok: false, problem: `MBPP row: ${describeIssues(parsed.error)}` };
    record = fromMbppRow(parsed.data);
  } else if (shape === 'common_oj') {
    const parsed = commonOjRowSchema.safeParse(value);
    if (!parsed.success) return { ok: false, problem: `CommonOJ row: ${describeIssues(parsed.error)}` };
    record = fromCommonOjRow(parsed.data);
  } else if (format === 'autoeval' || (format === 'auto' && looksLikeAutoEvalRow(value))) {
    const row = autoEvalRowSchema.safeParse(value);
    if (!row.success) return { ok: false, problem: `AutoEval row: ${describeIssues(row.error)}` };
    record = fromAutoEvalRow(row.data);
  } else if (format === 'search' || (format === 'auto' && looksLikeSearchTask(value))) {
    const task = searchTaskSchema.safeParse(value);
    if (!task.success) return { ok: false, problem: `search task: ${describeIssues(task.error)}` };
    record = fromSearchTask(task.data);
  } else {
    const task = fuseboxTaskSchema.safeParse(value);
    if (!task.success) return { ok: false, problem: describeIssues(task.error) };
    record = fromFuseboxTask(task.data, source);
  }
  const task = taskRecordSchema.safeParse(record);
  if (!task.success)
    return { ok: false, problem: `task ${JSON.stringify(record.name)}: ${describeIssues(task.error)}` };
  return { ok: true, task: task.data };
}
