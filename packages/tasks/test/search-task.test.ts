import { describe, expect, it } from 'vitest';
import { parseTaskLine } from '../src/parse-task-line';

const parse = (value: unknown, format: 'auto' | 'search' = 'auto') =>
  parseTaskLine(JSON.stringify(value), { format, source: 'fusebox' });

describe('search tasks in a task file', () => {
  it("reads HotpotQA's shape, keeping its other fields, as a task that runs no code", () => {
    const parsed = parse({
      _id: '5a8b57f25542995d1e6f1371',
      question: 'Were Scott Derrickson and Ed Wood of the same nationality?',
      answer: 'yes',
      type: 'comparison',
      level: 'hard',
      corpus: 'wiki',
    });
    expect(parsed).toMatchObject({
      ok: true,
      task: {
        name: '5a8b57f25542995d1e6f1371',
        prompt: 'Were Scott Derrickson and Ed Wood of the same nationality?',
        language: 'search',
        tests: [],
        metadata: {
          search: { golden: ['yes'], corpus: 'wiki', rule: 'em', topk: 3 },
          extra: { type: 'comparison', level: 'hard' },
        },
      },
    });
  });

  it("reads Search-R1's shape with several golden answers and a rule of its own", () => {
    const parsed = parse({
      id: 'nq_1',
      question: 'who wrote hamlet',
      golden_answers: ['Shakespeare', 'W. Shakespeare'],
      reward: 'f1',
    });
    expect(parsed).toMatchObject({
      ok: true,
      task: { metadata: { search: { golden: ['Shakespeare', 'W. Shakespeare'], rule: 'f1' } } },
    });
  });

  it("reads R1-Searcher's optional reward terms, off unless given", () => {
    const parsed = parse({
      id: 'hotpot_1',
      question: 'q?',
      golden_answers: ['a'],
      reward: 'f1',
      format_penalty: 1,
    });
    expect(parsed).toMatchObject({
      ok: true,
      task: { metadata: { search: { terms: { retrieval: 0, format: 0, format_penalty: 1 } } } },
    });
    const plain = parse({ id: 'nq_2', question: 'q?', golden_answers: ['a'] });
    expect(plain.ok && plain.task.metadata.search).toEqual({
      golden: ['a'],
      rule: 'em',
      topk: 3,
      terms: { retrieval: 0, format: 0, format_penalty: 0 },
    });
  });

  it('names what is missing or wrong', () => {
    const problem = (value: unknown, format: 'auto' | 'search' = 'auto') => {
      const parsed = parse(value, format);
      return parsed.ok ? undefined : parsed.problem;
    };
    expect(problem({ question: 'q?' })).toMatch(
      /^search task: .*expected "answer" \(HotpotQA\) or "golden_answers" \(Search-R1\)/,
    );
    expect(problem({ question: 'q?', answer: 'a', reward: 'bleu' })).toMatch(/^search task: .*reward/);
    expect(problem({ name: 'x' }, 'search')).toMatch(/question/);
    expect(problem({ question: 'q?', answer: 'a', retrieval_reward: -0.5 })).toMatch(
      /^search task: .*retrieval_reward/,
    );
  });
});
