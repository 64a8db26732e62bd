import { z } from 'zod';
import { deriveInstanceHash, instanceHashSchema } from './instance-hash';
import type { TaskRecordInput } from './task-record';

/**
 * How a search task's final answer is scored against its golden answers, after SQuAD's normalisation: `em`
 * exact match (verl's search_r1_like_qa_em, the default), `subem` a golden answer contained in the answer,
 * `f1` HotpotQA's token F1 (a fraction), `cover` every word of a golden answer among the answer's, in any order
 * (R1-Searcher's cover exact match).
 */
export const SEARCH_REWARD_RULES = ['em', 'subem', 'f1', 'cover'] as const;
export type SearchRewardRule = (typeof SEARCH_REWARD_RULES)[number];

const term = z.number().min(0).max(10);

/**
 * R1-Searcher's optional reward terms (RUCAIBox/R1-Searcher, train/reward_server_*.py), added to the answer's
 * score; all 0 (off) by default. Its stage 1 is `{retrieval: 0.5, format: 0.5}`, its stage 2
 * `{format_penalty: 1}` (2 in its Qwen recipe).
 */
export const searchTermsSchema = z.object({
  /** Added when the model searched at least once, every query answered (stage 1's retrieve reward). */
  retrieval: term.default(0),
  /** Added when the answer is given once and the reasoning closed once (stage 1's format reward). */
  format: term.default(0),
  /** Taken off when the format is broken: tags unbalanced, several answers, Chinese text (stage 2's punishment). */
  format_penalty: term.default(0),
});

export type SearchTerms = z.output<typeof searchTermsSchema>;

/** What a search session needs of its task, stored in `task.metadata.search`. */
export const searchSpecSchema = z.object({
  golden: z.array(z.string()).min(1, 'a search task needs at least one golden answer'),
  /** The corpus to search; unset: the only corpus imported. */
  corpus: z.string().min(1).optional(),
  rule: z.enum(SEARCH_REWARD_RULES).default('em'),
  /** Passages answered per query. */
  topk: z.int().min(1).max(50).default(3),
  terms: searchTermsSchema.default({ retrieval: 0, format: 0, format_penalty: 0 }),
});

export type SearchSpec = z.output<typeof searchSpecSchema>;

/**
 * One line of a search task file: HotpotQA's shape (`_id`, `question`, `answer`) or Search-R1's (`id`,
 * `question`, `golden_answers`), with Fusebox's optional `corpus`, `reward`, `topk` and R1-Searcher's reward
 * terms (`retrieval_reward`, `format_reward`, `format_penalty`). Other keys (`type`,
 * `level`, `supporting_facts`, …) are kept in the task's metadata.
 */
export const searchTaskSchema = z
  .looseObject({
    instance_hash: instanceHashSchema.optional(),
    _id: z.union([z.string(), z.int()]).optional(),
    id: z.union([z.string(), z.int()]).optional(),
    question: z.string().min(1, 'the question must not be empty'),
    answer: z.string().optional(),
    golden_answers: z.array(z.string()).min(1).optional(),
    corpus: z.string().min(1).optional(),
    reward: z.enum(SEARCH_REWARD_RULES).optional(),
    topk: z.int().min(1).max(50).optional(),
    retrieval_reward: term.optional(),
    format_reward: term.optional(),
    format_penalty: term.optional(),
  })
  .refine((task) => task.answer !== undefined || task.golden_answers !== undefined, {
    message: 'expected "answer" (HotpotQA) or "golden_answers" (Search-R1)',
    path: ['answer'],
  });

export type SearchTask = z.output<typeof searchTaskSchema>;

const KNOWN_KEYS = new Set(Object.keys(searchTaskSchema.shape));

/** A search task line has a question and no tests. */
export function looksLikeSearchTask(value: object): boolean {
  return 'question' in value && !('tests' in value);
}

/**
 * Maps a search task to its row: the question is the prompt, and the task runs no code (language `search`, no
 * tests); its instance_hash is derived from its id, or from the question when it has none.
 */
export function fromSearchTask(task: SearchTask): TaskRecordInput {
  const name = String(task._id ?? task.id ?? task.question);
  const golden = task.golden_answers ?? [task.answer!];
  const extra = Object.fromEntries(Object.entries(task).filter(([key]) => !KNOWN_KEYS.has(key)));
  return {
    id: task.instance_hash ?? deriveInstanceHash(name),
    name,
    source: 'fusebox',
    prompt: task.question,
    language: 'search',
    setupFiles: {},
    tests: [],
    failToPass: [],
    passToPass: [],
    sessionMode: 'fresh',
    metadata: {
      search: {
        golden,
        ...(task.corpus === undefined ? {} : { corpus: task.corpus }),
        ...(task.reward === undefined ? {} : { rule: task.reward }),
        ...(task.topk === undefined ? {} : { topk: task.topk }),
        ...(task.retrieval_reward === undefined &&
        task.format_reward === undefined &&
        task.format_penalty === undefined
          ? {}
          : {
              terms: {
                retrieval: task.retrieval_reward ?? 0,
                format: task.format_reward ?? 0,
                format_penalty: task.format_penalty ?? 0,
              },
            }),
      },
      extra: extra as Record<string, z.core.util.JSONType>,
    },
  };
}
