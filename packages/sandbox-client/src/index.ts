// `@fusebox/sandbox-client`: the client, `summarize`, the errors, and the types of the requests and answers its
// methods take and give. The zod schemas themselves are `@fusebox/sandbox-client/protocol`.
export {
  createSandboxClient,
  type CallOptions,
  type ConcurrentProgress,
  type RetryOptions,
  type RunConcurrentOptions,
  type SandboxClient,
  type SandboxClientOptions,
} from './client';
export { summarize, type RunCategory, type RunSummary, type SummarizeOptions } from './summarize';
export {
  SANDBOX_CLIENT_ERROR_CODES,
  SandboxAbortedError,
  SandboxClientError,
  SandboxHttpError,
  SandboxInvalidResponseError,
  SandboxTimeoutError,
  SandboxUnavailableError,
  isSandboxClientError,
  type SandboxClientErrorCode,
} from './errors/index';
export type {
  CommandRunResult,
  CommandRunStatus,
  EvalResult,
  GetMetricsFunctionRequestInput,
  GetMetricsFunctionResponse,
  GetMetricsRequestInput,
  GetPromptByIdRequestInput,
  GetPromptsRequestInput,
  JupyterCell,
  JupyterCellError,
  Language,
  ProblemId,
  Prompt,
  RunCodeRequestInput,
  RunCodeResponse,
  RunJupyterRequestInput,
  RunJupyterResponse,
  RunStatus,
  SubmitRequestInput,
  TestConfigInput,
} from './protocol';
