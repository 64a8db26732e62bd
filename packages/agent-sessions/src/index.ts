// Agent sessions of verl's swedev protocol: sessions on tasks, the model's actions run in the sandbox, and
// rewards from the task's tests. The host (apps/api) answers the HTTP routes and provides the gated sandbox.
export {
  type AgentSessionSettings,
  AgentSessions,
  type PostprocessSummary,
  type RewardAnswer,
} from './agent-sessions';
export { type CellOutcome, cellAsRunResponse, lastCellOutcome } from './cell-outcome';
export {
  InvalidRequestError,
  SESSION_API_ERROR_CODES,
  SessionActionLimitError,
  SessionApiError,
  type SessionApiErrorCode,
  SessionClosedError,
  SessionCodeLimitError,
  SessionNotFoundError,
  SessionsFullError,
  TaskNotFoundError,
  isSessionApiError,
} from './errors';
export { extractCode } from './extract-code';
export { type TestOutcome, rewardDetailSchema } from './reward-detail';
export { type TestRun, runTests } from './run-tests';
export { type SearchRecord, type SessionSearch, searchRecordSchema } from './search-session';
export { type SearchDocument } from './search-turn';
export { sidSchema } from './session-id';
export {
  computeRewardResponseSchema,
  postprocessResponseSchema,
  processActionRequestSchema,
  processActionResponseSchema,
  sessionErrorSchema,
  sidRequestSchema,
  startInstanceRequestSchema,
  startInstanceResponseSchema,
} from './session-protocol';
export type { ExecutionRow, GatedRun, SessionSandbox } from './session-sandbox';
export { SESSION_STATES, type SessionState } from './session-state';
export { trustedVerdict } from './trusted-test';
