// Python runs that find no zygote idle (issue 16): going cold at once against waiting `pythonZygoteWaitMs` for a
// zygote to come back. Two executors of this checkout in one process (zygotes on, every other setting at its
// default, concurrency 16), print(1) runs 16 at a time, passes interleaved.
//
// node --conditions=@fusebox/source --import tsx bench/executor/zygote-wait.ts
import { cpus, loadavg } from 'node:os';
import { type Executor, createExecutor } from '@fusebox/local-sandbox/executor';
import { writeResults } from '../write-results';
import { printRuns } from './print-runs';

const CONCURRENCY = 16;
const RUNS = 240;
const PASSES = 2;
const SETTINGS = { 'no wait (0 ms)': 0, 'wait 100 ms': 100, 'wait 300 ms (default)': 300 } as const;

async function measure(executor: Executor) {
  const forkedBefore = executor.stats().forkedRuns;
  const { latencies, seconds } = await printRuns(executor, CONCURRENCY, RUNS);
  latencies.sort((a, b) => a - b);
  return {
    p50: latencies[Math.floor(latencies.length / 2)] as number,
    perSecond: RUNS / seconds,
    forked: executor.stats().forkedRuns - forkedBefore,
  };
}

const loadBefore = loadavg()[0] ?? 0;
const executors = new Map<string, Executor>();
for (const [label, waitMs] of Object.entries(SETTINGS)) {
  executors.set(
    label,
    await createExecutor({
      concurrency: CONCURRENCY,
      pythonZygote: true,
      pythonZygoteWaitMs: waitMs,
      warn: () => {},
    }),
  );
}
await new Promise((resolve) => setTimeout(resolve, 2_000));
const rows: string[] = [];
for (let pass = 1; pass <= PASSES; pass += 1) {
  for (const [label, executor] of executors) {
    const { p50, perSecond, forked } = await measure(executor);
    rows.push(`| ${pass} | ${label} | ${p50.toFixed(0)} | ${perSecond.toFixed(1)} | ${forked} / ${RUNS} |`);
    console.error(rows.at(-1));
  }
}
await Promise.all([...executors.values()].map((executor) => executor.close()));

const markdown = `# Zygote wait

Command: \`node --conditions=@fusebox/source --import tsx bench/executor/zygote-wait.ts\`
Date: ${new Date().toISOString()}; ${cpus().length} cores; load average ${loadBefore.toFixed(1)} before,
${(loadavg()[0] ?? 0).toFixed(1)} after (a shared machine).

Python \`print(1)\`, ${CONCURRENCY} at a time, ${RUNS} runs per measurement, \`pythonZygote\` on with its default
zygotes (2 × cores), both executors in one process, passes interleaved. Forked: runs that got a zygote (the
others started a sandbox and an interpreter of their own).

| pass | executor | p50 ms | exec/s | forked |
| --- | --- | --- | --- | --- |
${rows.join('\n')}
`;
console.log(markdown);
await writeResults(new URL('./ZYGOTE-WAIT.md', import.meta.url), markdown);
