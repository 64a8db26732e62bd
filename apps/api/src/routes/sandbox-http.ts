import { type FastifyInstance, type FastifyReply, errorCodes } from 'fastify';
import { validationDetail, type ValidationDetailEntry } from '@fusebox/sandbox-client/protocol';
import {
  ExecutorClosedError,
  QueueFullError,
  SessionBusyError,
  SessionDeadError,
  SessionLimitError,
  SessionNotFoundError,
  UnsafePathError,
} from '@fusebox/local-sandbox/errors';
import { LimiterClosedError, LimiterTimeoutError, LimiterUnavailableError } from '@fusebox/rate-limiter';
import type { z } from 'zod';
import {
  type FieldLimit,
  type FieldLimitProblem,
  countedLimitProblems,
  fieldLimitProblems,
} from '../input/field-limits';
import { isJsonContentType } from '../input/json-content-type';
import { type FieldEntries, describeTooDeep, scanJson } from '../input/json-depth';
import { UpstreamSandboxError } from '../upstream-sandbox';

/** A body that is not JSON: kept as the parse error so the route can answer 422 the way FastAPI does. */
class InvalidJson {
  constructor(
    readonly message: string,
    readonly position: number,
  ) {}
}

/** A JSON body as it came, with what a scan of it found; parsed once the route's limits allow it. */
class JsonText {
  constructor(
    readonly text: string,
    readonly entries: ReadonlyMap<string, FieldEntries>,
  ) {}
}

/** How long a client should wait before trying to open a session again when all are taken. */
const SESSION_LIMIT_RETRY_AFTER_S = 5;
/** How long a client should wait before retrying an execution that found the global limit saturated. */
const LIMITER_TIMEOUT_RETRY_AFTER_S = 5;

/**
 * Parses the sandbox routes' bodies as JSON, up to `bodyLimit` bytes (beyond: 413). A body that is not sent as
 * `application/json` is refused with 415 by the scope's error handler (an empty one is no body, whatever its
 * type). JSON nested deeper than `maxDepth` reaches the route as an {@link InvalidJson}, unparsed; any other body
 * as a {@link JsonText}, which {@link parseBody} parses once the route's limits allow it.
 */
export function acceptJsonBodies(
  scope: FastifyInstance,
  limits: { bodyLimit: number; maxDepth: number },
): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: limits.bodyLimit },
    (request, body: Buffer, done) => {
      if (body.length === 0) return done(null, undefined);
      if (!isJsonContentType(request.headers['content-type']))
        return done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
      const text = body.toString('utf8');
      const { tooDeep, entries } = scanJson(text, limits.maxDepth);
      if (tooDeep) return done(null, new InvalidJson(describeTooDeep(tooDeep), tooDeep.position));
      done(null, new JsonText(text, entries));
    },
  );
}

/**
 * Validates a body against a protocol schema, after the server's own `limits` (counted before the schema runs,
 * so a huge body is refused cheaply). On failure it answers 422 with FastAPI/pydantic v2's `detail` (naming each
 * bad field) and returns undefined.
 */
export function parseBody<S extends z.ZodType>(
  reply: FastifyReply,
  schema: S,
  received: unknown,
  limits: readonly FieldLimit[] = [],
): z.output<S> | undefined {
  const counted = received instanceof JsonText ? countedLimitProblems(received.entries, limits) : [];
  if (counted.length > 0) {
    sendJson(reply, 422, { detail: counted.map(limitDetail) });
    return undefined;
  }
  const body = received instanceof JsonText ? parseJson(received.text) : received;
  if (body instanceof InvalidJson) {
    sendJson(reply, 422, {
      detail: [
        {
          type: 'json_invalid',
          loc: ['body', body.position],
          msg: 'JSON decode error',
          input: {},
          ctx: { error: body.message },
        },
      ],
    });
    return undefined;
  }
  const problems = fieldLimitProblems(body, limits);
  if (problems.length > 0) {
    sendJson(reply, 422, { detail: problems.map(limitDetail) });
    return undefined;
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  sendJson(reply, 422, validationDetail(parsed.error, body));
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    return new InvalidJson(message, Number(/position (\d+)/.exec(message)?.[1] ?? 0));
  }
}

/**
 * A limit of the server as pydantic would word it (`too_long`, `less_than_equal`), naming the setting that sets
 * it. A long list is not echoed back: its `input` says what it was.
 */
function limitDetail(problem: FieldLimitProblem): ValidationDetailEntry {
  const loc = ['body', problem.field];
  if (problem.kind === 'number') {
    return {
      type: 'less_than_equal',
      loc,
      msg: `Input should be less than or equal to ${problem.max} (the server's ${problem.setting})`,
      input: problem.received,
      ctx: { le: problem.max },
    };
  }
  const fieldType = problem.kind === 'list' ? 'List' : 'Dictionary';
  return {
    type: 'too_long',
    loc,
    msg: `${fieldType} should have at most ${problem.max} items after validation, not ${problem.received} (the server's ${problem.setting})`,
    input: `${problem.kind} of ${problem.received} items`,
    ctx: { field_type: fieldType, max_length: problem.max, actual_length: problem.received },
  };
}

/** Sends compact JSON exactly as built (field order and nulls kept), skipping Fastify's serializer. */
export function sendJson(reply: FastifyReply, status: number, value: unknown): FastifyReply {
  return reply.code(status).type('application/json').send(JSON.stringify(value));
}

/** An AbortSignal that fires if the client goes away before its response is sent, so its run is killed. */
export function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}

/**
 * Answers the executor's and the global limiter's refusals with their HTTP status: 429 with Retry-After when
 * saturated, 503 when shutting down or when the limiter's database does not answer, 404/409 for sessions, 422
 * for a path the sandbox refuses, 502 when the upstream SandboxFusion fails. Returns false for anything else.
 */
export function sendRefusal(reply: FastifyReply, error: unknown): boolean {
  if (error instanceof QueueFullError) {
    reply.header('retry-after', String(error.retryAfterSeconds));
    sendJson(reply, 429, { detail: error.message });
  } else if (error instanceof LimiterTimeoutError) {
    // No global permit came within FUSEBOX_LIMITER_TIMEOUT_S: the cluster is saturated.
    reply.header('retry-after', String(LIMITER_TIMEOUT_RETRY_AFTER_S));
    sendJson(reply, 429, { detail: error.message });
  } else if (error instanceof LimiterUnavailableError || error instanceof LimiterClosedError) {
    sendJson(reply, 503, { detail: error.message });
  } else if (error instanceof SessionLimitError) {
    reply.header('retry-after', String(SESSION_LIMIT_RETRY_AFTER_S));
    sendJson(reply, 429, { detail: error.message });
  } else if (error instanceof ExecutorClosedError) {
    sendJson(reply, 503, { detail: error.message });
  } else if (error instanceof SessionNotFoundError) {
    sendJson(reply, 404, { detail: error.message });
  } else if (error instanceof SessionBusyError || error instanceof SessionDeadError) {
    sendJson(reply, 409, { detail: error.message });
  } else if (error instanceof UnsafePathError) {
    sendJson(reply, 422, { detail: error.message });
  } else if (error instanceof UpstreamSandboxError) {
    sendJson(reply, 502, { detail: error.message });
  } else {
    return false;
  }
  return true;
}
