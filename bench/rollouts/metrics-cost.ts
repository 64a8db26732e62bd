// What counting each response's metrics adds to the import's CPU: responseMetrics() against JSON.parse of the
// same lines, side by side in one run, on the synthetic dump of bench/rollouts/run.ts (2 steps × 1000 samples).
// Usage: node --conditions=@fusebox/source --import tsx bench/rollouts/metrics-cost.ts
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { responseMetrics } from '@fusebox/rollouts';
import { writeSyntheticDump } from './synthetic-dump';

const ROUNDS = 5;
const dir = join(tmpdir(), 'fusebox-bench-metrics-cost');
const dump = await writeSyntheticDump({ dir, steps: 2, samplesPerStep: 1000 });
const lines = (await Promise.all(dump.files.map((file) => readFile(file, 'utf8'))))
  .flatMap((text) => text.split('\n'))
  .filter(Boolean);
const outputs = lines.map((line) => (JSON.parse(line) as { output: string }).output);

function time(work: () => void): number {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

let sink = 0;
const parse = time(() => {
  for (const line of lines) sink += (JSON.parse(line) as { score: number }).score;
});
const metrics = time(() => {
  for (const output of outputs) sink += responseMetrics(output).turns;
});
const mb = dump.bytes / 1e6;
console.log(
  `| work, ${lines.length} samples (${mb.toFixed(0)} MB) | median of ${ROUNDS} | MB/s | vs JSON.parse |`,
);
console.log('| --- | --- | --- | --- |');
console.log(
  `| JSON.parse of each line (baseline) | ${parse.toFixed(0)} ms | ${(mb / (parse / 1000)).toFixed(0)} | 1.00 |`,
);
console.log(
  `| responseMetrics of each output | ${metrics.toFixed(0)} ms | ${(mb / (metrics / 1000)).toFixed(0)} | ${(metrics / parse).toFixed(2)} |`,
);
if (sink === -1) console.log(sink);
await rm(dir, { recursive: true, force: true });
