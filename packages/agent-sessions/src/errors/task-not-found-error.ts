import { SessionApiError } from './session-api-error';

/** No task has this instance_hash: 404 from /start_instance. */
export class TaskNotFoundError extends SessionApiError {
  constructor(readonly instanceHash: string) {
    super(
      'FUSEBOX_SESSION_TASK_NOT_FOUND',
      404,
      `no task has instance_hash ${instanceHash}; load tasks with \`fusebox tasks import FILE.jsonl\``,
    );
  }
}
