import type { FastifyInstance } from 'fastify';
import { runCodeRequestSchema, runJupyterRequestSchema } from '@fusebox/sandbox-client/protocol';
import type { z } from 'zod';
import type { ExecutionGate, ExecutionTiming } from '../execution-gate';
import type { ExecutionRecorder, ExecutionRow } from '../execution-recorder';
import type { FieldLimit } from '../input/field-limits';
import { lostCodeExecution, lostJupyterExecution } from '../lost-permit';
import { runCodeRow, runJupyterRow } from '../sandbox-execution-rows';
import type { CodeRunner } from '../upstream-sandbox';
import { abortOnDisconnect, parseBody, sendJson, sendRefusal } from './sandbox-http';
import type { SandboxLimits } from './sandbox-limits';

/**
 * SandboxFusion's execution routes, answered by `runner` (the local executor or an upstream SandboxFusion) in
 * SandboxFusion's exact format: HTTP 200
 * even for `SandboxError`, 422 with pydantic's `detail` for a bad body or one over the server's `limits`. Every execution is recorded after its
 * response is sent. Each runs under a global permit of `gate`; one whose permit is lost mid-run is aborted and
 * answers `SandboxError`.
 */
export function registerRunRoutes(
  scope: FastifyInstance,
  runner: CodeRunner,
  recorder: ExecutionRecorder,
  gate: ExecutionGate,
  limits: SandboxLimits,
): void {
  const route = <S extends z.ZodType, E extends { response: unknown; timing: ExecutionTiming }>(
    path: string,
    schema: S,
    fieldLimits: readonly FieldLimit[],
    execute: (body: z.output<S>, signal: AbortSignal) => Promise<E>,
    row: (body: z.output<S>, execution: E) => ExecutionRow,
    lost: (lost: Error, timing: ExecutionTiming) => E,
  ) =>
    scope.post(path, async (request, reply) => {
      const body = parseBody(reply, schema, request.body, fieldLimits);
      if (body === undefined) return reply;
      try {
        const outcome = await gate.run((signal) => execute(body, signal), {
          signal: abortOnDisconnect(reply),
        });
        const execution = outcome.lost ? lost(outcome.lost, outcome.timing) : outcome.execution;
        sendJson(reply, 200, execution.response);
        recorder.record({ ...row(body, execution), limiterKey: gate.key });
      } catch (error) {
        // A client that went away has no one to answer; its run was killed by the abort.
        if (!sendRefusal(reply, error) && !reply.raw.destroyed) throw error;
      }
      return reply;
    });

  route(
    '/run_code',
    runCodeRequestSchema,
    limits.runCode,
    (body, signal) => runner.runCode(body, { signal }),
    runCodeRow,
    lostCodeExecution,
  );
  route(
    '/run_jupyter',
    runJupyterRequestSchema,
    limits.runJupyter,
    (body, signal) => runner.runJupyter(body, { signal }),
    runJupyterRow,
    lostJupyterExecution,
  );
}
