import type { SearchSpec } from '@fusebox/tasks';
import { z } from 'zod';
import { computeQaScore, coverExactMatch, exactMatch, subExactMatch, tokenF1 } from '@fusebox/tools';
import type { TestOutcome } from './reward-detail';
import { searchTermsEarned } from './search-reward-terms';
import {
  findFinalAnswer,
  findSearchQuery,
  formatDocuments,
  type SearchDocument,
  SEARCH_TAGS,
} from './search-turn';

/** Where search sessions find passages; the host provides it (the corpora behind /retrieve). */
export interface SessionSearch {
  /** The `topk` best passages for `query` in `corpus` (the only one imported when undefined). */
  search(corpus: string | undefined, query: string, topk: number): Promise<SearchDocument[]>;
}

/** What a searching action is stored with (`action.search`), for the session's timeline. */
export const searchRecordSchema = z.object({
  /** The tag convention the query was written in. */
  tags: z.enum(SEARCH_TAGS),
  /** The passages answered, best first: empty when none matched or the search failed. */
  documents: z.array(
    z.object({ id: z.string().nullable(), score: z.number().nullable(), contents: z.string() }),
  ),
});

export type SearchRecord = z.infer<typeof searchRecordSchema>;

/** One search action: what the model reads back, how it is stored, and the query it made (if any). */
export interface SearchTurn {
  observation: string;
  /** `search`, `answer`, `no_query`, or `search_failed` (the task's corpus is missing, say). */
  status: 'search' | 'answer' | 'no_query' | 'search_failed';
  query: string | undefined;
  /** Set when the action asked a query. */
  record: SearchRecord | undefined;
}

const NO_QUERY =
  'No query found. Search with <search>your query</search> (or <|begin_of_query|>your query<|end_of_query|>), ' +
  'or give your final answer as <answer>…</answer>.';

/**
 * Answers one turn of a search session: a query in either tag convention is searched and its passages returned
 * in the same convention; a final answer ends the episode with nothing to read; anything else gets a hint.
 * A query after an answer in the same turn is still searched: the model keeps going, so it needs the passages.
 */
export async function searchTurn(
  search: SessionSearch,
  spec: SearchSpec,
  content: string,
): Promise<SearchTurn> {
  const asked = findSearchQuery(content);
  if (!asked) {
    return findFinalAnswer(content) === undefined
      ? { observation: NO_QUERY, status: 'no_query', query: undefined, record: undefined }
      : { observation: '', status: 'answer', query: undefined, record: undefined };
  }
  try {
    const documents = await search.search(spec.corpus, asked.query, spec.topk);
    return {
      observation: formatDocuments(documents, asked.tags),
      status: 'search',
      query: asked.query,
      record: {
        tags: asked.tags,
        documents: documents.map(({ id, score, contents }) => ({
          id: id ?? null,
          score: score ?? null,
          contents,
        })),
      },
    };
  } catch (error) {
    return {
      observation: `Search failed: ${(error as Error).message}`,
      status: 'search_failed',
      query: asked.query,
      record: { tags: asked.tags, documents: [] },
    };
  }
}

/** A search session's reward and how it came about, for `/compute_reward` and `session.reward_detail`. */
export interface SearchReward {
  reward: number;
  outcome: TestOutcome;
}

/**
 * Scores a search session on the final answer of its last action that gave one, by the task's rule (verl's
 * `compute_score` for `em` and `subem` when the answer is in `<answer>` tags, so its penalty for more than 10
 * answer tags applies too), plus the task's R1-Searcher terms (search-reward-terms.ts; none by default). No
 * answer scores 0, plus those terms. The outcome keeps the parts (`search`) for the session's timeline.
 */
export function scoreSearchSession(spec: SearchSpec, actions: readonly { content: string }[]): SearchReward {
  const answer = answerScore(spec, actions);
  const earned = searchTermsEarned(spec.terms, actions);
  const terms = earned.retrieval + earned.format - earned.formatPenalty;
  const parts = {
    answer: answer.answer ?? null,
    // Actions are numbered 1, 2, 3… without gaps (store-action.ts), so a place in the list is a number.
    answerAction: answer.index === undefined ? null : answer.index + 1,
    golden: spec.golden,
    rule: spec.rule,
    answerScore: answer.reward,
    terms: spec.terms,
    earned,
  };
  const detail = terms === 0 ? answer.detail : `${answer.detail}; R1-Searcher terms ${terms}`;
  return {
    reward: answer.reward + terms,
    outcome: {
      name: 'answer',
      group: 'f2p',
      passed: answer.reward === 1,
      status: answer.status,
      detail,
      search: parts,
    },
  };
}

interface AnswerScore {
  reward: number;
  status: 'success' | 'wrong_answer' | 'no_answer';
  detail: string;
  answer?: string;
  /** The place in `actions` of the action that gave the answer. */
  index?: number;
}

function answerScore(spec: SearchSpec, actions: readonly { content: string }[]): AnswerScore {
  const index = actions.findLastIndex((action) => findFinalAnswer(action.content) !== undefined);
  const answered = actions[index];
  const answer = answered && findFinalAnswer(answered.content);
  if (answered === undefined || answer === undefined) {
    return { reward: 0, status: 'no_answer', detail: 'no <answer>…</answer> or \\boxed{…} in any action' };
  }
  const tagged = answered.content.includes('</answer>');
  let reward: number;
  switch (spec.rule) {
    case 'em':
      reward = tagged ? computeQaScore(answered.content, spec.golden) : exactMatch(answer, spec.golden);
      break;
    case 'subem':
      reward = tagged
        ? computeQaScore(answered.content, spec.golden, { match: 'subem' })
        : subExactMatch(answer, spec.golden);
      break;
    case 'f1':
      reward = tokenF1(answer, spec.golden);
      break;
    case 'cover':
      reward = coverExactMatch(answer, spec.golden);
      break;
  }
  const detail = `answer ${JSON.stringify(answer)}; golden ${JSON.stringify(spec.golden)}; ${spec.rule} ${reward}`;
  return { reward, status: reward === 1 ? 'success' : 'wrong_answer', detail, answer, index };
}
