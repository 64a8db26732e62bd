import type { FastifyInstance } from 'fastify';
import { runCodeRequestSchema, runJupyterRequestSchema } from '@fusebox/sandbox-client/protocol';
import type { z } from 'zod';
import type { ExecutionGate, ExecutionTiming } from '../execution-gate';
import type { ExecutionRecorder, ExecutionRow } from '../execution-recorder';
import type { FieldLimit } from '../input/field-limits';
import { rolloutOrigin } from '../input/rollout-origin';
import { lostCodeExecution, lostJupyterExecution } from '../lost-permit';
import {
  type RequestFields,
  invalidRequestRow,
  runCodeRequestFields,
  runCodeRow,
  runJupyterRequestFields,
  runJupyterRow,
  unansweredRow,
} from '../sandbox-execution-rows';
import type { CodeRunner } from '../upstream-sandbox';
import { sendRecorded, sendRefusedBody, sendUnanswered } from './recorded-answer';
import { abortOnDisconnect, checkBody } from './sandbox-http';
import type { SandboxLimits } from './sandbox-limits';

/**
 * SandboxFusion's execution routes, answered by `runner` (the local executor or an upstream SandboxFusion) in
 * SandboxFusion's exact format: HTTP 200
 * even for `SandboxError`, 422 with pydantic's `detail` for a bad body or one over the server's `limits`. Every
 * request is recorded before it is answered (invalid, refused, abandoned and failed ones too), or answered 503 if
 * the database cannot take its row (an invalid one still gets its 422). Each runs under a global permit of `gate`; one whose permit
 * is lost mid-run is aborted and answers `SandboxError`. A row records the rollout request and tool instance
 * the headers name (see `rolloutOrigin`); a header that is not an id is a 422, as a bad body field is.
 */
export function registerRunRoutes(
  scope: FastifyInstance,
  runner: CodeRunner,
  recorder: ExecutionRecorder,
  gate: ExecutionGate,
  limits: SandboxLimits,
): void {
  const route = <S extends z.ZodType, E extends { response: unknown; timing: ExecutionTiming }>(
    source: 'run_code' | 'run_jupyter',
    schema: S,
    fieldLimits: readonly FieldLimit[],
    execute: (body: z.output<S>, signal: AbortSignal) => Promise<E>,
    row: (body: z.output<S>, execution: E) => ExecutionRow,
    requestFields: (body: z.output<S>) => RequestFields,
    lost: (lost: Error, timing: ExecutionTiming) => E,
  ) =>
    scope.post(`/${source}`, async (request, reply) => {
      const requestedAt = new Date();
      const checked = checkBody(schema, request.body, fieldLimits);
      const { origin, detail: headerDetail } = rolloutOrigin(request.headers);
      if ('invalid' in checked || headerDetail.length > 0) {
        const received = 'invalid' in checked ? checked.invalid.received : checked.body;
        const detail = [...headerDetail, ...('invalid' in checked ? checked.invalid.detail : [])];
        const row = { ...invalidRequestRow(source, received, detail, requestedAt), ...origin };
        await sendRefusedBody(reply, recorder, row, 422, detail);
        return reply;
      }
      const body = checked.body;
      try {
        const outcome = await gate.run((signal) => execute(body, signal), {
          signal: abortOnDisconnect(reply),
        });
        const execution = outcome.lost ? lost(outcome.lost, outcome.timing) : outcome.execution;
        const executionRow = { ...row(body, execution), ...origin, limiterKey: gate.key };
        await sendRecorded(reply, recorder, executionRow, 200, execution.response);
      } catch (error) {
        await sendUnanswered(reply, recorder, error, (status, message) => ({
          ...unansweredRow(requestFields(body), status, message, requestedAt),
          ...origin,
          limiterKey: gate.key,
        }));
      }
      return reply;
    });

  route(
    'run_code',
    runCodeRequestSchema,
    limits.runCode,
    (body, signal) => runner.runCode(body, { signal }),
    runCodeRow,
    runCodeRequestFields,
    lostCodeExecution,
  );
  route(
    'run_jupyter',
    runJupyterRequestSchema,
    limits.runJupyter,
    (body, signal) => runner.runJupyter(body, { signal }),
    runJupyterRow,
    runJupyterRequestFields,
    lostJupyterExecution,
  );
}
