import type { FastifyError, FastifyInstance } from 'fastify';
import type { Executor } from '@fusebox/local-sandbox/executor';
import type { PrismaClient } from '@fusebox/db/client';
import type { ExecutionGate } from '../execution-gate';
import type { CodeRunner } from '../upstream-sandbox';
import { ExecutionRecorder } from '../execution-recorder';
import { gatedSessionSandbox } from '../gated-session-sandbox';
import { registerDatasetRoutes } from './datasets';
import { registerRunRoutes } from './sandbox-run';
import { registerSessionRoutes } from './sandbox-sessions';
import { describeUnsupportedMediaType } from '../input/json-content-type';
import { rolloutOrigin } from '../input/rollout-origin';
import { type RefusableSource, unreadRequestRow } from '../sandbox-execution-rows';
import { sendRefusedBody } from './recorded-answer';
import { acceptJsonBodies, sendJson, sendRefusal } from './sandbox-http';
import { type SandboxLimits, describeBodyTooLarge } from './sandbox-limits';

export interface SandboxRouteOptions {
  /** Runs the stateful sessions (and, without `runner`, everything). */
  executor: Executor;
  /** Runs `/run_code` and `/run_jupyter`: the executor, or an upstream SandboxFusion. */
  runner: CodeRunner;
  prisma: PrismaClient;
  /** The global limit every execution runs under. */
  gate: ExecutionGate;
  /** What the routes' bodies may hold. */
  limits: SandboxLimits;
}

/** The routes whose refusals are recorded, by their path. */
const RECORDED_ROUTE_SOURCES = new Map<string | undefined, RefusableSource>([
  ['/run_code', 'run_code'],
  ['/run_jupyter', 'run_jupyter'],
  ['/v1/sandbox/sessions/:id/run', 'sandbox_cell'],
]);

/** The answer to a body refused before it was read: too large (413), or not JSON (415). */
function unreadBodyRefusal(
  error: FastifyError,
  contentType: string | undefined,
  maxBodyBytes: number,
): { status: number; detail: string } | undefined {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 413, detail: describeBodyTooLarge(maxBodyBytes) };
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { status: 415, detail: describeUnsupportedMediaType(contentType) };
  }
  return undefined;
}

/**
 * The execution routes: SandboxFusion's `/run_code` and `/run_jupyter` (on the local executor or an upstream),
 * and the local executor's stateful sessions under `/v1/sandbox/sessions`. They live in their own scope, with their
 * own body parsing and error replies; the server closes once the execution rows in flight are written.
 */
export async function registerSandboxRoutes(
  app: FastifyInstance,
  options: SandboxRouteOptions,
): Promise<void> {
  const recorder = new ExecutionRecorder(options.prisma);
  app.addHook('onClose', () => recorder.settled());
  await app.register((scope, _options, done) => {
    const { limits } = options;
    acceptJsonBodies(scope, { bodyLimit: limits.maxBodyBytes, json: limits.json });
    scope.setErrorHandler(async (error: FastifyError, request, reply) => {
      const unread = unreadBodyRefusal(error, request.headers['content-type'], limits.maxBodyBytes);
      if (unread) {
        // An execution route's refusal is recorded as its 422s are, so that a rollout's 413 shows on the dashboard.
        const source = RECORDED_ROUTE_SOURCES.get(request.routeOptions.url);
        if (!source) return sendJson(reply, unread.status, { detail: unread.detail });
        const row = unreadRequestRow(source, unread.status, unread.detail, new Date());
        await sendRefusedBody(
          reply,
          recorder,
          { ...row, ...rolloutOrigin(request.headers).origin },
          unread.status,
          unread.detail,
        );
        return reply;
      }
      // What the routes leave to this handler (/submit's runs): a saturated limit is a 429, a database down a 503.
      if (sendRefusal(reply, error)) return reply;
      scope.log.error({ err: error }, 'sandbox route failed');
      return sendJson(reply, error.statusCode && error.statusCode < 500 ? error.statusCode : 500, {
        detail: error.statusCode && error.statusCode < 500 ? error.message : 'Internal Server Error',
      });
    });
    registerRunRoutes(scope, options.runner, recorder, options.gate, limits);
    registerSessionRoutes(scope, options.executor, recorder, options.gate, limits);
    registerDatasetRoutes(scope, {
      prisma: options.prisma,
      sandbox: gatedSessionSandbox(options.executor, options.gate),
      maxTimeoutS: limits.maxTimeoutS,
    });
    done();
  });
}
