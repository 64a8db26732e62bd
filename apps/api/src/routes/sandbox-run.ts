import type { FastifyInstance } from 'fastify';
import type { Executor } from '@fusebox/local-sandbox/executor';
import { runCodeRequestSchema, runJupyterRequestSchema } from '@fusebox/sandbox-client/protocol';
import type { ExecutionRecorder } from '../execution-recorder';
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
  scope.post('/run_code', async (request, reply) => {
    const body = parseBody(reply, runCodeRequestSchema, request.body);
    if (!body) return reply;
    try {
      const execution = await executor.runCode(body, { signal: abortOnDisconnect(reply) });
      sendJson(reply, 200, execution.response);
      recorder.record(runCodeRow(body, execution));
    } catch (error) {
      if (!sendRefusal(reply, error) && !reply.raw.destroyed) throw error;
    }
    return reply;
  });

  scope.post('/run_jupyter', async (request, reply) => {
    const body = parseBody(reply, runJupyterRequestSchema, request.body);
    if (!body) return reply;
    try {
      const execution = await executor.runJupyter(body, { signal: abortOnDisconnect(reply) });
      sendJson(reply, 200, execution.response);
      recorder.record(runJupyterRow(body, execution));
    } catch (error) {
      if (!sendRefusal(reply, error) && !reply.raw.destroyed) throw error;
    }
    return reply;
  });
}
