import type { FastifyReply } from 'fastify';
import { DATABASE_RETRY_AFTER_S, databaseOutageDetail } from '@fusebox/db/database-unavailable';
import type { ExecutionRecorder, ExecutionRow } from '../execution-recorder';
import { refusal, sendJson, sendRefusalAnswer } from './sandbox-http';

/** The `execution.status` of a request that got no execution's answer. */
export type UnansweredStatus = 'Refused' | 'Abandoned' | 'Error';

/**
 * Sends an execution's answer only once its row is committed, so nothing answered is missing from the table. If
 * the database cannot take the row, the client gets 503 with Retry-After instead: the run left no trace, and
 * retrying it is safe.
 */
export async function sendRecorded(
  reply: FastifyReply,
  recorder: ExecutionRecorder,
  row: ExecutionRow,
  status: number,
  body: unknown,
): Promise<void> {
  try {
    await recorder.record(row);
  } catch (error) {
    reply.log.error({ err: error }, 'could not record an execution; answered 503');
    reply.header('retry-after', String(DATABASE_RETRY_AFTER_S));
    sendJson(reply, 503, { detail: `the execution could not be recorded: ${databaseOutageDetail(error)}` });
    return;
  }
  sendJson(reply, status, body);
}

/**
 * Records a body refused before it ran, then answers `status` with `detail` (pydantic's for a 422). The answer
 * stands even when the database cannot take the row (logged): sent again, the same body would be refused the same
 * way.
 */
export async function sendRefusedBody(
  reply: FastifyReply,
  recorder: ExecutionRecorder,
  row: ExecutionRow,
  status: number,
  detail: unknown,
): Promise<void> {
  await recorder
    .record(row)
    .catch((error: unknown) => reply.log.error({ err: error }, 'could not record a refused request'));
  sendJson(reply, status, { detail });
}

/**
 * Records a request that ended without an execution's answer, then answers it: a refusal (429 saturated, 503
 * database or shutdown, 404/409/422) as `Refused`, a client that closed its connection as `Abandoned` (nobody to
 * answer), anything else as `Error`, rethrown for the scope's 500. A refusal the database cannot record becomes
 * a 503, as {@link sendRecorded} does.
 */
export async function sendUnanswered(
  reply: FastifyReply,
  recorder: ExecutionRecorder,
  error: unknown,
  row: (status: UnansweredStatus, message: string) => ExecutionRow,
): Promise<void> {
  if (reply.raw.destroyed) {
    await recorder
      .record(row('Abandoned', 'the client closed the connection before the answer'))
      .catch((recordError: unknown) =>
        reply.log.error({ err: recordError }, 'could not record an abandoned execution'),
      );
    return;
  }
  const answer = refusal(error);
  if (!answer) {
    await recorder
      .record(row('Error', error instanceof Error ? error.message : String(error)))
      .catch((recordError: unknown) =>
        reply.log.error({ err: recordError }, 'could not record a failed execution'),
      );
    throw error;
  }
  try {
    await recorder.record(row('Refused', `${answer.status} ${answer.detail}`));
  } catch (recordError) {
    reply.log.error({ err: recordError }, 'could not record a refused execution; answered 503');
    sendRefusalAnswer(reply, {
      status: 503,
      detail: databaseOutageDetail(recordError),
      retryAfterSeconds: DATABASE_RETRY_AFTER_S,
    });
    return;
  }
  sendRefusalAnswer(reply, answer);
}
