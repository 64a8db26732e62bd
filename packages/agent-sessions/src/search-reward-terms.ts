import type { SearchTerms } from '@fusebox/tasks';

/** The query and passage tags of both conventions; R1-Searcher counts its own, Search-R1's are checked alike. */
const CONVENTIONS = [
  {
    query: ['<|begin_of_query|>', '<|end_of_query|>'],
    documents: ['<|begin_of_documents|>', '<|end_of_documents|>'],
  },
  { query: ['<search>', '</search>'], documents: ['<information>', '</information>'] },
] as const;

/** CJK ideographs: R1-Searcher's recipe answers in English and punishes Chinese outside the documents. */
const CHINESE = /[\u4e00-\u9fff]/;

/** What R1-Searcher's reward server checks of a solution, over the model's own text (the actions). */
export interface SearchFormat {
  /** Queries made, each answered with passages: one complete query per action at most, no passage tags written. */
  queries: number;
  /** Every query tag closed, at most one query per turn (Fusebox answers one), no passage tags of its own. */
  tagsBalanced: boolean;
  /** `</think>` once and no `<think>` but one opening the first action (R1-Searcher's prompt opens it), one answer. */
  thinkAndAnswerOnce: boolean;
  chinese: boolean;
}

function count(text: string, tag: string): number {
  return text.split(tag).length - 1;
}

/**
 * R1-Searcher's format checks (train/reward_server_llama_stage1.py and _stage2.py) applied to a session: the
 * model's actions are its solution, and the passages Fusebox answered are the documents between them, so the
 * "as many documents as queries" check becomes "each action closes its query tags, asks at most one query, and
 * writes no passage tags". R1-Searcher's prompt ends with `<think>`, so its solutions hold `</think>` alone; a
 * session's prompt may not, so a `<think>` that opens the first action counts as the prompt's.
 */
export function searchFormat(actions: readonly { content: string }[]): SearchFormat {
  let queries = 0;
  let tagsBalanced = true;
  let think = 0;
  let thinkClosed = 0;
  let answers = 0;
  let answersClosed = 0;
  let chinese = false;
  for (const [index, { content }] of actions.entries()) {
    if (index === 0 && content.trimStart().startsWith('<think>')) think -= 1;
    for (const { query, documents } of CONVENTIONS) {
      const opened = count(content, query[0]);
      if (opened !== count(content, query[1]) || opened > 1) tagsBalanced = false;
      if (count(content, documents[0]) + count(content, documents[1]) > 0) tagsBalanced = false;
      queries += Math.min(opened, 1);
    }
    think += count(content, '<think>');
    thinkClosed += count(content, '</think>');
    answers += count(content, '<answer>');
    answersClosed += count(content, '</answer>');
    if (CHINESE.test(content)) chinese = true;
  }
  const thinkAndAnswerOnce = think === 0 && thinkClosed === 1 && answers === 1 && answersClosed === 1;
  return { queries, tagsBalanced, thinkAndAnswerOnce, chinese };
}

/**
 * The task's R1-Searcher terms for a session, to add to its answer score: `retrieval` when it searched and every
 * query was well formed (stage 1: counts equal and at least 1), `format` when it closed its reasoning and gave
 * its answer exactly once (stage 1), minus `format_penalty` when any check fails (stage 2: tags, think and
 * answer counts, Chinese). With every term 0 (the default) this is 0.
 *
 * @example
 * searchTermsScore({ retrieval: 0.5, format: 0.5, format_penalty: 0 }, actions); // 1 for a clean solution
 */
export function searchTermsScore(terms: SearchTerms, actions: readonly { content: string }[]): number {
  const earned = searchTermsEarned(terms, actions);
  return earned.retrieval + earned.format - earned.formatPenalty;
}

/** Each R1-Searcher term as it applies to a session: what `retrieval` and `format` add, what the penalty takes. */
export interface SearchTermsEarned {
  retrieval: number;
  format: number;
  /** Taken off (0 or the task's `format_penalty`). */
  formatPenalty: number;
}

/** The parts `searchTermsScore` adds up, kept apart so the dashboard can show which check earned what. */
export function searchTermsEarned(
  terms: SearchTerms,
  actions: readonly { content: string }[],
): SearchTermsEarned {
  const format = searchFormat(actions);
  const clean = format.tagsBalanced && format.thinkAndAnswerOnce && !format.chinese;
  return {
    retrieval: format.queries >= 1 && format.tagsBalanced ? terms.retrieval : 0,
    format: format.thinkAndAnswerOnce ? terms.format : 0,
    formatPenalty: clean ? 0 : terms.format_penalty,
  };
}
