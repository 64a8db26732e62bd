// How long a restart of `fusebox serve` takes until /v1/ping answers (issue #20: 12 s idle, up to 56 s under
// load, compiling the TypeScript on every start). Compares, on the same database and in alternating rounds so
// that all see the same machine load: the TypeScript through tsx, and bin/fusebox.js, which checks that the
// build (apps/api/dist/cli.js, apps/api/scripts/build.mjs) is fresh and runs it; with --baseline, also the
// bin/fusebox.js of that commit running its own build (see buildAtCommit), the old and the new side by side in
// one run, and ratios are against it. Each is started on a database migrated already (a restart, not a first
// start), embedded and on Postgres, without the dashboard.
// Usage: node --conditions=@fusebox/source --import tsx bench/api/restart.ts [--rounds N] [--baseline COMMIT]
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  createEmbeddedTestDatabase,
  createPostgresTestDatabase,
  type TestDatabase,
} from '@fusebox/db/testing';
import { FUSEBOX, processCpuMs as cpuMs } from '../run-fusebox';
import { writeResults } from '../write-results';
import { buildAtCommit } from './baseline-build';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/api/restart.ts';
const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const TSX = 'TypeScript (tsx)';
const BIN = 'bin/fusebox.js (build fresh)';
/** How each start is run: node's arguments before `serve`, by the name the table gives it. */
type Starts = Map<string, string[]>;
const PORT = 18_900;

interface Timing {
  /** From spawning to the first 200 of /v1/ping. */
  ms: number;
  /** The server's CPU time by then: what a start costs whatever else the machine runs. */
  cpu: number;
}

/** Starts `fusebox serve` the given way; resolves to how long until /v1/ping answered 200, after stopping it. */
async function timeRestart(start: string, args: string[], database: TestDatabase): Promise<Timing> {
  const began = performance.now();
  const child = spawn(process.execPath, [...args, 'serve', '--no-dashboard'], {
    env: { ...process.env, ...database.env, PORT: String(PORT), FUSEBOX_LOG_FORMAT: 'json' },
    stdio: 'ignore',
  });
  const exited = once(child, 'exit');
  let timing: Timing | undefined;
  while (timing === undefined && child.exitCode === null) {
    const answer = await fetch(`http://127.0.0.1:${PORT}/v1/ping`).catch(() => undefined);
    if (answer?.status === 200) timing = { ms: performance.now() - began, cpu: cpuMs(child.pid!) };
    else await sleep(20);
  }
  child.kill('SIGTERM');
  await exited;
  if (timing === undefined) throw new Error(`${start} exited with ${child.exitCode} before answering`);
  return timing;
}

/** Builds the CLI as `npm run setup` does. */
function build(): void {
  const built = spawnSync(process.execPath, [path('../../apps/api/scripts/build.mjs')], { stdio: 'ignore' });
  if (built.status !== 0) throw new Error('the build failed');
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rounds: { type: 'string', default: '5' }, baseline: { type: 'string' } },
  });
  const rounds = Number(values.rounds);
  const starts: Starts = new Map([
    [TSX, ['--conditions=@fusebox/source', '--import', 'tsx', path('../../apps/api/src/cli.ts')]],
  ]);
  const baseline = values.baseline ? buildAtCommit(values.baseline) : undefined;
  if (baseline) starts.set(`build at ${values.baseline}`, [baseline.bin]);
  starts.set(BIN, [FUSEBOX]);
  const reference = values.baseline ? `build at ${values.baseline}` : TSX;
  build();
  const loadBefore = loadavg();
  const rows: string[] = [];
  for (const [mode, create] of [
    ['embedded', createEmbeddedTestDatabase],
    ['Postgres', createPostgresTestDatabase],
  ] as const) {
    const database = await create();
    try {
      // The first start migrates; what is measured are restarts, each way's files read once already.
      for (const [start, args] of starts) await timeRestart(start, args, database);
      const samples = new Map<string, Timing[]>();
      for (let round = 0; round < rounds; round += 1) {
        for (const [start, args] of starts) {
          // The bin runs the TypeScript once a source is newer than the build (others edit this checkout as it
          // runs): rebuild as setup would, untimed.
          if (start === BIN) build();
          samples.set(start, [...(samples.get(start) ?? []), await timeRestart(start, args, database)]);
        }
      }
      const before = samples.get(reference)!;
      for (const [start, timings] of samples) {
        const ms = timings.map((timing) => timing.ms);
        const cpu = median(timings.map((timing) => timing.cpu));
        const sorted = [...ms].sort((a, b) => a - b);
        const cpuBefore = median(before.map((timing) => timing.cpu));
        rows.push(
          `| ${mode} | ${start} | ${median(ms).toFixed(0)} | ${sorted[0]!.toFixed(0)} | ${sorted.at(-1)!.toFixed(0)} | ${(median(ms) / median(before.map((timing) => timing.ms))).toFixed(2)} | ${cpu.toFixed(0)} | ${(cpu / cpuBefore).toFixed(2)} |`,
        );
      }
    } finally {
      await database.drop();
    }
  }
  baseline?.remove();
  const loadAfter = loadavg();
  const markdown = [
    '# Restart time of `fusebox serve`',
    '',
    `Command: \`${COMMAND} --rounds ${rounds}${values.baseline ? ` --baseline ${values.baseline}` : ''}\``,
    `Date: ${new Date().toISOString()}`,
    `Load average ${loadBefore.map((n) => n.toFixed(1)).join(' ')} before, ${loadAfter.map((n) => n.toFixed(1)).join(' ')} after (2 cores, shared with other work)`,
    '',
    `From spawning the process to the first 200 of /v1/ping, on a database migrated already, without the dashboard; ${rounds} rounds, the starts alternating in each. Ratio: median against the ${reference}'s. CPU: the server process's user + system time by its first answer, which depends little on what else the machine runs (wall time on a loaded 2-core machine does).`,
    '',
    '| database | start | median ms | min ms | max ms | ratio | CPU ms (median) | CPU ratio |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
  await writeResults(new URL('./RESTART.md', import.meta.url), markdown);
  console.log(markdown);
}

await main();
