// `@fusebox/sandbox-client/protocol`: the SandboxFusion wire protocol as zod schemas and their types, shared by
// this client and by Fusebox's servers. Every export is named here, so the public surface is this list.
export { LANGUAGES, languageSchema, type Language } from './protocol/languages';
export {
  commandRunResultSchema,
  commandRunStatusSchema,
  type CommandRunResult,
  type CommandRunStatus,
} from './protocol/command-run-result';
export { runStatusSchema, type RunStatus } from './protocol/run-status';
export { fetchedFilesSchema } from './protocol/files';
export {
  MAX_ROLLOUT_ID_CHARS,
  REQUEST_ID_HEADER,
  TOOL_INSTANCE_HEADER,
  isRolloutId,
} from './protocol/rollout-origin';
export {
  runCodeRequestSchema,
  runCodeResponseSchema,
  type RunCodeRequest,
  type RunCodeRequestInput,
  type RunCodeResponse,
} from './protocol/run-code';
export {
  jupyterCellErrorSchema,
  jupyterCellSchema,
  runJupyterRequestSchema,
  runJupyterResponseSchema,
  type JupyterCell,
  type JupyterCellError,
  type RunJupyterRequest,
  type RunJupyterRequestInput,
  type RunJupyterResponse,
} from './protocol/run-jupyter';
export { pingResponseSchema } from './protocol/ping';
export {
  problemIdSchema,
  testConfigSchema,
  type ProblemId,
  type TestConfig,
  type TestConfigInput,
} from './protocol/test-config';
export { promptMessageSchema, promptSchema, type Prompt } from './protocol/prompt';
export {
  evalResultSchema,
  evalTestCaseSchema,
  type EvalResult,
  type EvalResultInput,
} from './protocol/eval-result';
export {
  getMetricsFunctionRequestSchema,
  getMetricsFunctionResponseSchema,
  getMetricsRequestSchema,
  getMetricsResponseSchema,
  getPromptByIdRequestSchema,
  getPromptsRequestSchema,
  getPromptsResponseSchema,
  listDatasetsResponseSchema,
  listIdsResponseSchema,
  submitRequestSchema,
  type GetMetricsFunctionRequest,
  type GetMetricsFunctionRequestInput,
  type GetMetricsFunctionResponse,
  type GetMetricsRequest,
  type GetMetricsRequestInput,
  type GetPromptByIdRequest,
  type GetPromptByIdRequestInput,
  type GetPromptsRequest,
  type GetPromptsRequestInput,
  type SubmitRequest,
  type SubmitRequestInput,
} from './protocol/datasets';
export {
  validationDetail,
  type ValidationDetail,
  type ValidationDetailEntry,
} from './protocol/validation-detail';
