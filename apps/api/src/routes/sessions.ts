import type { PrismaClient } from '@fusebox/db/client';
import type { Limiter } from '@fusebox/rate-limiter';
import type { CorpusSearcher } from '@fusebox/retrieval';
import { corpusSessionSearch } from '../corpus-session-search';
import type { Executor } from '@fusebox/local-sandbox/executor';
import {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  errorCodes,
} from 'fastify';
import {
  ExecutorClosedError,
  QueueFullError,
  SandboxFailureError,
  isLocalSandboxError,
} from '@fusebox/local-sandbox/errors';
import { LimiterClosedError, LimiterTimeoutError, LimiterUnavailableError } from '@fusebox/rate-limiter';
import type { z } from 'zod';
import {
  DATABASE_RETRY_AFTER_S,
  databaseOutageDetail,
  isDatabaseUnavailable,
} from '@fusebox/db/database-unavailable';
import { type Env, jsonLimits } from '../env';
import type { ExecutionGate } from '../execution-gate';
import { gatedSessionSandbox } from '../gated-session-sandbox';
import { SANDBOX_FAILURE_RETRY_AFTER_S } from './sandbox-http';
import { describeBodyTooLarge } from './sandbox-limits';
import { inputIssues, parseJsonExact } from '@fusebox/input';
import { describeUnsupportedMediaType, isJsonContentType } from '../input/json-content-type';
import { jsonLimitProblem } from '../input/json-scan';
import {
  AgentSessions,
  InvalidRequestError,
  SessionsFullError,
  isSessionApiError,
  processActionRequestSchema,
  sidRequestSchema,
  sidSchema,
  startInstanceRequestSchema,
} from '@fusebox/agent-sessions';

/** How long a client refused for want of a global permit should wait. */
const LIMITER_RETRY_AFTER_S = 5;

/** A body that is not JSON, kept as such so the route can answer 400 naming it. */
class UnparsableBody {
  constructor(readonly message: string) {}
}

/**
 * verl's swedev session API (seed 003), answered by {@link AgentSessions}: POST /start_instance,
 * /process_action, /postprocess and /compute_reward with JSON bodies. Integers in bodies are read exactly, since
 * verl sends int64 sids as JSON numbers. Errors answer JSON `{detail, code[, field]}` with 400, 404, 409, 413, 415,
 * 429, 503 or 500 (whose cause is logged, never answered), are logged with the sid, and are recorded against the session: verl's client hides them.
 */
export async function registerAgentSessionRoutes(
  app: FastifyInstance,
  options: {
    env: Env;
    prisma: PrismaClient;
    executor: Executor;
    gate: ExecutionGate;
    searcher: CorpusSearcher;
    searchLimiter: Limiter;
  },
): Promise<void> {
  const { env } = options;
  const sessions = new AgentSessions(
    options.prisma,
    gatedSessionSandbox(options.executor, options.gate),
    {
      maxSessions: env.FUSEBOX_AGENT_SESSION_MAX,
      idleTimeoutMs: env.FUSEBOX_AGENT_SESSION_IDLE_TIMEOUT_S * 1000,
      maxObservationChars: env.FUSEBOX_AGENT_OBSERVATION_MAX_CHARS,
      maxActions: env.FUSEBOX_SESSION_MAX_ACTIONS,
      maxCodeBytes: env.FUSEBOX_SESSION_MAX_CODE_BYTES,
      onExpiryError: (error) => app.log.error({ err: error }, 'could not expire idle agent sessions'),
    },
    corpusSessionSearch(options.searcher, options.searchLimiter, env.FUSEBOX_RETRIEVE_MAX_QUERY_CHARS),
  );
  app.addHook('onClose', () => sessions.close());
  await app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: env.FUSEBOX_MAX_BODY_BYTES },
      (request, body, parsed) => {
        if (body === '') return parsed(null, undefined);
        // Only JSON: a body of another content type is answered 415 (a web page could send it cross-site).
        if (!isJsonContentType(request.headers['content-type']))
          return parsed(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
        const problem = jsonLimitProblem(body as string, jsonLimits(env));
        if (problem) return parsed(null, new UnparsableBody(problem));
        try {
          parsed(null, parseJsonExact(body as string));
        } catch (error) {
          parsed(null, new UnparsableBody((error as Error).message));
        }
      },
    );
    scope.setErrorHandler((error: FastifyError, request, reply) =>
      answerError(scope, sessions, error, request, reply, env),
    );

    scope.post('/start_instance', async (request) => {
      const body = parse(startInstanceRequestSchema, request.body);
      return sessions.start(body.instance_hash);
    });
    scope.post('/process_action', async (request) => {
      const body = parse(processActionRequestSchema, request.body);
      return sessions.act(body.sid, body.content);
    });
    scope.post('/postprocess', async (request) => {
      const body = parse(sidRequestSchema, request.body);
      return sessions.postprocess(body.sid);
    });
    scope.post('/compute_reward', async (request) => {
      const body = parse(sidRequestSchema, request.body);
      return sessions.computeReward(body.sid);
    });
    done();
  });
}

