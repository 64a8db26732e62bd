import { resolve } from 'node:path';
import { createHeldPrismaClient } from '@fusebox/db/held-database';
import { LOCAL_TOKEN_HEADER } from '@fusebox/db/local-protocol';
import type { ServerRecord } from '@fusebox/db/server-record';
import type { z } from 'zod';
import type { CorpusImportSummary, ImportCorpusOptions } from '@fusebox/retrieval';
import { type ImportDumpOptions, type ImportSummary, RolloutImportError } from '@fusebox/rollouts';
import type { TaskImportOptions, TaskImportSummary } from '@fusebox/tasks';
import type { Importer } from './importer';
import {
  CORPUS_IMPORT_PATH,
  ROLLOUTS_IMPORT_PATH,
  TASKS_IMPORT_PATH,
  corpusImportEventSchema,
  rolloutsImportEventSchema,
  tasksImportEventSchema,
} from './import-protocol';
import { ServerImportError } from './server-import-error';

/**
 * Imports (and reads) through the `fusebox serve` that holds the embedded data directory, with the secret from
 * its server record (and the API token, when the server requires one). The server reads the files, so paths are sent
 * absolute. Its failures come back as the errors a direct import throws (RolloutImportError, ENOENT), so the
 * commands report them the same way.
 */
export function serverImporter(
  dataDir: string,
  server: ServerRecord,
  apiToken: string | undefined,
): Importer {
  const reader = createHeldPrismaClient(dataDir, apiToken ? { apiToken } : {});
  const post = async <Event extends { type: string }>(
    path: string,
    body: unknown,
    schema: z.ZodType<Event>,
    onEvent: (event: Event) => void,
  ): Promise<void> => {
    let response: Response;
    try {
      response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [LOCAL_TOKEN_HEADER]: server.token,
          ...(apiToken ? { authorization: `Bearer ${apiToken}` } : {}),
        },
        body: JSON.stringify(body),
      });
    } catch (error) {
      throw new ServerImportError(
        `the Fusebox server (pid ${server.pid}) at ${server.url} holds the data directory but does not answer ` +
          `(${(error as Error).message}); stop it, or wait until it is up`,
        { cause: error },
      );
    }
    if (!response.ok || !response.body) {
      const detail = await response.text();
      throw new ServerImportError(
        `the Fusebox server at ${server.url} refused the import (HTTP ${response.status}): ${detail}`,
      );
    }
    let buffered = '';
    const decoder = new TextDecoder();
    let ended = false;
    const handle = (line: string) => {
      if (line.trim() === '') return;
      const event = schema.parse(JSON.parse(line));
      if (event.type === 'done') ended = true;
      if (event.type === 'error') {
        const failure = event as unknown as { message: string; code?: string };
        throw failure.code === 'FUSEBOX_ROLLOUT_IMPORT'
          ? new RolloutImportError(failure.message)
          : Object.assign(new Error(failure.message), { code: failure.code });
      }
      onEvent(event);
    };
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) handle(line);
    }
    handle(buffered);
    if (!ended) {
      throw new ServerImportError(
        `the Fusebox server at ${server.url} stopped answering in the middle of the import; what it finished is ` +
          'kept, and importing again resumes from there',
      );
    }
  };

  return {
    async importTasks(options: TaskImportOptions): Promise<TaskImportSummary> {
      let summary: TaskImportSummary | undefined;
      await post(
        TASKS_IMPORT_PATH,
        { path: resolve(options.path), format: options.format ?? 'auto' },
        tasksImportEventSchema,
        (event) => {
          if (event.type === 'progress') options.onProgress?.(event);
          else if (event.type === 'problem') options.onProblem?.(event);
          else if (event.type === 'done') summary = event.summary;
        },
      );
      return summary!;
    },
    async importDump(options: ImportDumpOptions): Promise<ImportSummary> {
      let summary: ImportSummary | undefined;
      await post(
        ROLLOUTS_IMPORT_PATH,
        {
          dir: resolve(options.dir),
          ...(options.name ? { name: options.name } : {}),
          ...(options.quietMs === undefined ? {} : { quietMs: options.quietMs }),
        },
        rolloutsImportEventSchema,
        (event) => {
          if (event.type === 'progress') options.onProgress?.(event);
          else if (event.type === 'problem') options.onProblem?.(event);
          else if (event.type === 'file') options.onFile?.(event.file, event.result);
          else if (event.type === 'done') summary = event.summary;
        },
      );
      return summary!;
    },
    async importCorpus(options: ImportCorpusOptions): Promise<CorpusImportSummary> {
      let summary: CorpusImportSummary | undefined;
      await post(
        CORPUS_IMPORT_PATH,
        {
          path: resolve(options.path),
          ...(options.name ? { name: options.name } : {}),
          ...(options.stemmer ? { stemmer: options.stemmer } : {}),
        },
        corpusImportEventSchema,
        (event) => {
          if (event.type === 'progress') options.onProgress?.(event);
          else if (event.type === 'problem') options.onProblem?.(event);
          else if (event.type === 'done') summary = event.summary;
        },
      );
      return summary!;
    },
    reader,
    close: () => reader.$disconnect(),
  };
}
