import { DEMO_CASES } from './demo-cases';
import { describeErrors } from './demo-progress';
import type { GroupTally } from './demo-tally';
import type { DemoResult } from './run-demo';
import { textTable } from './text-table';

const mean = (group: GroupTally) => (group.episodes ? (group.scoreSum / group.episodes).toFixed(2) : '–');
const percent = (part: number, whole: number) => (whole > 0 ? `${Math.round((100 * part) / whole)}%` : '–');

/**
 * What the terminal shows at the end: totals, a table per task family and per scripted case (so right and
 * wrong answers can be seen scoring 1 and 0), errors by kind, what the server recorded (how many executions,
 * how many held a permit at once against the limit, how long they waited for one), and the dashboard pages to
 * open next.
 */
export function demoSummary(result: DemoResult): string {
  const { tally, stats, seconds, settings, run } = result;
  const { all } = tally;
  const families = textTable(
    ['tasks', 'episodes', 'mean reward', 'tool calls', 'executions', 'errors'],
    [...tally.families, ['all', all] as const].map(([name, group]) => [
      name,
      String(group.episodes),
      mean(group),
      String(group.toolCalls),
      String(group.executions),
      String(group.errors),
    ]),
  );
  const cases = DEMO_CASES.flatMap((name) => {
    const group = tally.cases.get(name);
    return group ? [[name, String(group.episodes), mean(group)]] : [];
  });
  const statuses = Object.entries(stats.byStatus)
    .sort((a, b) => b[1] - a[1])
    .map(([status, count]) => `${status} ${count}`)
    .join(', ');
  const dashboard = settings.dashboardUrl;
  return [
    `Done: ${all.episodes} episodes in ${seconds.toFixed(1)} s (${(all.episodes / seconds).toFixed(1)} episodes/s), ` +
      `${all.executions} executions (${(all.executions / seconds).toFixed(1)}/s), mean reward ${mean(all)}.`,
    '',
    families,
    ...(cases.length ? ['', textTable(['scripted case', 'episodes', 'mean reward'], cases)] : []),
    '',
    `errors by kind: ${describeErrors(tally.errors)}`,
    `server: ${stats.executions} executions recorded during the demo (tool calls and reward tests)${statuses ? `: ${statuses}` : ''}; ` +
      `at most ${stats.peakInFlight} held a permit at once (limit ${result.server.limit ?? 'unknown'}); ` +
      `they spent ${percent(stats.limiterWaitMs, stats.serverMs)} of their time waiting for one.`,
    '',
    'Open the dashboard:',
    `  overview    ${dashboard}/`,
    `  rollouts    ${dashboard}/rollouts/${run.id}`,
    `  sessions    ${dashboard}/sessions`,
    `  executions  ${dashboard}/executions`,
    `Dumps: ${result.files.join(', ')}`,
  ].join('\n');
}
