import type { Language, TestConfig } from '@fusebox/sandbox-client/protocol';
import type { StoredTask, TaskFormat } from '@fusebox/tasks';

/** How one `/submit` is judged, after its `config` (SandboxFusion's TestConfig) is applied to the task. */
export interface SubmitJudging {
  /** The language the completion runs in. */
  language: Language;
  compileTimeoutS: number;
  runTimeoutS: number;
  /** HumanEval's chat mode: the completion holds the whole function, fenced or not, instead of its body. */
  freeform: boolean;
}

/** A `config` field Fusebox cannot honour, named as `config.FIELD` in the 400 it answers. */
export interface ConfigProblem {
  field: string;
  message: string;
}

/**
 * `config.extra` keys SandboxFusion's datasets read. The prompt-only ones change what `/get_prompts` words and
 * nothing of a submission; `append_flag` (AutoEval) adds a print the output must end with, which Fusebox's
 * trusted runner makes needless: a program that exits early fails its asserts there.
 */
const KNOWN_EXTRA = new Set(['is_freeform', 'context', 'fewshot', 'prompt_template', 'append_flag']);

/** SandboxFusion's evaluation classes that `config.dataset_type` may name, as the row formats Fusebox imports. */
export const DATASET_TYPES: Readonly<Record<string, TaskFormat>> = {
  HumanEvalDataset: 'humaneval',
  MBPPDataset: 'mbpp',
  CommonOJDataset: 'common_oj',
  AutoEvalDataset: 'autoeval',
};

/**
 * Applies a submission's `config` to its task, or names the field Fusebox cannot honour (never silently
 * ignored: a client that sets it expects it to matter). `locale` and `is_fewshot` only shape prompts.
 */
export function submitJudging(
  config: TestConfig,
  task: StoredTask,
  maxTimeoutS: number,
): SubmitJudging | ConfigProblem {
  if (config.custom_extract_logic !== null)
    return {
      field: 'custom_extract_logic',
      message:
        'Fusebox does not run extraction code sent by clients; extract the code yourself and submit it fenced',
    };
  if (config.dataset_type !== null && !(config.dataset_type in DATASET_TYPES))
    return {
      field: 'dataset_type',
      message: `unknown evaluation class ${JSON.stringify(config.dataset_type)}; Fusebox knows ${Object.keys(DATASET_TYPES).join(', ')}`,
    };
  for (const key of Object.keys(config.extra)) {
    if (!KNOWN_EXTRA.has(key))
      return {
        field: `extra.${key}`,
        message: `unknown option; Fusebox's /submit reads ${[...KNOWN_EXTRA].join(', ')}`,
      };
  }
  const freeform = config.extra.is_freeform ?? false;
  if (typeof freeform !== 'boolean')
    return { field: 'extra.is_freeform', message: `expected true or false, got ${JSON.stringify(freeform)}` };
  const timeouts = { compile_timeout: config.compile_timeout, run_timeout: config.run_timeout };
  for (const [field, seconds] of Object.entries(timeouts)) {
    if (seconds !== null && !(seconds > 0 && seconds <= maxTimeoutS))
      return {
        field,
        message: `expected seconds above 0 and at most ${maxTimeoutS} (FUSEBOX_MAX_TIMEOUT_S), got ${seconds}`,
      };
  }
  const language = config.language ?? task.language;
  // A stdin/stdout problem can be solved in any language (SandboxFusion's CommonOJ takes it from config); an
  // assert test is code of the task's own language.
  if (language !== task.language && task.tests.some((test) => test.kind !== 'io'))
    return {
      field: 'language',
      message: `problem ${JSON.stringify(task.name)} is judged by ${task.language} test code, which cannot judge ${language}`,
    };
  const runTimeoutS = config.run_timeout ?? task.settings.runTimeoutS;
  return { language, compileTimeoutS: config.compile_timeout ?? runTimeoutS, runTimeoutS, freeform };
}
