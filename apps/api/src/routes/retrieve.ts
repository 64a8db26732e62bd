import type { PrismaClient } from '@fusebox/db/client';
import {
  DATABASE_RETRY_AFTER_S,
  databaseOutageDetail,
  isDatabaseUnavailable,
} from '@fusebox/db/database-unavailable';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Limiter, LimiterTimeoutError, isLimiterError } from '@fusebox/rate-limiter';
import {
  CorpusChoiceError,
  type CorpusRef,
  type CorpusSearch,
  type CorpusSearcher,
  UnknownCorpusError,
  isRetrievalError,
} from '@fusebox/retrieval';
import { z } from 'zod';
import { type Env, jsonLimits } from '../env';
import { jsonLimitProblem } from '../input/json-scan';
import { RetrieveCallRecorder } from '../retrieve-call-recorder';

/** How long a client refused for want of a permit should wait. */
const RETRY_AFTER_S = 2;

/** Search-R1's `topk` when a request leaves it out (its retrieval server's `--topk` default). */
const DEFAULT_TOPK = 3;

/** The request of Search-R1's retrieval server, as verl's SearchTool sends it, bounded by the settings. */
export function retrieveRequestSchema(env: Env) {
  return z.object({
    queries: z
      .array(
        z
          .string({ error: 'expected a string' })
          .max(env.FUSEBOX_RETRIEVE_MAX_QUERY_CHARS, {
            error: `a query may have at most ${env.FUSEBOX_RETRIEVE_MAX_QUERY_CHARS} characters (FUSEBOX_RETRIEVE_MAX_QUERY_CHARS)`,
          })
          .refine((query) => query.trim() !== '', { error: 'the query is empty' }),
        { error: 'expected a list of query strings' },
      )
      .min(1, { error: 'expected at least one query' })
      .max(env.FUSEBOX_RETRIEVE_MAX_QUERIES, {
        error: `at most ${env.FUSEBOX_RETRIEVE_MAX_QUERIES} queries per request (FUSEBOX_RETRIEVE_MAX_QUERIES)`,
      }),
    topk: z
      .number({ error: 'expected a whole number' })
      .int({ error: 'expected a whole number' })
      .min(1, { error: 'topk must be at least 1' })
      .max(env.FUSEBOX_RETRIEVE_MAX_TOPK, {
        error: `topk may be at most ${env.FUSEBOX_RETRIEVE_MAX_TOPK} (FUSEBOX_RETRIEVE_MAX_TOPK)`,
      })
      .nullish()
      .transform((topk) => topk ?? DEFAULT_TOPK),
    return_scores: z.boolean({ error: 'expected true or false' }).nullish().transform(Boolean),
  });
}

const documentSchema = z.object({ id: z.string(), contents: z.string() });

/** The answer: per query, its passages best first, with scores (`return_scores`) or without. */
export const retrieveResponseSchema = z.object({
  result: z.array(
    z.array(z.union([z.object({ document: documentSchema, score: z.number() }), documentSchema])),
  ),
});

/** What a refusal answers. */
export const retrieveErrorSchema = z.object({
  detail: z.string(),
  code: z.string(),
  field: z.string().optional(),
});

/** A request refused with a status and a message naming what is wrong. */
class RetrieveRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** A JSON body refused unparsed (too deep, or too many values), kept so that the refusal is recorded. */
class UnparsedBody {
  constructor(readonly problem: string) {}
}

/**
 * Search-R1's retrieval server, so verl's SearchTool (`retrieval_service_url: http://<fusebox>/retrieve`) and
 * Search-R1's rollout work unchanged: POST `{queries, topk, return_scores}` answers
 * `{"result": [[{"document": {"id", "contents"}, "score"}]]}`, or the documents alone without scores. The
 * corpus is the path's (`/retrieve/NAME`), else FUSEBOX_RETRIEVE_CORPUS, else the only one imported. Searches run
 * under their own limiter key; every call, answered or refused, is recorded in `retrieval_call`, committed just
 * after its answer (RetrieveCallRecorder; FUSEBOX_RETRIEVE_RECORD_BUFFER 0 commits before). Refusals answer
 * `{detail, code[, field]}`: 422 for a body out of bounds, 404 for an unknown corpus, 400 when no corpus is
 * chosen, 429 (Retry-After) when no permit comes in FUSEBOX_LIMITER_TIMEOUT_S, 503 (Retry-After) when the
 * database does not answer.
 */
