import type { GroupTally } from './demo-tally';
import type { DemoResult } from './run-demo';

const group = (tally: GroupTally) => ({
  episodes: tally.episodes,
  meanReward: tally.episodes ? tally.scoreSum / tally.episodes : null,
  toolCalls: tally.toolCalls,
  executions: tally.executions,
  executionMs: tally.executionMs,
  errors: tally.errors,
});

/**
 * The demo's result as JSON (`--report FILE`), for scripts and benchmarks: the run, the client's totals (per
 * task family and scripted case, tool-call time included) and what the server recorded.
 */
export function demoReport(result: DemoResult) {
  const { tally, settings } = result;
  return {
    run: { id: result.run.id, name: result.run.name, dir: settings.outDir, files: result.files },
    policy: settings.model ? { model: settings.model.name, url: settings.model.url } : 'scripted',
    apiUrl: settings.apiUrl,
    steps: settings.steps,
    concurrency: result.concurrency,
    limit: result.server.limit,
    seconds: result.seconds,
    all: group(tally.all),
    families: Object.fromEntries([...tally.families].map(([name, value]) => [name, group(value)])),
    cases: Object.fromEntries([...tally.cases].map(([name, value]) => [name, group(value)])),
    errors: Object.fromEntries(tally.errors),
    server: result.stats,
  };
}
