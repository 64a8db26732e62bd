import type { FastifyInstance, FastifyReply } from 'fastify';
import { validationDetail } from '@fusebox/sandbox-client/protocol';
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
import { UpstreamSandboxError } from '../upstream-sandbox';

/** A body that is not JSON: kept as the parse error so the route can answer 422 the way FastAPI does. */
class InvalidJson {
  constructor(
    readonly message: string,
    readonly position: number,
  ) {}
}

/** How long a client should wait before trying to open a session again when all are taken. */
const SESSION_LIMIT_RETRY_AFTER_S = 5;
/** How long a client should wait before retrying an execution that found the global limit saturated. */
const LIMITER_TIMEOUT_RETRY_AFTER_S = 5;

/**
 * Parses every body of the sandbox routes as JSON whatever its content type (as FastAPI does for a model body),
 * up to `bodyLimit` bytes (beyond: 413). Invalid JSON reaches the route as an {@link InvalidJson}.
 */
export function acceptJsonBodies(scope: FastifyInstance, bodyLimit: number): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body: Buffer, done) => {
    if (body.length === 0) return done(null, undefined);
    const text = body.toString('utf8');
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      const message = (error as Error).message;
      done(null, new InvalidJson(message, Number(/position (\d+)/.exec(message)?.[1] ?? 0)));
    }
  });
}

/**
 * Validates a body against a protocol schema. On failure it answers 422 with FastAPI/pydantic v2's `detail`
 * (naming each bad field) and returns undefined.
 */
export function parseBody<S extends z.ZodType>(
  reply: FastifyReply,
  schema: S,
  body: unknown,
): z.output<S> | undefined {
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
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  sendJson(reply, 422, validationDetail(parsed.error, body));
  return undefined;
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
