import { randomUUID } from 'node:crypto';
import { computeGsm8kScore, type EpisodeRequest, type Trajectory } from '@fusebox/tools';
import type { DemoCase } from './demo-cases';
import type { Gsm8kProblem } from './demo-data';
import { toolCallText } from './tool-call-text';

/** verl's system prompt for GSM8K with tools (the sample rollout in its sandbox design doc). */
export const GSM8K_SYSTEM_PROMPT =
  'You are a math expert. You are given a question and you need to solve it step by step. Reasoning step by ' +
  'step before any tool call. You should use the `calc_gsm8k_reward` tool after step by step solving the ' +
  'question, before generate final answer at least once and refine your answer if necessary. Put your final ' +
  'answer in the format of `#### <answer>`.';

/** The dump's `data_source`, as verl's datasets name theirs. */
export const GSM8K_DATA_SOURCE = 'fusebox-demo/gsm8k';

/**
 * One GSM8K episode to roll out: verl's prompt, the gsm8k tool's ground truth, and extras for the dump that
 * say which problem it was and, when scripted, what the model was scripted to do.
 */
export function gsm8kRequest(problem: Gsm8kProblem, scripted?: DemoCase): EpisodeRequest {
  return {
    requestId: randomUUID().replaceAll('-', ''),
    messages: [
      { role: 'system', content: GSM8K_SYSTEM_PROMPT },
      {
        role: 'user',
        content: `${problem.question} Let's think step by step and output the final answer after \`####\`.`,
      },
    ],
    toolsKwargs: { calc_gsm8k_reward: { create_kwargs: { ground_truth: problem.answer } } },
    groundTruth: problem.answer,
    extra: {
      data_source: GSM8K_DATA_SOURCE,
      task: problem.id,
      ...(scripted ? { case: scripted } : {}),
    },
  };
}

/** verl's GSM8K reward: the `#### <answer>` of the last assistant message against the ground truth. */
export function scoreGsm8k(trajectory: Trajectory): number {
  const last = trajectory.messages.findLast((message) => message.role === 'assistant');
  const truth = typeof trajectory.groundTruth === 'string' ? trajectory.groundTruth : null;
  return computeGsm8kScore(last?.content ?? '', truth, { method: 'strict' }).score;
}

/** The three assistant turns the scripted model plays for a problem in a case. */
export function gsm8kScript(problem: Gsm8kProblem, scripted: DemoCase): string[] {
  const { answer, reasoning } = problem;
  const think = `<think>\n${reasoning}\n</think>\n`;
  const run = (code: string, options?: { malformed: boolean }) =>
    toolCallText('code_interpreter', { code }, options);
  const final = `The program printed ${answer}, which answers the question.\n\n#### ${answer}`;
  switch (scripted) {
    case 'correct':
      return [
        `${think}Let me compute it with the code interpreter.\n${run(problem.code)}`,
        `The program printed ${answer}. Let me check this answer before I commit to it.\n` +
          toolCallText('calc_gsm8k_reward', { answer }),
        `The check agrees: the answer is ${answer}.\n\n#### ${answer}`,
      ];
    case 'wrong':
      return [
        `${think}Let me compute it with the code interpreter.\n${run(problem.mistake)}`,
        `The program printed ${problem.mistake_answer}. Let me check it.\n` +
          toolCallText('calc_gsm8k_reward', { answer: problem.mistake_answer }),
        `I am confident in the calculation.\n\n#### ${problem.mistake_answer}`,
      ];
    case 'malformed':
      return [
        `${think}Let me compute it with the code interpreter.\n${run(problem.code, { malformed: true })}`,
        `My tool call was cut short; here it is again.\n${run(problem.code)}`,
        final,
      ];
    case 'timeout':
      return [
        `${think}I'll count up to the total step by step.\n` +
          run(`total = 0\ncount = 0\nwhile total < ${answer}:\n    total + 1\n    count += 1\nprint(count)`),
        `The loop never ended: I wrote \`total + 1\` instead of \`total += 1\`. I'll compute it directly.\n` +
          run(problem.code),
        final,
      ];
    case 'crash':
      return [
        `${think}Let me compute it with the code interpreter.\n` +
          run(`${problem.code}\nprint(f"answer: {answer}")`),
        'The last line used a name I never defined. Running it again without that line.\n' +
          run(problem.code),
        final,
      ];
  }
}
