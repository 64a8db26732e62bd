import type { EpisodeRequest } from '@fusebox/tools';
import { codingRequest, codingScript } from './coding-episodes';
import { type DemoCase, caseFor } from './demo-cases';
import type { CodingTask, Gsm8kProblem, SearchQuestion } from './demo-data';
import { TASK_FAMILIES, type TaskFamily } from './demo-tally';
import { gsm8kRequest, gsm8kScript } from './gsm8k-episodes';
import { searchRequest, searchScript } from './search-episodes';

/** One step's episodes per task family, and the scripted turns of each episode by request id. */
export interface StepPlan {
  episodes: Record<TaskFamily, EpisodeRequest[]>;
  scripts: Map<string, string[]>;
}

/** Each step starts further along the problem lists, so consecutive steps pose different problems. */
const STEP_OFFSET = 7;

/**
 * The episodes of one step (1-based): `episodes` in all, split evenly between the families (the first ones get
 * the remainder), cycling through the shipped problems, tasks and questions. Scripted episodes get their case (see `caseFor`) and their turns; with a
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
    questions,
  }: {
    episodes: number;
    families: readonly TaskFamily[];
    scripted: boolean;
    problems: readonly Gsm8kProblem[];
    tasks: readonly CodingTask[];
    questions: readonly SearchQuestion[];
  },
): StepPlan {
  const scripts = new Map<string, string[]>();
  const chosen = TASK_FAMILIES.filter((family) => families.includes(family));
  const counts = Object.fromEntries(
    TASK_FAMILIES.map((family) => {
      const at = chosen.indexOf(family);
      const share = Math.floor(episodes / chosen.length) + (at < episodes % chosen.length ? 1 : 0);
      return [family, at < 0 ? 0 : share];
    }),
  ) as Record<TaskFamily, number>;
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
  const search = plan(questions, counts.search, searchRequest, searchScript);
  return { episodes: { gsm8k, coding, search }, scripts };
}
