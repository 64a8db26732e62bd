import { PassThrough } from 'node:stream';
import type { PrismaClient } from '@fusebox/db/client';
import { LOCAL_QUERY_PATH, LOCAL_TOKEN_HEADER, decodeValues, encodeValues } from '@fusebox/db/local-protocol';
import type { EmbeddedDatabase } from '@fusebox/db/embedded';
import type { SqlClient } from '@fusebox/db/sql-client';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { secretMatcher } from '../auth';
import { describeIssues } from '@fusebox/input';
import {
  CORPUS_IMPORT_PATH,
  type CorpusImportEvent,
  ROLLOUTS_IMPORT_PATH,
  type RolloutsImportEvent,
  TASKS_IMPORT_PATH,
  type TasksImportEvent,
  corpusImportRequestSchema,
  rolloutsImportRequestSchema,
  tasksImportRequestSchema,
} from '@fusebox/local-import';
import { importCorpus } from '@fusebox/retrieval';
import { importDump } from '@fusebox/rollouts';
import { importTasks } from '@fusebox/tasks';

/** Progress events are sent at most this often; problems, files and the end are sent at once. */
const PROGRESS_INTERVAL_MS = 100;

/** What a server that holds an embedded data directory lends to other processes of its machine. */
export interface LocalAccess {
  /** The secret of the data directory's server record. */
  token: string;
  sql: SqlClient;
  readOnlyQuery: EmbeddedDatabase['readOnlyQuery'];
}

/**
 * What other processes on this machine do through this server while it holds the embedded data directory, which
 * no other process can open: `fusebox tasks import`, `fusebox rollouts import` and the demo's corpus import run here, on files
 * of this machine, with its events streamed back as JSON lines; readers (`fusebox demo`'s statistics, tests) run
 * Prisma's queries read-only. Only a caller that read the secret from the data directory may ask (403
 * otherwise), so the routes show nothing their caller could not read itself.
 */
export function registerLocalRoutes(
  app: FastifyInstance,
  options: LocalAccess & { prisma: PrismaClient },
): void {
  const authorized = secretMatcher(options.token);
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/v1/local/')) return;
    const presented = request.headers[LOCAL_TOKEN_HEADER];
    if (authorized(typeof presented === 'string' ? presented : undefined)) return;
    return reply.code(403).send({
      detail: `local imports need the ${LOCAL_TOKEN_HEADER} header from the data directory's server.json`,
    });
  });

  app.post(LOCAL_QUERY_PATH, async (request, reply) => {
    // Parsed again with the values' own encoding (bytes), rather than Fastify's plain JSON.
    const query = JSON.parse(JSON.stringify(request.body), decodeValues) as Parameters<
      LocalAccess['readOnlyQuery']
    >[0];
    try {
      const result = await options.readOnlyQuery(query);
      return await reply.type('application/json').send(JSON.stringify(result, encodeValues));
    } catch (error) {
      return reply.code(400).send({ detail: error instanceof Error ? error.message : String(error) });
    }
  });

  app.post(TASKS_IMPORT_PATH, async (request, reply) => {
    const body = tasksImportRequestSchema.safeParse(request.body);
    if (!body.success) return reply.code(400).send({ detail: describeIssues(body.error) });
    return streamEvents<TasksImportEvent>(reply, async (emit) => {
      const summary = await importTasks(options.prisma, {
        ...body.data,
        onProblem: (problem) => emit({ type: 'problem', ...problem }),
        onProgress: (progress) => emit({ type: 'progress', ...progress }),
      });
      emit({ type: 'done', summary });
    });
  });

  app.post(CORPUS_IMPORT_PATH, async (request, reply) => {
    const body = corpusImportRequestSchema.safeParse(request.body);
    if (!body.success) return reply.code(400).send({ detail: describeIssues(body.error) });
    return streamEvents<CorpusImportEvent>(reply, async (emit) => {
      const summary = await importCorpus(options.sql, {
        ...body.data,
        onProblem: (problem) => emit({ type: 'problem', ...problem }),
        onProgress: (progress) => emit({ type: 'progress', ...progress }),
      });
      emit({ type: 'done', summary });
    });
  });

  app.post(ROLLOUTS_IMPORT_PATH, async (request, reply) => {
    const body = rolloutsImportRequestSchema.safeParse(request.body);
    if (!body.success) return reply.code(400).send({ detail: describeIssues(body.error) });
    return streamEvents<RolloutsImportEvent>(reply, async (emit) => {
      const summary = await importDump(options.sql, {
        ...body.data,
        onProblem: (problem) => emit({ type: 'problem', ...problem }),
        onProgress: (progress) => emit({ type: 'progress', ...progress }),
        onFile: (file, result) => emit({ type: 'file', file, result }),
      });
      emit({ type: 'done', summary });
    });
  });
}

/**
 * Answers a stream of JSON lines fed by `run`'s events, ending with its failure as an `error` event if it throws.
 * Progress is thinned out (the latest one is kept and sent before any other event).
 */
function streamEvents<Event extends { type: string }>(
  reply: FastifyReply,
  run: (emit: (event: Event) => void) => Promise<void>,
): FastifyReply {
  const stream = new PassThrough();
  const write = (event: Event | { type: 'error'; message: string; code?: string }) =>
    stream.write(`${JSON.stringify(event)}\n`);
  let pending: Event | undefined;
  let sentAt = 0;
  const flush = () => {
    if (pending) write(pending);
    pending = undefined;
  };
  const emit = (event: Event) => {
    if (event.type !== 'progress') {
      flush();
      write(event);
    } else if (performance.now() - sentAt >= PROGRESS_INTERVAL_MS) {
      pending = undefined;
      sentAt = performance.now();
      write(event);
    } else {
      pending = event;
    }
  };
  run(emit)
    .catch((error: unknown) => {
      flush();
      const code = (error as { code?: unknown }).code;
      write({
        type: 'error',
        message: error instanceof Error ? error.message : String(error),
        ...(typeof code === 'string' ? { code } : {}),
      });
    })
    .finally(() => stream.end());
  return reply.type('application/x-ndjson').send(stream);
}
