import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Executor } from '@fusebox/local-sandbox/executor';
import type { SessionInfo } from '@fusebox/local-sandbox/sessions';
import { z } from 'zod';
import type { ExecutionGate } from '../execution-gate';
import type { ExecutionRecorder } from '../execution-recorder';
import {
  cellRequestFields,
  cellRow,
  invalidRequestRow,
  lostCellRow,
  unansweredRow,
} from '../sandbox-execution-rows';
import { sendRecorded, sendRefusedBody, sendUnanswered } from './recorded-answer';
import { abortOnDisconnect, checkBody, parseBody, sendJson, sendRefusal } from './sandbox-http';
import type { SandboxLimits } from './sandbox-limits';

const seconds = z.number().positive();

/** `POST /v1/sandbox/sessions`: every field optional; times in seconds, like SandboxFusion's. */
export const createSessionSchema = z.object({
  memory_limit_MB: z.int().default(-1),
  cell_timeout: seconds.optional(),
  idle_timeout: seconds.optional(),
  files: z.record(z.string(), z.string().nullable()).default(() => ({})),
});

/** The session routes' path parameter. */
interface SessionRoute {
  Params: { id: string };
}

/** `POST /v1/sandbox/sessions/:id/run`. */
export const runCellSchema = z.object({ code: z.string(), timeout: seconds.optional() });

function sessionBody(info: SessionInfo) {
  return {
    session_id: info.id,
    alive: info.alive,
    execution_count: info.executionCount,
    created_at: info.createdAt.toISOString(),
    last_used_at: info.lastUsedAt.toISOString(),
    memory_limit_MB: info.memoryLimitMB,
    cell_timeout: info.cellTimeoutMs / 1000,
    idle_timeout: info.idleTimeoutMs / 1000,
  };
}

/** Sends what `produce` returns with `status`, or the HTTP answer to a refusal it throws (404, 409, 429…). */
async function answer(
  reply: FastifyReply,
  status: number,
  produce: () => Promise<unknown>,
): Promise<FastifyReply> {
  try {
    return sendJson(reply, status, await produce());
  } catch (error) {
    if (!sendRefusal(reply, error)) throw error;
    return reply;
  }
}

/**
 * Stateful sessions over HTTP (documented in packages/local-sandbox/README.md): open a sandboxed Python
 * interpreter, run cells in it with state kept between requests, restart it, close it.
 */
export function registerSessionRoutes(
  scope: FastifyInstance,
  executor: Executor,
  recorder: ExecutionRecorder,
  gate: ExecutionGate,
  limits: SandboxLimits,
): void {
  const sessions = executor.sessions;

  scope.post('/v1/sandbox/sessions', async (request, reply) => {
    const body = parseBody(reply, createSessionSchema, request.body ?? {}, limits.createSession);
    if (!body) return reply;
    return answer(reply, 201, async () =>
      sessionBody(
        await sessions.create({
          memoryLimitMB: body.memory_limit_MB,
          files: body.files,
          ...(body.cell_timeout === undefined ? {} : { cellTimeoutMs: body.cell_timeout * 1000 }),
          ...(body.idle_timeout === undefined ? {} : { idleTimeoutMs: body.idle_timeout * 1000 }),
        }),
      ),
    );
  });

  scope.get<SessionRoute>('/v1/sandbox/sessions/:id', async (request, reply) =>
    answer(reply, 200, () => Promise.resolve(sessionBody(sessions.info(request.params.id)))),
  );

  scope.post<SessionRoute>('/v1/sandbox/sessions/:id/run', async (request, reply) => {
    const { id } = request.params;
    const requestedAt = new Date();
    const checked = checkBody(runCellSchema, request.body, limits.runCell);
    if ('invalid' in checked) {
      const { received, detail } = checked.invalid;
      await sendRefusedBody(
        reply,
        recorder,
        invalidRequestRow('sandbox_cell', received, detail, requestedAt),
        422,
        detail,
      );
      return reply;
    }
    const body = checked.body;
    try {
      const outcome = await gate.run(
        (signal) =>
          sessions.run(id, body.code, {
            ...(body.timeout === undefined ? {} : { timeoutMs: body.timeout * 1000 }),
            signal,
          }),
        { signal: abortOnDisconnect(reply) },
      );
      if (outcome.lost) {
        // The cell was cut short, and its interpreter with it: a sandbox failure, not an answer.
        const lostRow = { ...lostCellRow(body.code, outcome.lost, outcome.timing), limiterKey: gate.key };
        await sendRecorded(reply, recorder, lostRow, 503, {
          detail: `${outcome.lost.message}; the cell was aborted`,
        });
        return reply;
      }
      const cell = outcome.execution;
      await sendRecorded(reply, recorder, { ...cellRow(body.code, cell), limiterKey: gate.key }, 200, {
        session_id: id,
        execution_count: cell.executionCount,
        status: cell.status,
        stdout: cell.stdout,
        stderr: cell.stderr,
        display: cell.display,
        error: cell.error,
        execution_time: cell.executionTime,
        alive: cell.status === 'ok' || cell.status === 'error',
        ...(cell.starved === undefined ? {} : { starved: cell.starved }),
      });
    } catch (error) {
      await sendUnanswered(reply, recorder, error, (status, message) => ({
        ...unansweredRow(cellRequestFields(body.code), status, message, requestedAt),
        limiterKey: gate.key,
      }));
    }
    return reply;
  });

  scope.post<SessionRoute>('/v1/sandbox/sessions/:id/restart', async (request, reply) =>
    answer(reply, 200, async () => sessionBody(await sessions.restart(request.params.id))),
  );

  scope.delete<SessionRoute>('/v1/sandbox/sessions/:id', async (request, reply) =>
    answer(reply, 200, () => {
      sessions.close(request.params.id);
      return Promise.resolve({ session_id: request.params.id, closed: true });
    }),
  );
}
