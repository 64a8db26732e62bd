import { randomUUID } from 'node:crypto';
import type { EpisodeRequest } from '@fusebox/tools';
import type { DemoCase } from './demo-cases';
import type { CodingTask } from './demo-data';
import { toolCallText } from './tool-call-text';

export const CODING_SYSTEM_PROMPT =
  'You are an expert Python programmer. Solve the task with the `run_python` tool: write the code, try it, ' +
  "and answer without a tool call when you are done. The task's tests then run in your session.";

/** The dump's `data_source`, as verl's datasets name theirs. */
export const CODING_DATA_SOURCE = 'fusebox-demo/coding';

/** A loop that only a timeout ends: the model "stress-tests" its code forever. */
const STRESS_FOREVER =
  'import random\n\n# stress-test with random inputs until something breaks\nwhile True:\n    random.random()';

/**
 * One coding episode to roll out: the task's prompt, the session tool's instance_hash, and extras for the dump
 * that say which task it was and, when scripted, what the model was scripted to do.
 */
export function codingRequest(task: CodingTask, scripted?: DemoCase): EpisodeRequest {
  return {
    requestId: randomUUID().replaceAll('-', ''),
    messages: [
      { role: 'system', content: CODING_SYSTEM_PROMPT },
      { role: 'user', content: task.prompt },
    ],
    toolsKwargs: { run_python: { create_kwargs: { instance_hash: task.instance_hash } } },
    groundTruth: task.instance_hash,
    extra: {
      data_source: CODING_DATA_SOURCE,
      task: task.name,
      instance_hash: task.instance_hash,
      ...(scripted ? { case: scripted } : {}),
    },
  };
}

/**
 * The three assistant turns the scripted model plays for a task in a case. The second call of a correct
 * episode relies on the first one's definitions: the session keeps them.
 */
export function codingScript(task: CodingTask, scripted: DemoCase): string[] {
  const { solution, mistake, check } = task.metadata;
  const run = (code: string, options?: { malformed: boolean }) =>
    toolCallText('run_python', { code }, options);
  const done = 'It works on the example, so I am done.';
  switch (scripted) {
    case 'correct':
      return [
        `I'll define it first.\n${run(solution)}`,
        `Now let me try it on an example.\n${run(check)}`,
        done,
      ];
    case 'wrong':
      return [
        `I'll define it first.\n${run(mistake)}`,
        `Now let me try it on an example.\n${run(check)}`,
        done,
      ];
    case 'malformed':
      return [
        `I'll define it first.\n${run(solution, { malformed: true })}`,
        `My tool call was cut short; here it is again, with an example.\n${run(`${solution}\n\n${check}`)}`,
        done,
      ];
    case 'timeout':
      return [
        `I'll define it and stress-test it.\n${run(`${solution}\n\n${STRESS_FOREVER}`)}`,
        `The stress test never stopped and the session was restarted, so I'll define it again and try one example.\n` +
          run(`${solution}\n\n${check}`),
        done,
      ];
    case 'crash':
      return [
        `Let me see what the example gives.\n${run(check)}`,
        `Of course: nothing is defined yet. Defining it first this time.\n${run(`${solution}\n\n${check}`)}`,
        done,
      ];
  }
}
