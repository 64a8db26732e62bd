import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { describeIssues } from '@fusebox/input';
import { fuseboxTaskSchema } from '@fusebox/tasks';

/** GSM8K-style word problems, each with a program that solves it and one with a plausible mistake. */
export const GSM8K_PROBLEMS_PATH = fileURLToPath(new URL('../data/gsm8k.jsonl', import.meta.url));

/** Coding tasks in Fusebox's task format (instance_hash 9100000000000000001…), imported before the demo runs. */
export const CODING_TASKS_PATH = fileURLToPath(new URL('../data/coding-tasks.jsonl', import.meta.url));

/** Passages for the search episodes, in Search-R1's corpus format; the demo imports them as SEARCH_CORPUS_NAME. */
export const SEARCH_CORPUS_PATH = fileURLToPath(new URL('../data/search-corpus.jsonl', import.meta.url));
export const SEARCH_CORPUS_NAME = 'fusebox-demo-wiki';

/** Questions the search corpus answers, one or two searches away. */
export const SEARCH_QUESTIONS_PATH = fileURLToPath(
  new URL('../data/search-questions.jsonl', import.meta.url),
);

const answer = z.string().regex(/^-?\d+$/, 'expected an integer, as GSM8K answers are');

export const gsm8kProblemSchema = z.object({
  id: z.string().min(1),
  question: z.string().min(1),
  /** What the solution prints, and so the ground truth: compared as a string, as verl's gsm8k score does. */
  answer,
  /** One line of reasoning the scripted model writes before its tool call. */
  reasoning: z.string().min(1),
  code: z.string().min(1),
  mistake: z.string().min(1),
  /** What the mistaken program prints. */
  mistake_answer: answer,
});

export type Gsm8kProblem = z.output<typeof gsm8kProblemSchema>;

export const searchQuestionSchema = z.object({
  id: z.string().min(1),
  question: z.string().min(1),
  /** Any of them is right, after SQuAD's normalisation (HotpotQA and Search-R1 list aliases the same way). */
  golden_answers: z.array(z.string().min(1)).min(1),
  /** What the scripted model searches for, one query per turn: two for a two-hop question. */
  queries: z.array(z.string().min(1)).min(1).max(2),
  /** One line of reasoning the scripted model writes before it answers. */
  reasoning: z.string().min(1),
  /** A plausible wrong answer: a near miss, as a model makes. */
  mistake_answer: z.string().min(1),
});

export type SearchQuestion = z.output<typeof searchQuestionSchema>;

/** A demo coding task: a Fusebox task whose metadata also holds what the scripted model writes. */
export const codingTaskSchema = fuseboxTaskSchema.extend({
  instance_hash: z.string().regex(/^\d+$/),
  metadata: z.object({
    solution: z.string().min(1),
    /** A plausible wrong solution, and the share of the task's tests it passes (its reward). */
    mistake: z.string().min(1),
    mistake_reward: z.number().min(0).max(1),
    /** A line that tries the solution out, as a model checks its work. */
    check: z.string().min(1),
  }),
});

export type CodingTask = z.output<typeof codingTaskSchema>;

export function loadGsm8kProblems(path = GSM8K_PROBLEMS_PATH): Promise<Gsm8kProblem[]> {
  return readJsonl(path, gsm8kProblemSchema);
}

export function loadSearchQuestions(path = SEARCH_QUESTIONS_PATH): Promise<SearchQuestion[]> {
  return readJsonl(path, searchQuestionSchema);
}

export function loadCodingTasks(path = CODING_TASKS_PATH): Promise<CodingTask[]> {
  return readJsonl(path, codingTaskSchema);
}

/** A shipped file that does not parse is a bug in this repository, so it throws naming the line. */
async function readJsonl<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>[]> {
  const lines = (await readFile(path, 'utf8')).split('\n');
  return lines.flatMap((line, index) => {
    if (line.trim() === '') return [];
    const parsed = schema.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`${path}:${index + 1}: ${describeIssues(parsed.error)}`);
    return [parsed.data];
  });
}