/** Validates a body; throws InvalidRequestError naming the first field at fault. */
function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body instanceof UnparsableBody)
    throw new InvalidRequestError('', `the body is not JSON: ${body.message}`);
  if (body === undefined) throw new InvalidRequestError('', 'expected a JSON object body');
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const [first] = inputIssues(parsed.error);
  throw new InvalidRequestError(first?.field ?? '', first?.message ?? 'invalid body');
}

async function answerError(
  scope: FastifyInstance,
  sessions: AgentSessions,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  env: Env,
): Promise<FastifyReply> {
  const route = request.routeOptions.url ?? request.url;
  const sid = sidOf(request.body);
  let status: number;
  let body: { detail: string; code: string; field?: string };
  if (isSessionApiError(error)) {
    status = error.status;
    body = {
      detail: error.message,
      code: error.code,
      ...(error instanceof InvalidRequestError ? { field: error.field } : {}),
    };
    if (error instanceof SessionsFullError) reply.header('retry-after', String(error.retryAfterSeconds));
  } else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    status = 413;
    body = {
      detail: describeBodyTooLarge(env.FUSEBOX_MAX_BODY_BYTES),
      code: 'FUSEBOX_SESSION_BODY_TOO_LARGE',
    };
  } else if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    status = 415;
    body = {
      detail: describeUnsupportedMediaType(request.headers['content-type']),
      code: 'FUSEBOX_SESSION_UNSUPPORTED_MEDIA_TYPE',
    };
  } else if (error instanceof QueueFullError || error instanceof LimiterTimeoutError) {
    // Saturated, as /run_code answers it: the executor's queue is full, or no global permit came within
    // FUSEBOX_LIMITER_TIMEOUT_S. The client may try again later.
    status = 429;
    body = { detail: error.message, code: error.code };
    reply.header(
      'retry-after',
      String(error instanceof QueueFullError ? error.retryAfterSeconds : LIMITER_RETRY_AFTER_S),
    );
  } else if (isDatabaseUnavailable(error)) {
    status = 503;
    body = { detail: databaseOutageDetail(error), code: 'FUSEBOX_SESSION_DATABASE_UNAVAILABLE' };
    reply.header('retry-after', String(DATABASE_RETRY_AFTER_S));
  } else if (error instanceof SandboxFailureError) {
    // A sandbox did not start (too slow on a drowning machine, or bubblewrap failed): nothing ran; try again.
    status = 503;
    body = { detail: error.message, code: error.code };
    reply.header('retry-after', String(SANDBOX_FAILURE_RETRY_AFTER_S));
  } else if (
    error instanceof ExecutorClosedError ||
    error instanceof LimiterUnavailableError ||
    error instanceof LimiterClosedError
  ) {
    // Shutting down, or the limiter's database does not answer (which passes: retry).
    status = 503;
    body = { detail: error.message, code: error.code };
    if (error instanceof LimiterUnavailableError) reply.header('retry-after', String(DATABASE_RETRY_AFTER_S));
  } else {
    // The cause (a database error, a stack) is logged, never answered nor recorded where the dashboard shows it.
    status = 500;
    body = {
      detail: 'internal error; the server log has the cause',
      code: isLocalSandboxError(error) ? error.code : 'FUSEBOX_SESSION_INTERNAL',
    };
  }
  const log = { sid, route, status, code: body.code, ...(status >= 500 ? { err: error } : {}) };
  if (status >= 500) scope.log.error(log, `${route} failed: ${error.message || body.detail}`);
  else scope.log.warn(log, `${route} refused: ${body.detail}`);
  // With the database unavailable, recording the error would only wait out another timeout before failing.
  const databaseDown = isDatabaseUnavailable(error) || error instanceof LimiterUnavailableError;
  if (sid !== undefined && !databaseDown) {
    await sessions.recordError(sid, route, `${status} ${body.detail}`).catch((recordError: unknown) => {
      scope.log.error({ sid, err: recordError }, 'could not record the error against its session');
    });
  }
  return reply.code(status).send(body);
}

/** The canonical sid of a body, if it has a valid one. */
function sidOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('sid' in body)) return undefined;
  const parsed = sidSchema.safeParse(body.sid);
  return parsed.success ? parsed.data : undefined;
}
