// `@fusebox/tools`: verl's tool layer (the tool lifecycle, the YAML registry, code_interpreter and gsm8k), the
// tool-call parser and the `# Tools` prompt, the multi-turn rollout driver with its policies, and the verl dump
// writer. Every public name is listed here; the package has no other entry.
export { BaseTool, type ToolExecution, type ToolKwargs } from './base-tool';
export type { ToolResponse } from './tool-response';
export { parseToolSchema, type ToolSchema, type ToolSchemaInput } from './tool-schema';
export { BUILTIN_TOOL_CLASSES, loadToolsFromYaml, type LoadToolsOptions, type ToolClass } from './registry';
export {
  CODE_INTERPRETER_SCHEMA,
  CodeInterpreterTool,
  type CodeInterpreterOptions,
} from './code-interpreter-tool';
export type { CodeInterpreterConfig, CodeRewardMode } from './code-interpreter-config';
export { describeRun, type RunDescription, type RunTextCompat } from './describe-run';
export { GSM8K_TOOL_SCHEMA, Gsm8kTool } from './gsm8k-tool';
export { SEARCH_TOOL_SCHEMA, SearchTool, type SearchToolOptions } from './search-tool';
export type { SearchConfig } from './search-config';
export { passagesText, searchResultText, type SearchPassage } from './search-text';
export {
  computeGsm8kScore,
  extractGsm8kSolution,
  type Gsm8kMethod,
  type Gsm8kScoreOptions,
} from './gsm8k-score';
export {
  computeQaScore,
  exactMatch,
  extractAnswerTag,
  normalizeAnswer,
  type QaMatch,
  subExactMatch,
  coverExactMatch,
  tokenF1,
} from './qa-score';
export { parseToolCalls, type ParsedToolCall, type ToolCallFormat } from './tool-call-parser';
export {
  QWEN_DEFAULT_SYSTEM_PROMPT,
  renderToolsSystemPrompt,
  systemPromptWithTools,
} from './tools-system-prompt';
export { DEFAULT_MAX_TOOL_RESPONSE_LENGTH, truncateToolResponse, type TruncateSide } from './truncate';
export { pythonJsonDumps, type JsonValue } from './python-json';
export { runEpisode, type RunEpisodeOptions } from './rollout/run-episode';
export { runBatch, type RunBatchOptions } from './rollout/run-batch';
export type {
  EpisodeRequest,
  EpisodeState,
  FinishReason,
  ToolCallRecord,
  ToolsKwargs,
  Trajectory,
} from './rollout/episode';
export type { EpisodeLimits } from './rollout/limits';
export { approximateTokenizer, type Tokenizer } from './rollout/tokenizer';
export type { Completion, Generate, GenerateRequest } from './rollout/generate';
export type { ChatMessage } from './rollout/chat-message';
export { scriptedGenerate, type ScriptedTurn } from './generate/scripted';
export { createOpenAIGenerate, type OpenAIGenerateOptions } from './generate/openai';
export { verlDumpLine, writeVerlDump, type VerlDumpLine } from './dump/write-verl-dump';
export {
  GenerateError,
  TOOLS_ERROR_CODES,
  ToolConfigError,
  ToolsError,
  UnknownInstanceError,
  isToolsError,
  type ToolsErrorCode,
} from './errors/index';
