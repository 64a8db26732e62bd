import { stat } from 'node:fs/promises';
import type { PrismaClient } from '@fusebox/db/client';
import { readLines } from '@fusebox/rollouts';
import { type TaskFormat, parseTaskLine } from './parse-task-line';
import type { TaskRecord } from './task-record';
import { upsertTasks } from './upsert-tasks';

/** Tasks written per transaction. */
const BATCH_SIZE = 200;

export interface TaskImportProblem {
  /** 1-based line number in the file. */
  line: number;
  problem: string;
}

export interface TaskImportProgress {
  bytesDone: number;
  bytesTotal: number;
  /** Tasks loaded so far. */
  loaded: number;
}

export interface TaskImportSummary {
  /** Lines that became tasks (new or updated). */
  loaded: number;
  /** Of those, tasks that were new. */
  created: number;
  /** Non-empty lines that were not loaded; each was reported through onProblem. */
  rejected: number;
}

export interface TaskImportOptions {
  path: string;
  format?: TaskFormat;
  /** What tasks in Fusebox's format are recorded as; `builtin` for the shipped set. */
  source?: 'builtin' | 'fusebox';
  onProblem?(problem: TaskImportProblem): void;
  onProgress?(progress: TaskImportProgress): void;
}

/**
 * Loads a JSONL file of tasks, in Fusebox's format or as AutoEval rows, creating or updating each by its
 * instance_hash. A bad line is reported through `onProblem` with its line number and skipped; it never stops
 * the import. A line that repeats an earlier line's instance_hash is rejected, naming both lines.
 */
export async function importTasks(
  prisma: PrismaClient,
  options: TaskImportOptions,
): Promise<TaskImportSummary> {
  const { size } = await stat(options.path);
  const summary: TaskImportSummary = { loaded: 0, created: 0, rejected: 0 };
  const firstLineOf = new Map<string, number>();
  let batch: TaskRecord[] = [];
  let bytesDone = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    summary.created += await upsertTasks(prisma, batch);
    summary.loaded += batch.length;
    batch = [];
    options.onProgress?.({ bytesDone, bytesTotal: size, loaded: summary.loaded });
  };
  const reject = (line: number, problem: string) => {
    summary.rejected += 1;
    options.onProblem?.({ line, problem });
  };

  let number = 0;
  for await (const line of readLines(options.path, 0)) {
    number += 1;
    bytesDone = line.end;
    if (line.text.trim() === '') continue;
    const parsed = parseTaskLine(line.text, {
      format: options.format ?? 'auto',
      source: options.source ?? 'fusebox',
    });
    if (!parsed.ok) {
      reject(number, parsed.problem);
      continue;
    }
    const earlier = firstLineOf.get(parsed.task.id);
    if (earlier !== undefined) {
      reject(number, `instance_hash ${parsed.task.id} is already defined on line ${earlier}`);
      continue;
    }
    firstLineOf.set(parsed.task.id, number);
    batch.push(parsed.task);
    if (batch.length >= BATCH_SIZE) await flush();
  }
  await flush();
  return summary;
}
