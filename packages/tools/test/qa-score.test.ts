import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  computeQaScore,
  coverExactMatch,
  exactMatch,
  extractAnswerTag,
  normalizeAnswer,
  subExactMatch,
  tokenF1,
} from '../src/qa-score';

const REFERENCE = fileURLToPath(new URL('./python/qa_reference.py', import.meta.url));

/** Cases where JavaScript and Python, or SQuAD's rules, are easy to get wrong. */
const CASES: { prediction: string; golden: string[] }[] = [
  { prediction: 'The Beatles', golden: ['Beatles'] },
  { prediction: 'an apple a day', golden: ['apple day'] },
  { prediction: 'Théa and the sea', golden: ['théa sea'] }, // `a` inside a Unicode word is no article
  { prediction: 'São Paulo, Brazil.', golden: ['sao paulo', 'São Paulo'] },
  { prediction: '“Paris”', golden: ['paris'] }, // curly quotes are not ASCII punctuation: they stay
  { prediction: 'U.S.A.', golden: ['usa'] },
  { prediction: 'x\u001fy', golden: ['x y'] }, // Python splits on U+001F, JavaScript's \s does not
  { prediction: 'x\ufeffy', golden: ['x y'] }, // JavaScript's \s has U+FEFF, Python's split does not
  { prediction: 'a\u00a0b\u3000c', golden: ['a b c'] },
  { prediction: 'Barack Obama', golden: ['Obama'] },
  { prediction: 'yes', golden: ['no'] },
  { prediction: 'yes it is', golden: ['yes'] },
  { prediction: 'new york new york', golden: ['new york'] },
  { prediction: 'it was Paris, France', golden: ['Paris'] },
  { prediction: '', golden: ['anything'] },
  { prediction: 'the', golden: [''] },
  { prediction: '<answer>London</answer> no wait <answer>\n Paris \u0085</answer>', golden: ['paris'] },
  { prediction: `${'<answer>Paris</answer>'.repeat(11)}`, golden: ['Paris'] },
  { prediction: '<answer>Paris, France</answer>', golden: ['Paris'] },
  { prediction: '<answer>Paris</answer', golden: ['Paris'] },
  { prediction: '<answer>multi\nline</answer>', golden: ['multi line'] },
  { prediction: 'Obama, Barack', golden: ['Barack Obama'] }, // cover: any order
  { prediction: 'new_york city', golden: ['New York'] }, // cover: `_` is a space
  { prediction: 'True', golden: ['yes'] }, // cover: True reads as yes
  { prediction: 'true', golden: ['yes'] },
  { prediction: 'the Barack', golden: ['Barack Obama'] },
];

interface Reference {
  normalized: string;
  em: number;
  subem: number;
  f1: number;
  cover: number;
  answer: string | null;
  score_em: number;
  score_subem: number;
}

describe("QA scores, in parity with verl's search_r1_like_qa_em and HotpotQA's F1", () => {
  const reference = JSON.parse(
    execFileSync('/usr/bin/python3', [REFERENCE], { input: JSON.stringify(CASES), encoding: 'utf8' }),
  ) as Reference[];

  it.each(CASES.map((testCase, index) => [JSON.stringify(testCase.prediction), testCase, index] as const))(
    'scores %s as the Python reference does',
    (_name, { prediction, golden }, index) => {
      const expected = reference[index]!;
      expect({
        normalized: normalizeAnswer(prediction),
        em: exactMatch(prediction, golden),
        subem: subExactMatch(prediction, golden),
        cover: coverExactMatch(prediction, golden),
        answer: extractAnswerTag(prediction),
        score_em: computeQaScore(prediction, golden),
        score_subem: computeQaScore(prediction, golden, { match: 'subem' }),
      }).toEqual({
        normalized: expected.normalized,
        em: expected.em,
        subem: expected.subem,
        cover: expected.cover,
        answer: expected.answer,
        score_em: expected.score_em,
        score_subem: expected.score_subem,
      });
      expect(tokenF1(prediction, golden)).toBeCloseTo(expected.f1, 12);
    },
  );

  it('gives the values these rules define (so the reference is not the only judge)', () => {
    expect(normalizeAnswer('The  Eiffel-Tower!')).toBe('eiffeltower');
    expect(normalizeAnswer('Théa')).toBe('théa');
    expect(tokenF1('Barack Obama', 'Obama')).toBeCloseTo(2 / 3, 12);
    expect(tokenF1('yes it is', 'yes')).toBe(0); // a yes/no answer scores only when it is exactly that
    expect(tokenF1('new york city', 'new york')).toBe(0.8);
    expect(computeQaScore('<answer>Paris</answer>'.repeat(11), ['Paris'])).toBe(0.25);
    expect(computeQaScore('no tag', ['Paris'])).toBe(0);
    expect(coverExactMatch('Obama, Barack', 'Barack Obama')).toBe(1);
    expect(coverExactMatch('Barack', 'Barack Obama')).toBe(0);
    expect(coverExactMatch('False', 'no')).toBe(1);
    expect(computeQaScore('<answer>Rome</answer>', ['Paris'], { formatScore: 0.1 })).toBe(0.1);
  });

  it('reads an answer the model padded or left open in one pass', { timeout: 20_000 }, () => {
    // `\s+$` and a lazy tag regex retried from every space and every unclosed tag: the old code took 69 s for
    // these two.
    const spaces = ' '.repeat(200_000);
    expect(extractAnswerTag(`<answer>${spaces}x${spaces}y\u3000\n</answer>`)).toBe(`x${spaces}y`);
    expect(extractAnswerTag(`<answer>a</answer>${'<answer>'.repeat(100_000)}`)).toBe('a');
  });
});
