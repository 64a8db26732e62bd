import type { FastifyInstance } from 'fastify';
import type { Executor } from '@fusebox/local-sandbox/executor';
import { runCodeRequestSchema, runJupyterRequestSchema } from '@fusebox/sandbox-client/protocol';
import type { z } from 'zod';
import type { ExecutionRecorder, ExecutionRow } from '../execution-recorder';
import { runCodeRow, runJupyterRow } from '../sandbox-execution-rows';
import { abortOnDisconnect, parseBody, sendJson, sendRefusal } from './sandbox-http';

/**
 * SandboxFusion's execution routes, answered by the local executor in SandboxFusion's exact format: HTTP 200
 * even for `SandboxError`, 422 with pydantic's `detail` for a bad body. Every execution is recorded after its
 * response is sent.
 */
export function registerRunRoutes(
  scope: FastifyInstance,
  executor: Executor,
  recorder: ExecutionRecorder,
): void {
  const route = <S extends z.ZodType, E extends { response: unknown }>(
    path: string,
    schema: S,
    execute: (body: z.output<S>, signal: AbortSignal) => Promise<E>,
    row: (body: z.output<S>, execution: E) => ExecutionRow,
  ) =>
    scope.post(path, async (request, reply) => {
      const body = parseBody(reply, schema, request.body);
      if (body === undefined) return reply;
      try {
        const execution = await execute(body, abortOnDisconnect(reply));
        sendJson(reply, 200, execution.response);
        recorder.record(row(body, execution));
      } catch (error) {
        // A client that went away has no one to answer; its run was killed by the abort.
        if (!sendRefusal(reply, error) && !reply.raw.destroyed) throw error;
      }
      return reply;
    });

  route('/run_code', runCodeRequestSchema, (body, signal) => executor.runCode(body, { signal }), runCodeRow);
  route(
    '/run_jupyter',
    runJupyterRequestSchema,
    (body, signal) => executor.runJupyter(body, { signal }),
    runJupyterRow,
  );
}
