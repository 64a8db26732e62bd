import { readdir } from 'node:fs/promises';
import { runBatch, type Trajectory, writeVerlDump } from '@fusebox/tools';
import { openImporter, type Importer } from '@fusebox/local-import';
import type { RunRef } from '@fusebox/rollouts';
import {
  CODING_TASKS_PATH,
  SEARCH_CORPUS_NAME,
  SEARCH_CORPUS_PATH,
  loadCodingTasks,
  loadGsm8kProblems,
  loadSearchQuestions,
} from './demo-data';
import type { DemoSettings } from './demo-options';
import { demoPolicy } from './demo-policy';
import { DemoSetupError } from './demo-setup-error';
import { DemoTally, TASK_FAMILIES, type TaskFamily, callOutcome } from './demo-tally';
import { createDemoTools } from './demo-tools';
import { type ExecutionStats, readExecutionStats } from './execution-stats';
import { fuseboxApi } from './fusebox-api';
import { scoreGsm8k } from './gsm8k-episodes';
import { SEARCH_RESPONSE_CHARS, scoreSearch } from './search-episodes';
import { type ServerInfo, checkServer } from './server-check';
import type { KeyLoad } from '@fusebox/api-router';
import { gateLoad, watchServerLoad } from './server-load';
import { planStep } from './step-plan';

/** verl's `rate_limit` default, and Fusebox's: the limit assumed when the server's cannot be read. */
const DEFAULT_LIMIT = 10;
/** Episodes in flight per permit, by default: enough that executions queue at the server's limiter. */
const EPISODES_PER_PERMIT = 4;
/** Prisma's code for an interactive transaction that ran past its timeout. */
const TRANSACTION_EXPIRED = 'P2028';

/** What the demo reports as it goes: the totals so far, the step, and the server's limiter right now. */
export interface DemoProgress {
  tally: DemoTally;
  step: number;
  steps: number;
  server: KeyLoad | undefined;
}

export interface DemoIo {
  onProgress(progress: DemoProgress): void;
  /** A line worth keeping: the start, each step's dump and import. */
  log(line: string): void;
}

/** Everything a finished demo can tell. */
export interface DemoResult {
  settings: DemoSettings;
  server: ServerInfo;
  concurrency: number;
  run: RunRef;
  files: string[];
  tally: DemoTally;
  seconds: number;
  stats: ExecutionStats;
}

/**
 * The whole product doing its job: checks the server, imports the coding tasks, then for each step rolls out
 * a batch of GSM8K and coding episodes at once (tool calls through the server's limiter into its sandbox,
 * rewards from the gsm8k score and the tasks' tests), writes the step's verl dump and imports it for the
 * rollout browser. Ends with what the server recorded of the demo's executions. An abort stops it between
 * tool calls, with everything opened closed again.
 */
export async function runDemo(settings: DemoSettings, io: DemoIo, signal: AbortSignal): Promise<DemoResult> {
  const api = fuseboxApi(settings.apiUrl, settings.token);
  const server = await checkServer(api, settings, signal);
  await assertNoDump(settings.outDir);
  const concurrency = settings.concurrency ?? EPISODES_PER_PERMIT * (server.limit ?? DEFAULT_LIMIT);
  const [problems, tasks, questions] = await Promise.all([
    loadGsm8kProblems(),
    loadCodingTasks(),
    loadSearchQuestions(),
  ]);
  const coding = settings.families.includes('coding');

  // Embedded, the server holds the database: the imports and the statistics at the end go through it.
  const { importer } = await openImporter(settings.database, { apiToken: settings.token, maxConnections: 2 });
  const tools = createDemoTools(api, { ...settings, concurrency });
  const stopWatching = new AbortController();
  try {
    if (coding) await importCodingTasks(importer);
    if (settings.families.includes('search')) await importSearchCorpus(importer);
    const tally = new DemoTally();
    tally.planned = settings.episodes * settings.steps;
    io.log(
      `Fusebox ${server.version} at ${settings.apiUrl}: ${settings.model ? `model ${settings.model.name}` : 'scripted policy'}, ` +
        `${tally.planned} episodes in ${settings.steps} steps, ${concurrency} in flight against a global limit of ` +
        `${server.limit ?? 'unknown'}; dumps in ${settings.outDir}`,
    );
    const load = watchServerLoad(api, AbortSignal.any([signal, stopWatching.signal]));
    const from = new Date();
    let scripts = new Map<string, string[]>();
    const generate = demoPolicy(settings.model, (requestId) => scripts.get(requestId));
    const files: string[] = [];
    let run: RunRef | undefined;
    for (let step = 1; step <= settings.steps; step += 1) {
      const plan = planStep(step, {
        ...settings,
        scripted: !settings.model,
        problems,
        tasks,
        questions,
      });
      scripts = plan.scripts;
      const report = () =>
        io.onProgress({
          tally,
          step,
          steps: settings.steps,
          server: gateLoad(load.latest() ?? [], settings.limiterKey),
        });
      const timer = setInterval(report, 1_000);
      const batch = (family: TaskFamily, share: number) =>
        plan.episodes[family].length === 0
          ? Promise.resolve([])
          : runBatch(plan.episodes[family], {
              generate,
              tools: tools.byFamily[family],
              limits: {
                maxAssistantTurns: settings.maxTurns,
                ...(family === 'search' ? { maxToolResponseLength: SEARCH_RESPONSE_CHARS } : {}),
              },
              ...(family === 'coding' ? {} : { score: family === 'gsm8k' ? scoreGsm8k : scoreSearch }),
              concurrency: share,
              signal,
              onProgress: ({ trajectory }) => {
                tally.add(family, trajectory);
                report();
              },
            });
      const shares = splitConcurrency(concurrency, plan.episodes);
      let trajectories: Trajectory[];
      try {
        trajectories = (
          await Promise.all(TASK_FAMILIES.map((family) => batch(family, shares[family])))
        ).flat();
      } finally {
        clearInterval(timer);
      }
      const file = await writeVerlDump(settings.outDir, step, trajectories.map(withDumpExtras), { signal });
      const imported = await importer.importDump({ dir: settings.outDir, name: settings.runName });
      run = imported.run;
      files.push(file);
      io.log(
        `step ${step}/${settings.steps}: ${file}, ${imported.added} samples imported into run "${run.name}"`,
      );
    }
    const stats = await readExecutionStats(importer.reader, from, new Date());
    return {
      settings,
      server,
      concurrency,
      run: run as RunRef,
      files,
      tally,
      seconds: tally.elapsedSeconds(),
      stats,
    };
  } finally {
    stopWatching.abort();
    await tools.close();
    await importer.close();
  }
}

