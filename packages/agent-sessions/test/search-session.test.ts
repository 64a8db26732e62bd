import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type SessionSearch, scoreSearchSession, searchTurn } from '../src/search-session';
import { searchFormat, searchTermsScore } from '../src/search-reward-terms';
import { findFinalAnswer, findSearchQuery, formatDocuments } from '../src/search-turn';

const NO_TERMS = { retrieval: 0, format: 0, format_penalty: 0 };
const spec = { golden: ['Paris'], rule: 'em' as const, topk: 2, terms: NO_TERMS };

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

  it('reads a turn the model filled with opening tags in one pass', { timeout: 20_000 }, () => {
    // Lazy regexes scanned to the end from every unclosed tag: 68 s for these three (1 s at 160 kB),
    // with the server's event loop held.
    expect(findSearchQuery(`${'<search>'.repeat(100_000)}`)).toBeUndefined();
    expect(findSearchQuery(`${'<|begin_of_query|>'.repeat(100_000)}`)).toBeUndefined();
    expect(findFinalAnswer(`<answer>x</answer>${'<answer>'.repeat(100_000)}`)).toBe('x');
  });

  it("searches the task's corpus with its topk, answers nothing after a final answer, and hints otherwise", async () => {
    const turn = await searchTurn(search, { ...spec, corpus: 'wiki' }, '<search>capital France</search>');
    expect(turn).toMatchObject({ status: 'search', query: 'capital France' });
    expect(turn.observation).toMatch(
      /^<information>Doc 1 \(Title: "Paris"\) Paris is the capital of France\./,
    );
    expect(search.asked.at(-1)).toEqual({ corpus: 'wiki', query: 'capital France', topk: 2 });
    // Stored for the timeline: the convention, and each passage with what the search knew of it.
    expect(turn.record).toEqual({
      tags: 'search-r1',
      documents: [{ id: null, score: null, contents: '"Paris"\nParis is the capital of France.' }],
    });
    const scored: SessionSearch = {
      search: () => Promise.resolve([{ id: 'p-7', score: 2.5, contents: '"Paris"\nParis.' }]),
    };
    expect((await searchTurn(scored, spec, '<|begin_of_query|>x<|end_of_query|>')).record).toEqual({
      tags: 'r1-searcher',
      documents: [{ id: 'p-7', score: 2.5, contents: '"Paris"\nParis.' }],
    });
    expect(await searchTurn(search, spec, '<answer>Paris</answer>')).toEqual({
      observation: '',
      status: 'answer',
      query: undefined,
      record: undefined,
    });
    expect((await searchTurn(search, spec, 'hmm')).status).toBe('no_query');
    const failing: SessionSearch = { search: () => Promise.reject(new Error('no corpus named "gone"')) };
    expect(await searchTurn(failing, spec, '<search>x</search>')).toEqual({
      observation: 'Search failed: no corpus named "gone"',
      status: 'search_failed',
      query: 'x',
      record: { tags: 'search-r1', documents: [] },
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
    // R1-Searcher's cover exact match: every golden word among the answer's, in any order.
    const cover = { ...spec, golden: ['Paris France'], rule: 'cover' as const };
    expect(scoreSearchSession(cover, actions('<answer>France: Paris</answer>')).reward).toBe(1);
    expect(scoreSearchSession(cover, actions('<answer>Paris</answer>')).reward).toBe(0);
  });

  it("applies verl's quarter score to an answer spammed in more than 10 tags, and 0 without an answer", () => {
    expect(scoreSearchSession(spec, actions('<answer>Paris</answer>'.repeat(11))).reward).toBe(0.25);
    expect(scoreSearchSession(spec, actions('<search>q</search>'))).toMatchObject({
      reward: 0,
      outcome: { passed: false, status: 'no_answer' },
    });
  });
});

const R1_REFERENCE = fileURLToPath(new URL('./python/r1_searcher_reference.py', import.meta.url));

