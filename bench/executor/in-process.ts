// The executor alone, in a process of its own, for bench/executor/run.ts: its idle RSS, and a session cell and a
// /run_code-equivalent call without HTTP, the global limiter or recording. Prints one JSON line.
import { readFileSync } from 'node:fs';
import { createExecutor } from '@fusebox/local-sandbox/executor';

const CELLS = 2_000;
const RUNS = 100;

const rssMB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;

async function timed(calls: number, call: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const latencies: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const started = performance.now();
    await call();
    if (i >= calls / 10) latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return {
    p50: latencies[Math.floor(latencies.length / 2)]!,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
  };
}

const executor = await createExecutor({ warn: () => {} });
await new Promise((resolve) => setTimeout(resolve, 3_000));
const idleRssMB = rssMB();
const session = await executor.sessions.create();
const cell = await timed(CELLS, () => executor.sessions.run(session.id, '1 + 1'));
const runCode = await timed(RUNS, () => executor.runCode({ code: 'print(1)', language: 'python' }));
await executor.close();
console.log(JSON.stringify({ idleRssMB, cell, runCode }));