/** A rerun into a directory that holds a dump would mix two runs' steps; the importer could not tell them apart. */
async function assertNoDump(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => []);
  if (names.some((name) => name.endsWith('.jsonl'))) {
    throw new DemoSetupError(
      `${dir} already holds a rollout dump; pass a new --out (or --name) for this run`,
    );
  }
}

async function importCodingTasks(importer: Importer): Promise<void> {
  const problems: string[] = [];
  const load = () =>
    importer.importTasks({
      path: CODING_TASKS_PATH,
      format: 'fusebox',
      onProblem: ({ line, problem }) => problems.push(`line ${line}: ${problem}`),
    });
  await load().catch((error: unknown) => {
    // A fresh process compiles Prisma's queries inside the import's transaction, and on a loaded machine that
    // alone can outlast the transaction's 5 s timeout (P2028). The second attempt runs with them compiled.
    if ((error as { code?: string }).code !== TRANSACTION_EXPIRED) throw error;
    return load();
  });
  // The file ships with Fusebox: a rejected line is a bug here, not the user's to fix.
  if (problems.length > 0) throw new Error(`${CODING_TASKS_PATH} is invalid:\n${problems.join('\n')}`);
}

/** Episodes in flight per family, in proportion to their sizes, each family at least one. */
function splitConcurrency(
  concurrency: number,
  episodes: Record<TaskFamily, readonly unknown[]>,
): Record<TaskFamily, number> {
  const total = TASK_FAMILIES.reduce((sum, family) => sum + episodes[family].length, 0);
  return Object.fromEntries(
    TASK_FAMILIES.map((family) => [
      family,
      Math.max(1, Math.round((concurrency * episodes[family].length) / Math.max(1, total))),
    ]),
  ) as Record<TaskFamily, number>;
}

/** The search questions' corpus, imported (or found already imported) before the first search. */
async function importSearchCorpus(importer: Importer): Promise<void> {
  const problems: string[] = [];
  await importer.importCorpus({
    path: SEARCH_CORPUS_PATH,
    name: SEARCH_CORPUS_NAME,
    onProblem: ({ line, problem }) => problems.push(`line ${line}: ${problem}`),
  });
  // The file ships with Fusebox: a rejected line is a bug here, not the user's to fix.
  if (problems.length > 0) throw new Error(`${SEARCH_CORPUS_PATH} is invalid:\n${problems.join('\n')}`);
}

/**
 * The dump line's extras beyond the request's (data_source, task, case): per-episode numbers the rollout
 * browser can filter on, and the session id that links a coding episode to its session in the dashboard.
 */
function withDumpExtras(trajectory: Trajectory): Trajectory {
  const outcomes = trajectory.toolCalls.map(callOutcome);
  const sid = trajectory.toolCalls.map((call) => call.metrics.sid).find((value) => typeof value === 'string');
  return {
    ...trajectory,
    extra: {
      ...trajectory.extra,
      acc: trajectory.score >= 1,
      turns: trajectory.turns.assistant,
      tool_calls: trajectory.toolCalls.length,
      tool_errors: outcomes.filter((outcome) => outcome.error !== null).length,
      finish_reason: trajectory.finishReason,
      ...(typeof sid === 'string' ? { sid } : {}),
    },
  };
}
