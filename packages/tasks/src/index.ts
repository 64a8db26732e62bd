// Tasks: their formats (Fusebox's and AutoEval's), their import into the database, and what a session reads back.
export { BUILTIN_TASKS_PATH, loadBuiltinTasks } from './builtin-tasks';
export { type FuseboxTask, fuseboxTaskSchema } from './fusebox-task';
export {
  type TaskImportOptions,
  type TaskImportProblem,
  type TaskImportProgress,
  type TaskImportSummary,
  importTasks,
} from './import-tasks';
export { canonicalInstanceHash, deriveInstanceHash, instanceHashSchema } from './instance-hash';
export { languageOfTag } from './language-tags';
export { type ParsedTaskLine, TASK_FORMATS, type TaskFormat, parseTaskLine } from './parse-task-line';
export { type TestCounts, computeReward } from './reward-rule';
export {
  SEARCH_REWARD_RULES,
  type SearchRewardRule,
  type SearchSpec,
  type SearchTask,
  type SearchTerms,
  searchTaskSchema,
} from './search-task';
export { type StoredTask, readTask, storedTask, storedTaskSelect } from './stored-task';
export { SESSION_MODES, type SessionMode, TASK_SOURCES, type TaskSource } from './task-record';
export { REWARD_RULES, type RewardRule, type TaskMetadata, taskMetadataSchema } from './task-settings';
export { type TaskTest, taskTestSchema } from './task-test';
