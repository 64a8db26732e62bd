import { describe, expect, it } from 'vitest';
import { type SessionSearch, scoreSearchSession, searchTurn } from '../src/search-session';
import { findFinalAnswer, findSearchQuery, formatDocuments } from '../src/search-turn';

const spec = { golden: ['Paris'], rule: 'em' as const, topk: 2 };

/** A corpus of two passages, searched by the words they share with the query (the real one is BM25). */
const search: SessionSearch & { asked: { corpus: string | undefined; query: string; topk: number }[] } = {
  asked: [],
  search(corpus, query, topk) {
    this.asked.push({ corpus, query, topk });
    const passages = ['"Paris"\nParis is the capital of France.', '"Seine"\nThe Seine flows through Paris.'];
    const words = query.toLowerCase().split(/\W+/);
    return Promise.resolve(
      passages
        .filter((p) => words.some((w) => w && p.toLowerCase().includes(w)))
        .map((contents) => ({ contents })),
    );
  },
};

describe('a search turn', () => {
  it("finds Search-R1's and R1-Searcher's queries, the last one when there are several", () => {
    expect(findSearchQuery('I should look. <search> capital of France </search>')).toEqual({
      query: 'capital of France',
      tags: 'search-r1',
    });
    expect(findSearchQuery('<search>a</search> then <|begin_of_query|>b<|end_of_query|>')).toEqual({
      query: 'b',
      tags: 'r1-searcher',
    });
    expect(findSearchQuery('<search>  </search>')).toBeUndefined();
    expect(findSearchQuery('<search>unclosed')).toBeUndefined();
  });

  it('answers passages in the tags the query came in', () => {
    const documents = [{ contents: '"Paris"\nParis is the capital of France.' }];
    expect(formatDocuments(documents, 'search-r1')).toBe(
      '<information>Doc 1 (Title: "Paris") Paris is the capital of France.</information>',
    );
    expect(formatDocuments(documents, 'r1-searcher')).toBe(
      '<|begin_of_documents|>\nDoc 1 (Title: "Paris") Paris is the capital of France.\n<|end_of_documents|>',
    );
    expect(formatDocuments([], 'search-r1')).toBe(
      '<information>No passage matches this query.</information>',
    );
  });

  it('notices the final answer in <answer> tags or \\boxed{} with nested braces', () => {
    expect(findFinalAnswer('so <answer> Paris </answer>')).toBe('Paris');
    expect(findFinalAnswer('the answer is \\boxed{\\text{Paris}}.')).toBe('\\text{Paris}');
    expect(findFinalAnswer('\\boxed{unclosed')).toBeUndefined();
    expect(findFinalAnswer('no answer yet')).toBeUndefined();
  });

  it("searches the task's corpus with its topk, answers nothing after a final answer, and hints otherwise", async () => {
    const turn = await searchTurn(search, { ...spec, corpus: 'wiki' }, '<search>capital France</search>');
    expect(turn).toMatchObject({ status: 'search', query: 'capital France' });
    expect(turn.observation).toMatch(
      /^<information>Doc 1 \(Title: "Paris"\) Paris is the capital of France\./,
    );
    expect(search.asked.at(-1)).toEqual({ corpus: 'wiki', query: 'capital France', topk: 2 });
    expect(await searchTurn(search, spec, '<answer>Paris</answer>')).toEqual({
      observation: '',
      status: 'answer',
      query: undefined,
    });
    expect((await searchTurn(search, spec, 'hmm')).status).toBe('no_query');
    const failing: SessionSearch = { search: () => Promise.reject(new Error('no corpus named "gone"')) };
    expect(await searchTurn(failing, spec, '<search>x</search>')).toEqual({
      observation: 'Search failed: no corpus named "gone"',
      status: 'search_failed',
      query: 'x',
    });
  });
});

describe("a search session's reward", () => {
  const actions = (...contents: string[]) => contents.map((content) => ({ content }));

  it('scores the last answer given, by the task rule', () => {
    const episode = actions(
      '<search>q</search>',
      '<answer>Lyon</answer>',
      'wait, <answer>the Paris</answer>',
    );
    expect(scoreSearchSession(spec, episode)).toMatchObject({ reward: 1, outcome: { passed: true } });
    expect(
      scoreSearchSession({ ...spec, rule: 'subem' }, actions('<answer>Paris, France</answer>')).reward,
    ).toBe(1);
    expect(scoreSearchSession(spec, actions('<answer>Paris, France</answer>')).reward).toBe(0);
    expect(scoreSearchSession({ ...spec, rule: 'f1' }, actions('\\boxed{Paris France}')).reward).toBeCloseTo(
      2 / 3,
    );
  });

  it("applies verl's quarter score to an answer spammed in more than 10 tags, and 0 without an answer", () => {
    expect(scoreSearchSession(spec, actions('<answer>Paris</answer>'.repeat(11))).reward).toBe(0.25);
    expect(scoreSearchSession(spec, actions('<search>q</search>'))).toMatchObject({
      reward: 0,
      outcome: { passed: false, status: 'no_answer' },
    });
  });
});
