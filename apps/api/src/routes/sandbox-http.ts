import { type FastifyInstance, type FastifyReply, errorCodes } from 'fastify';
import { validationDetail, type ValidationDetailEntry } from '@fusebox/sandbox-client/protocol';
import {
  ExecutorClosedError,
  QueueFullError,
  SandboxFailureError,
  SessionBusyError,
  SessionDeadError,
  SessionLimitError,
  SessionNotFoundError,
  UnsafePathError,
} from '@fusebox/local-sandbox/errors';
import { LimiterClosedError, LimiterTimeoutError, LimiterUnavailableError } from '@fusebox/rate-limiter';
import {
  DATABASE_RETRY_AFTER_S,
  databaseOutageDetail,
  isDatabaseUnavailable,
} from '@fusebox/db/database-unavailable';
import type { z } from 'zod';
import {
  type FieldLimit,
  type FieldLimitProblem,
  countedLimitProblems,
  fieldLimitProblems,
} from '../input/field-limits';
import { isJsonContentType } from '../input/json-content-type';
import {
  type FieldEntries,
  type JsonLimits,
  type TooMany,
  describeTooDeep,
  describeTooMany,
  scanJson,
} from '../input/json-scan';
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
    readonly tooMany: TooMany | undefined,
  ) {}
}

/** How long a client should wait before trying to open a session again when all are taken. */
const SESSION_LIMIT_RETRY_AFTER_S = 5;
/** How long a client should wait before retrying an execution that found the global limit saturated. */
const LIMITER_TIMEOUT_RETRY_AFTER_S = 5;
/** How long a client should wait before retrying a request whose sandbox failed to start. */
export const SANDBOX_FAILURE_RETRY_AFTER_S = 5;

/**
 * Parses the sandbox routes' bodies as JSON, up to `bodyLimit` bytes (beyond: 413). A body that is not sent as
 * `application/json` is refused with 415 by the scope's error handler (an empty one is no body, whatever its
 * type). JSON nested deeper than `maxDepth` reaches the route as an {@link InvalidJson}, unparsed; any other body
 * as a {@link JsonText}, which {@link parseBody} parses once the route's limits allow it.
 */
export function acceptJsonBodies(
  scope: FastifyInstance,
  limits: { bodyLimit: number; json: JsonLimits },
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
      const { tooDeep, tooMany, entries } = scanJson(text, limits.json);
      if (tooDeep) return done(null, new InvalidJson(describeTooDeep(tooDeep), tooDeep.position));
      done(null, new JsonText(text, entries, tooMany));
    },
  );
}

/** A body refused before it ran: pydantic's `detail`, and the body as far as it could be parsed (for its record). */
export interface InvalidBody {
  detail: ValidationDetailEntry[];
  received: unknown;
}

/**
 * Validates a body against a protocol schema, after the server's own `limits` (counted before the schema runs,
 * so a huge body is refused cheaply): the parsed body, or what FastAPI/pydantic v2 would answer with 422 (naming
 * each bad field).
 */
export function checkBody<S extends z.ZodType>(
  schema: S,
  received: unknown,
  limits: readonly FieldLimit[] = [],
): { body: z.output<S> } | { invalid: InvalidBody } {
  // A body with too many values was scanned only so far: its entry counts are partial, and it is not parsed.
  const tooMany = received instanceof JsonText ? received.tooMany : undefined;
  const counted =
    received instanceof JsonText && !tooMany ? countedLimitProblems(received.entries, limits) : [];
  if (counted.length > 0) return { invalid: { detail: counted.map(limitDetail), received: undefined } };
  const body = !(received instanceof JsonText)
    ? received
    : tooMany
      ? new InvalidJson(describeTooMany(tooMany), tooMany.position)
      : parseJson(received.text);
  if (body instanceof InvalidJson) {
    const detail = [
      {
        type: 'json_invalid',
        loc: ['body', body.position],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: body.message },
      },
    ];
    return { invalid: { detail, received: undefined } };
  }
  const problems = fieldLimitProblems(body, limits);
  if (problems.length > 0) return { invalid: { detail: problems.map(limitDetail), received: body } };
  const parsed = schema.safeParse(body);
  if (parsed.success) return { body: parsed.data };
  return { invalid: { detail: validationDetail(parsed.error, body).detail, received: body } };
}