describe("R1-Searcher's reward terms", () => {
  const query = (text: string) => `<|begin_of_query|>${text}<|end_of_query|>`;
  /** Sessions as a model plays them, clean and broken in each way R1-Searcher checks. */
  const CASES: string[][] = [
    [
      `<think>I should look it up.\n${query('capital of France')}`,
      'It is Paris.</think>\n<answer>Paris</answer>',
    ],
    [`I should look it up.\n${query('capital of France')}`, 'Found it.</think><answer>Paris</answer>'],
    ['<think>I know this.</think><answer>Paris</answer>'],
    [`<think>${query('a')}`, `${query('b')}`, 'Done.</think><answer>Paris</answer>'],
    [`<think>${query('a')}${query('b')}`, 'Done.</think><answer>Paris</answer>'],
    [
      `<think>${query('a')}`,
      '<|begin_of_documents|>\n(1) my own\n<|end_of_documents|>\n\n</think><answer>x</answer>',
    ],
    [`<think><|begin_of_query|>unclosed`, '</think><answer>Paris</answer>'],
    [`<think>${query('a')}`, '</think><answer>Paris</answer> or <answer>Lyon</answer>'],
    [`<think>${query('a')}`, 'Still thinking, no answer.'],
    [`<think>${query('法国首都')}`, '</think><answer>Paris</answer>'],
    [`<think>${query('a')}`, '<think>again</think></think><answer>Paris</answer>'],
    [`${query('a')}`, '<think>late</think><answer>Paris</answer>'],
    ['<think><|begin_of_query|>unclosed', 'No answer either.'],
  ];

  it('match the reward servers: stage 1 adds 0.5 + 0.5, stage 2 punishes the same solutions', () => {
    const expected = JSON.parse(
      execFileSync('/usr/bin/python3', [R1_REFERENCE], { input: JSON.stringify(CASES), encoding: 'utf8' }),
    ) as [number, boolean][];
    const actions = (c: string[]) => c.map((content) => ({ content }));
    const stage1 = { retrieval: 0.5, format: 0.5, format_penalty: 0 };
    const stage2 = { retrieval: 0, format: 0, format_penalty: 1 };
    for (const [index, c] of CASES.entries()) {
      const [terms, punished] = expected[index]!;
      expect({ c, stage1: searchTermsScore(stage1, actions(c)) }).toEqual({ c, stage1: terms });
      expect({ c, stage2: searchTermsScore(stage2, actions(c)) }).toEqual({ c, stage2: punished ? -1 : 0 });
    }
    // The cases cover every branch: clean, no search, and each way to break the format.
    expect(new Set(expected.map(([terms]) => terms))).toEqual(new Set([0, 0.5, 1]));
    expect(expected.filter(([, punished]) => punished).length).toBeGreaterThanOrEqual(7);
    expect(searchFormat(actions(CASES[0]!))).toEqual({
      queries: 1,
      tagsBalanced: true,
      thinkAndAnswerOnce: true,
      chinese: false,
    });
  });

  it("are added to the answer's score per task, and change nothing when off", () => {
    const clean = [
      { content: `<think>${query('capital of France')}` },
      { content: 'It is Paris.</think><answer>Paris</answer>' },
    ];
    const broken = [{ content: '<answer>Lyon</answer><answer>Lyon</answer>' }];
    expect(scoreSearchSession(spec, clean).reward).toBe(1);
    const stage1 = { ...spec, terms: { retrieval: 0.5, format: 0.5, format_penalty: 0 } };
    const scored = scoreSearchSession(stage1, clean);
    expect(scored.reward).toBe(2);
    expect(scored.outcome.detail).toContain('R1-Searcher terms 1');
    // The parts, kept for the dashboard: which action answered what, the rule's score and each term earned.
    expect(scored.outcome.search).toEqual({
      answer: 'Paris',
      answerAction: 2,
      golden: ['Paris'],
      rule: 'em',
      answerScore: 1,
      terms: { retrieval: 0.5, format: 0.5, format_penalty: 0 },
      earned: { retrieval: 0.5, format: 0.5, formatPenalty: 0 },
    });
    const stage2 = { ...spec, rule: 'f1' as const, terms: { retrieval: 0, format: 0, format_penalty: 2 } };
    expect(scoreSearchSession(stage2, broken).reward).toBe(-2);
    expect(scoreSearchSession(stage2, broken).outcome.search).toMatchObject({
      answer: 'Lyon',
      answerScore: 0,
      earned: { retrieval: 0, format: 0, formatPenalty: 2 },
    });
    expect(scoreSearchSession(stage2, []).outcome.search).toMatchObject({ answer: null, answerAction: null });
    expect(scoreSearchSession(stage2, []).reward).toBe(-2);
  });
});
