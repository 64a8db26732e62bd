import type { PrismaClient } from '@fusebox/db/client';
import type { Language } from '@fusebox/sandbox-client/protocol';
import { z } from 'zod';
import type { SessionMode } from './task-record';
import type { SearchSpec } from './search-task';
import { type TaskSettings, taskMetadataSchema } from './task-settings';
import { type TaskTest, taskTestsSchema } from './task-test';

/** What a session needs of its task: how to run actions and how to score them. */
export interface StoredTask {
  id: string;
  name: string;
  language: Language;
  sessionMode: SessionMode;
  setupFiles: Record<string, string>;
  tests: TaskTest[];
  failToPass: string[];
  passToPass: string[];
  settings: TaskSettings;
  /** Set for a search task: what its answer is scored against, and where it searches. */
  search: SearchSpec | undefined;
}

/** The select that reads a {@link StoredTask}; also used nested under a session. */
export const storedTaskSelect = {
  id: true,
  name: true,
  language: true,
  sessionMode: true,
  setupFiles: true,
  tests: true,
  failToPass: true,
  passToPass: true,
  metadata: true,
} as const;

type StoredTaskRow = { [K in keyof typeof storedTaskSelect]: unknown } & {
  id: string;
  name: string;
  language: string;
  sessionMode: string;
  failToPass: string[];
  passToPass: string[];
};

/** Parses a task row's JSON columns; rows were validated on import, so this only types them. */
export function storedTask(row: StoredTaskRow): StoredTask {
  return {
    id: row.id,
    name: row.name,
    language: row.language as Language,
    sessionMode: row.sessionMode as SessionMode,
    setupFiles: z.record(z.string(), z.string()).parse(row.setupFiles),
    tests: taskTestsSchema.parse(row.tests),
    failToPass: row.failToPass,
    passToPass: row.passToPass,
    ...settingsAndSearch(row.metadata),
  };
}

/** The task an instance_hash names, or undefined. */
export async function readTask(prisma: PrismaClient, id: string): Promise<StoredTask | undefined> {
  const row = await prisma.task.findUnique({ where: { id }, select: storedTaskSelect });
  return row ? storedTask(row) : undefined;
}

function settingsAndSearch(metadata: unknown): { settings: TaskSettings; search: SearchSpec | undefined } {
  const { settings, search } = taskMetadataSchema.parse(metadata);
  return { settings, search };
}