/** {@link checkBody}, answering 422 itself for an invalid body (and returning undefined). */
export function parseBody<S extends z.ZodType>(
  reply: FastifyReply,
  schema: S,
  received: unknown,
  limits: readonly FieldLimit[] = [],
): z.output<S> | undefined {
  const checked = checkBody(schema, received, limits);
  if ('body' in checked) return checked.body;
  sendJson(reply, 422, { detail: checked.invalid.detail });
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

/** A request answered without running: its HTTP status, what it says, and when to retry. */
export interface Refusal {
  status: number;
  detail: string;
  retryAfterSeconds?: number;
}

/**
 * The executor's, the global limiter's and the database's refusals as HTTP answers: 429 with Retry-After when
 * saturated, 503 when shutting down, 503 with Retry-After when the limiter's or the server's database does not
 * answer (never a 429 that would blame saturation), 404/409 for sessions, 422 for a path the sandbox refuses,
 * 503 with Retry-After when a sandbox failed to start, 502 when the upstream SandboxFusion fails. Undefined for anything else.
 */
export function refusal(error: unknown): Refusal | undefined {
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof QueueFullError)
    return { status: 429, detail, retryAfterSeconds: error.retryAfterSeconds };
  // No global permit came within FUSEBOX_LIMITER_TIMEOUT_S: the cluster is saturated.
  if (error instanceof LimiterTimeoutError)
    return { status: 429, detail, retryAfterSeconds: LIMITER_TIMEOUT_RETRY_AFTER_S };
  if (error instanceof LimiterUnavailableError)
    return { status: 503, detail, retryAfterSeconds: DATABASE_RETRY_AFTER_S };
  if (error instanceof LimiterClosedError || error instanceof ExecutorClosedError)
    return { status: 503, detail };
  if (error instanceof SessionLimitError)
    return { status: 429, detail, retryAfterSeconds: SESSION_LIMIT_RETRY_AFTER_S };
  if (error instanceof SessionNotFoundError) return { status: 404, detail };
  if (error instanceof SessionBusyError || error instanceof SessionDeadError) return { status: 409, detail };
  if (error instanceof UnsafePathError) return { status: 422, detail };
  // The server could not start a sandbox (it did not come up in time on a drowning machine, or bubblewrap failed):
  // nothing ran, and the message says why; not the client's fault, nor an internal error to hide.
  if (error instanceof SandboxFailureError)
    return { status: 503, detail, retryAfterSeconds: SANDBOX_FAILURE_RETRY_AFTER_S };
  if (error instanceof UpstreamSandboxError) return { status: 502, detail };
  // Last: the typed errors above may carry a connection error of their own (an upstream refusing connections).
  if (isDatabaseUnavailable(error))
    return { status: 503, detail: databaseOutageDetail(error), retryAfterSeconds: DATABASE_RETRY_AFTER_S };
  return undefined;
}

/** Sends a refusal as `{detail}`, with Retry-After when it has one. */
export function sendRefusalAnswer(reply: FastifyReply, answer: Refusal): FastifyReply {
  if (answer.retryAfterSeconds !== undefined) reply.header('retry-after', String(answer.retryAfterSeconds));
  return sendJson(reply, answer.status, { detail: answer.detail });
}

/** Answers `error` as {@link refusal} words it; returns false, answering nothing, when it is not a refusal. */
export function sendRefusal(reply: FastifyReply, error: unknown): boolean {
  const answer = refusal(error);
  if (answer) sendRefusalAnswer(reply, answer);
  return answer !== undefined;
}