export async function registerRetrieveRoutes(
  app: FastifyInstance,
  options: { env: Env; prisma: PrismaClient; searcher: CorpusSearcher; limiter: Limiter },
): Promise<void> {
  const { env, prisma, searcher, limiter } = options;
  const recorder = new RetrieveCallRecorder(prisma, {
    buffer: env.FUSEBOX_RETRIEVE_RECORD_BUFFER,
    onLost: (error) => app.log.error({ err: error }, 'retrieve: a call answered could not be recorded'),
  });
  // The records answered but not yet committed are written before the server lets the database go.
  app.addHook('onClose', () => recorder.settled());
  const schema = retrieveRequestSchema(env);
  /** The corpus a request asks for: its path's, else the configured one (undefined: the only one imported). */
  const askedCorpus = (request: FastifyRequest<{ Params: { corpus?: string } }>) =>
    request.params.corpus ?? env.FUSEBOX_RETRIEVE_CORPUS;

  await app.register((scope, _options, done) => {
    scope.setErrorHandler(
      async (error: FastifyError, request: FastifyRequest<{ Params: { corpus?: string } }>, reply) => {
        // Fastify's own refusals come before the route, which records its own: recorded here, answered regardless.
        const status = error instanceof RetrieveRefusal ? undefined : clientErrorStatus(error);
        if (status !== undefined) {
          await recorder
            .record({
              corpusName: askedCorpus(request) ?? '',
              corpusId: undefined,
              body: undefined,
              search: undefined,
              refusal: { status, message: error.message },
              durationMs: 0,
            })
            .catch((recordError: unknown) =>
              request.log.error({ err: recordError }, 'retrieve: could not record a refused call'),
            );
        }
        return answerError(error, request, reply);
      },
    );
    // Fastify's own JSON parser, once the body's text is known to be safe to parse.
    const parseJson = scope.getDefaultJsonParser('error', 'error');
    scope.removeContentTypeParser('application/json');
    // The route's own bounds (queries, their length) allow more than Fastify's default 1 MiB.
    const bodyLimit = env.FUSEBOX_MAX_BODY_BYTES;
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'string', bodyLimit },
      (request, body, done) => {
        const problem = jsonLimitProblem(body as string, jsonLimits(env));
        if (problem) return done(null, new UnparsedBody(problem));
        // It answers through `done` (its type also allows a promise, which it never returns).
        void parseJson(request, body as string, done);
      },
    );

    const retrieve = async (
      request: FastifyRequest<{ Params: { corpus?: string } }>,
      reply: FastifyReply,
    ) => {
      const startedAt = performance.now();
      const corpusName = askedCorpus(request);
      let body: z.output<typeof schema> | undefined;
      let corpus: CorpusRef | undefined;
      let search: CorpusSearch | undefined;
      let refusal: RetrieveRefusal | undefined;
      try {
        body = parseBody(schema, request.body);
        const { queries, topk } = body;
        // Outside the permit: a request for a corpus that does not exist never waits in the queue.
        const resolved = (corpus = await searcher.resolveCorpus(corpusName));
        search = await searchUnderPermit(limiter, () => searcher.search({ corpus: resolved, queries, topk }));
      } catch (error) {
        refusal = asRefusal(error);
      }
      await recorder.record({
        corpusName: corpus?.name ?? corpusName ?? '',
        corpusId: corpus?.id,
        body,
        search,
        refusal,
        durationMs: performance.now() - startedAt,
      });
      if (refusal) throw refusal;
      const returnScores = body!.return_scores;
      return reply.send({
        result: search!.results.map((documents) =>
          documents.map(({ id, contents, score }) =>
            returnScores ? { document: { id, contents }, score } : { id, contents },
          ),
        ),
      });
    };
    scope.post('/retrieve', retrieve);
    scope.post('/retrieve/:corpus', retrieve);
    done();
  });
}

/**
 * `limiter.withPermit`, except that the permit's release is not waited for: on Postgres it is a round trip, and
 * the answer need not wait for it (the slot is free a moment after the answer instead of before).
 */
async function searchUnderPermit<T>(limiter: Limiter, search: () => Promise<T>): Promise<T> {
  const permit = await limiter.acquire();
  try {
    const result = await search();
    permit.signal.throwIfAborted();
    return result;
  } catch (error) {
    // A search that failed under a lost permit most likely failed because of the loss: report that.
    permit.signal.throwIfAborted();
    throw error;
  } finally {
    // release() never rejects.
    void permit.release();
  }
}

function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body instanceof UnparsedBody) throw new RetrieveRefusal(422, 'FUSEBOX_RETRIEVE_INVALID', body.problem);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RetrieveRefusal(
      422,
      'FUSEBOX_RETRIEVE_INVALID',
      'expected a JSON object {queries, topk, return_scores}',
    );
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  throw new RetrieveRefusal(422, 'FUSEBOX_RETRIEVE_INVALID', `${field}: ${issue.message}`, field);
}

/** What a failed search answers: the refusals this route knows; anything else stays an error (500, logged). */
function asRefusal(error: unknown): RetrieveRefusal {
  if (error instanceof RetrieveRefusal) return error;
  if (error instanceof UnknownCorpusError) return new RetrieveRefusal(404, error.code, error.message);
  if (error instanceof CorpusChoiceError) return new RetrieveRefusal(400, error.code, error.message);
  if (isRetrievalError(error)) return new RetrieveRefusal(400, error.code, error.message);
  if (error instanceof LimiterTimeoutError)
    return new RetrieveRefusal(429, error.code, `no search permit came in time: ${error.message}`);
  if (isLimiterError(error)) return new RetrieveRefusal(503, error.code, error.message);
  throw error;
}

/** Fastify's own refusals: a body that is not JSON (400), too large (413), of another content type (415). */
function clientErrorStatus(error: FastifyError): number | undefined {
  const status = error.statusCode;
  return status !== undefined && status >= 400 && status < 500 ? status : undefined;
}

function answerError(error: FastifyError | RetrieveRefusal, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof RetrieveRefusal) {
    if (error.status === 429) void reply.header('retry-after', String(RETRY_AFTER_S));
    return reply.code(error.status).send({
      detail: error.message,
      code: error.code,
      ...(error.field !== undefined ? { field: error.field } : {}),
    });
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error, url: request.url }, 'retrieve: database unavailable');
    return reply
      .code(503)
      .header('retry-after', String(DATABASE_RETRY_AFTER_S))
      .send({ detail: databaseOutageDetail(error), code: 'FUSEBOX_DATABASE_UNAVAILABLE' });
  }
  const status = clientErrorStatus(error) ?? 500;
  if (status === 500) request.log.error({ err: error, url: request.url }, 'retrieve failed');
  return reply.code(status).send({
    detail: status === 500 ? 'Internal Server Error' : error.message,
    code: status === 500 ? 'FUSEBOX_INTERNAL' : (error.code ?? 'FUSEBOX_RETRIEVE_INVALID'),
  });
}
