import type { SearchSpec } from '@fusebox/tasks';
import { computeQaScore, exactMatch, subExactMatch, tokenF1 } from '@fusebox/tools';
import type { TestOutcome } from './reward-detail';
import { searchTermsScore } from './search-reward-terms';
import { findFinalAnswer, findSearchQuery, formatDocuments, type SearchDocument } from './search-turn';

/** Where search sessions find passages; the host provides it (the corpora behind /retrieve). */
export interface SessionSearch {
  /** The `topk` best passages for `query` in `corpus` (the only one imported when undefined). */
  search(corpus: string | undefined, query: string, topk: number): Promise<SearchDocument[]>;
}

/** One search action: what the model reads back, how it is stored, and the query it made (if any). */
export interface SearchTurn {
  observation: string;
  /** `search`, `answer`, `no_query`, or `search_failed` (the task's corpus is missing, say). */
  status: 'search' | 'answer' | 'no_query' | 'search_failed';
  query: string | undefined;
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
      ? { observation: NO_QUERY, status: 'no_query', query: undefined }
      : { observation: '', status: 'answer', query: undefined };
  }
  try {
    const documents = await search.search(spec.corpus, asked.query, spec.topk);
    return { observation: formatDocuments(documents, asked.tags), status: 'search', query: asked.query };
  } catch (error) {
    return {
      observation: `Search failed: ${(error as Error).message}`,
      status: 'search_failed',
      query: asked.query,
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
 * answer scores 0, plus those terms.
 */
export function scoreSearchSession(spec: SearchSpec, actions: readonly { content: string }[]): SearchReward {
  const answer = answerScore(spec, actions);
  const terms = searchTermsScore(spec.terms, actions);
  if (terms === 0) return answer;
  return {
    reward: answer.reward + terms,
    outcome: { ...answer.outcome, detail: `${answer.outcome.detail}; R1-Searcher terms ${terms}` },
  };
}

function answerScore(spec: SearchSpec, actions: readonly { content: string }[]): SearchReward {
  const answered = actions.findLast((action) => findFinalAnswer(action.content) !== undefined);
  const answer = answered && findFinalAnswer(answered.content);
  if (answered === undefined || answer === undefined) {
    return {
      reward: 0,
      outcome: outcome(false, 'no_answer', 'no <answer>…</answer> or \\boxed{…} in any action'),
    };
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
  }
  const detail = `answer ${JSON.stringify(answer)}; golden ${JSON.stringify(spec.golden)}; ${spec.rule} ${reward}`;
  return { reward, outcome: outcome(reward === 1, reward === 1 ? 'success' : 'wrong_answer', detail) };
}

function outcome(passed: boolean, status: string, detail: string): TestOutcome {
  return { name: 'answer', group: 'f2p', passed, status, detail };
}
