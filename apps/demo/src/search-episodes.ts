import { randomUUID } from 'node:crypto';
import { type EpisodeRequest, type Trajectory, computeQaScore } from '@fusebox/tools';
import type { DemoCase } from './demo-cases';
import type { SearchQuestion } from './demo-data';
import { toolCallText } from './tool-call-text';

/** Search-R1's instructions, with verl's `search` tool in place of its `<search>` tags. */
export const SEARCH_SYSTEM_PROMPT =
  'Answer the given question. You must conduct reasoning inside <think> and </think> first every time you ' +
  'get new information. After reasoning, if you find you lack some knowledge, you can call the `search` tool ' +
  'with a list of queries, and it will return the top passages for each. You can search as many times as you ' +
  'want. If you find no further external knowledge needed, you can directly provide the answer inside ' +
  '<answer> and </answer>, without detailed illustrations. For example, <answer> Beijing </answer>.';

/** The dump's `data_source`, as verl's datasets name theirs. */
export const SEARCH_DATA_SOURCE = 'fusebox-demo/search';

/** Characters of a tool message the model reads: three short passages per query, two queries. */
export const SEARCH_RESPONSE_CHARS = 4096;

/** One search episode: the question, its golden answers as the ground truth, and the dump's extras. */
export function searchRequest(question: SearchQuestion, scripted?: DemoCase): EpisodeRequest {
  return {
    requestId: randomUUID().replaceAll('-', ''),
    messages: [
      { role: 'system', content: SEARCH_SYSTEM_PROMPT },
      { role: 'user', content: `Question: ${question.question}` },
    ],
    groundTruth: question.golden_answers,
    extra: {
      data_source: SEARCH_DATA_SOURCE,
      task: question.id,
      ...(scripted ? { case: scripted } : {}),
    },
  };
}

/** verl's `search_r1_like_qa_em`: the last `<answer>` of the last assistant message, exact match. */
export function scoreSearch(trajectory: Trajectory): number {
  const last = trajectory.messages.findLast((message) => message.role === 'assistant');
  return computeQaScore(last?.content ?? '', trajectory.groundTruth as string[], { match: 'em' });
}

/**
 * The assistant turns the scripted model plays for a question in a case: one search per hop, then the answer.
 * A search runs no code, so it cannot time out or crash: those cases play the mistakes searchers make instead,
 * a call with the wrong argument (`query` for `query_list`, which the tool answers with verl's error) and a
 * query the corpus has nothing for, each followed by the right search.
 */
export function searchScript(question: SearchQuestion, scripted: DemoCase): string[] {
  const { queries, reasoning } = question;
  const search = (queryList: string[], options?: { malformed: boolean }) =>
    toolCallText('search', { query_list: queryList }, options);
  const answer = (text: string) => `<think>\n${reasoning}\n</think>\n<answer> ${text} </answer>`;
  const right = answer(question.golden_answers[0]!);
  const think = (text: string) => `<think>\n${text}\n</think>\n`;
  switch (scripted) {
    case 'correct':
      return [...queries.map((query) => `${think('I need to look this up.')}${search([query])}`), right];
    case 'wrong':
      return [
        ...queries.map((query) => `${think('I need to look this up.')}${search([query])}`),
        answer(question.mistake_answer),
      ];
    case 'malformed':
      return [
        `${think('I need to look this up.')}${search(queries, { malformed: true })}`,
        `${think('My tool call was cut short; here it is again.')}${search(queries)}`,
        right,
      ];
    case 'timeout':
      return [
        `${think('I need to look this up.')}${toolCallText('search', { query: queries.join(' ') })}`,
        `${think('The tool wants a list of queries.')}${search(queries)}`,
        right,
      ];
    case 'crash':
      return [
        `${think('Let me start broad.')}${search(['famous facts'])}`,
        `${think('Nothing relevant; I will ask precisely.')}${search(queries)}`,
        right,
      ];
  }
}
