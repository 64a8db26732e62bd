import { z } from 'zod';
import { STEMMERS } from '@fusebox/retrieval';
import { TASK_FORMATS } from '@fusebox/tasks';

// The local import routes (`/v1/local/import/*`, routes/local-import.ts) and the CLI that calls them
// (server-importer.ts) share these shapes. A route answers a stream of JSON lines, one event per line, so the
// command prints the same progress, problems and summary as it would importing by itself.

export const TASKS_IMPORT_PATH = '/v1/local/import/tasks';
export const ROLLOUTS_IMPORT_PATH = '/v1/local/import/rollouts';
export const CORPUS_IMPORT_PATH = '/v1/local/import/corpus';

/** Paths are the server's, so the CLI sends absolute ones (they are the same machine). */
const absolutePath = z.string().startsWith('/', 'expected an absolute path');

export const tasksImportRequestSchema = z.object({
  path: absolutePath,
  format: z.enum(TASK_FORMATS),
});

export const corpusImportRequestSchema = z.object({
  path: absolutePath,
  name: z.string().min(1).optional(),
  stemmer: z.enum(STEMMERS).optional(),
});

export const rolloutsImportRequestSchema = z.object({
  dir: absolutePath,
  name: z.string().min(1).optional(),
  quietMs: z.int().nonnegative().optional(),
});

/** Why an import stopped: its message, and a code when it had one (ENOENT, FUSEBOX_ROLLOUT_IMPORT, …). */
const failed = z.object({ type: z.literal('error'), message: z.string(), code: z.string().optional() });

const bytes = { bytesDone: z.number(), bytesTotal: z.number() };

export const tasksImportEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), ...bytes, loaded: z.number() }),
  z.object({ type: z.literal('problem'), line: z.number(), problem: z.string() }),
  z.object({
    type: z.literal('done'),
    summary: z.object({ loaded: z.number(), created: z.number(), rejected: z.number() }),
  }),
  failed,
]);

const fileResult = z.object({ added: z.number(), rejected: z.number(), note: z.string().optional() });

export const rolloutsImportEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), ...bytes, samples: z.number() }),
  z.object({ type: z.literal('problem'), file: z.string(), line: z.number(), problem: z.string() }),
  z.object({
    type: z.literal('file'),
    file: z.object({
      name: z.string(),
      step: z.number(),
      path: z.string(),
      size: z.number(),
      modifiedAt: z.number(),
    }),
    result: fileResult,
  }),
  z.object({
    type: z.literal('done'),
    summary: z.object({
      run: z.object({ id: z.string(), name: z.string() }),
      files: z.number(),
      added: z.number(),
      rejected: z.number(),
      skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
    }),
  }),
  failed,
]);

export const corpusImportEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), ...bytes, documents: z.number() }),
  z.object({ type: z.literal('problem'), line: z.number(), problem: z.string() }),
  z.object({
    type: z.literal('done'),
    summary: z.object({
      corpus: z.object({ id: z.string(), name: z.string(), stemmer: z.enum(STEMMERS) }),
      added: z.number(),
      rejected: z.number(),
      documents: z.number(),
    }),
  }),
  failed,
]);

export type TasksImportEvent = z.infer<typeof tasksImportEventSchema>;
export type CorpusImportEvent = z.infer<typeof corpusImportEventSchema>;
export type RolloutsImportEvent = z.infer<typeof rolloutsImportEventSchema>;
