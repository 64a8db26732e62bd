import type { EpisodeRequest } from '@fusebox/tools';
import { codingRequest, codingScript } from './coding-episodes';
import { type DemoCase, caseFor } from './demo-cases';
import type { CodingTask, Gsm8kProblem } from './demo-data';
import type { TaskFamily } from './demo-tally';
import { gsm8kRequest, gsm8kScript } from './gsm8k-episodes';

/** One step's episodes per task family, and the scripted turns of each episode by request id. */
export interface StepPlan {
  episodes: Record<TaskFamily, EpisodeRequest[]>;
  scripts: Map<string, string[]>;
}

/** Each step starts further along the problem lists, so consecutive steps pose different problems. */
const STEP_OFFSET = 7;

/**
 * The episodes of one step (1-based): `episodes` in all, split evenly between the families, cycling through
 * the shipped problems and tasks. Scripted episodes get their case (see `caseFor`) and their turns; with a
 * real model, `scripted` is false and only the prompts are planned.
 */
export function planStep(
  step: number,
  {
    episodes,
    families,
    scripted,
    problems,
    tasks,
  }: {
    episodes: number;
    families: readonly TaskFamily[];
    scripted: boolean;
    problems: readonly Gsm8kProblem[];
    tasks: readonly CodingTask[];
  },
): StepPlan {
  const scripts = new Map<string, string[]>();
  const gsm8kCount = families.includes('gsm8k')
    ? families.includes('coding')
      ? Math.ceil(episodes / 2)
      : episodes
    : 0;
  const counts: Record<TaskFamily, number> = { gsm8k: gsm8kCount, coding: episodes - gsm8kCount };
  const plan = <T>(
    items: readonly T[],
    count: number,
    request: (item: T, scriptedCase?: DemoCase) => EpisodeRequest,
    script: (item: T, scriptedCase: DemoCase) => string[],
  ): EpisodeRequest[] =>
    Array.from({ length: count }, (_, index) => {
      const item = items[(index + (step - 1) * STEP_OFFSET) % items.length] as T;
      const scriptedCase = scripted ? caseFor(index, step) : undefined;
      const episode = request(item, scriptedCase);
      if (scriptedCase) scripts.set(episode.requestId as string, script(item, scriptedCase));
      return episode;
    });
  const gsm8k = plan(problems, counts.gsm8k, gsm8kRequest, gsm8kScript);
  const coding = plan(tasks, counts.coding, codingRequest, codingScript);
  return { episodes: { gsm8k, coding }, scripts };
}
