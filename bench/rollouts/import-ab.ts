// The import of a verl dump, side by side with a commit's build: the same synthetic dump (generated once) is
// imported by the build of this checkout's HEAD and by the baseline's (both built alike, see buildAtCommit), in
// turn, each into a fresh database that this checkout migrated, for a number of rounds; the table gives the
// median import time of each and their ratio.
// Usage: node --import tsx bench/rollouts/import-ab.ts --baseline COMMIT [--rounds 2] [--steps 100]
// [--samples-per-step 1000]
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildAtCommit } from '../api/baseline-build';
import { runFusebox } from '../run-fusebox';
import { writeResults } from '../write-results';
import { writeSyntheticDump } from './synthetic-dump';

const DATABASE = 'fusebox_bench_import_ab';
const DATABASE_URL = `postgresql://postgres@127.0.0.1:5432/${DATABASE}`;

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    steps: { type: 'string', default: '100' },
    'samples-per-step': { type: 'string', default: '1000' },
  },
});
const positive = (name: string, text: string | undefined) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a positive integer, not ${text}`);
  return value;
};
if (!values.baseline) throw new Error('--baseline COMMIT is required: the build to compare with');
const rounds = positive('rounds', values.rounds);
const steps = positive('steps', values.steps);
const samplesPerStep = positive('samples-per-step', values['samples-per-step']);

async function freshDatabase(): Promise<void> {
  const admin = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.end();
  const migrated = await runFusebox(['db', 'migrate'], { DATABASE_URL });
  if (migrated.code !== 0) throw new Error(migrated.out);
}

/** Imports `dir` with the CLI at `bin` into a fresh database; its wall-clock seconds. */
async function importWith(bin: string, dir: string): Promise<number> {
  await freshDatabase();
  const started = performance.now();
  const out = execFileSync(process.execPath, [bin, 'rollouts', 'import', dir, '--name', 'import-ab'], {
    env: { ...process.env, DATABASE_URL },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seconds = (performance.now() - started) / 1000;
  if (!/imported/i.test(out)) throw new Error(`the import said: ${out}`);
  return seconds;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const loadBefore = loadavg()[0]!;
const dir = join(tmpdir(), `fusebox-bench-import-ab-${steps}x${samplesPerStep}`);
process.stderr.write(`generating ${steps} steps × ${samplesPerStep} samples in ${dir} …\n`);
await rm(dir, { recursive: true, force: true });
const dump = await writeSyntheticDump({ dir, steps, samplesPerStep });
const baseline = buildAtCommit(values.baseline, { newerSchema: true });
const ours = buildAtCommit('HEAD');
const seconds: Record<'ours' | 'baseline', number[]> = { ours: [], baseline: [] };
try {
  for (let round = 1; round <= rounds; round += 1) {
    for (const side of ['ours', 'baseline'] as const) {
      process.stderr.write(`round ${round} of ${rounds}: ${side} …\n`);
      seconds[side].push(await importWith(side === 'ours' ? ours.bin : baseline.bin, dir));
    }
  }
} finally {
  baseline.remove();
  ours.remove();
  await rm(dir, { recursive: true, force: true });
}
const [ourMedian, theirs] = [median(seconds.ours), median(seconds.baseline)];
const table = [
  `| measure (median of ${rounds} rounds) | this checkout's HEAD | baseline ${values.baseline.slice(0, 7)} | ratio |`,
  '| --- | --- | --- | --- |',
  `| import of ${(steps * samplesPerStep).toLocaleString('en-US')} samples (${(dump.bytes / 1e9).toFixed(2)} GB), s | ${ourMedian.toFixed(1)} | ${theirs.toFixed(1)} | ${(ourMedian / theirs).toFixed(2)}× |`,
  `| each round, s | ${seconds.ours.map((s) => s.toFixed(1)).join(', ')} | ${seconds.baseline.map((s) => s.toFixed(1)).join(', ')} | |`,
].join('\n');
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
console.log(table);
await writeResults(
  new URL('IMPORT-AB.md', import.meta.url),
  `# Importing a dump, side by side with a baseline\n\n` +
    `- Command: \`node --import tsx bench/rollouts/import-ab.ts --baseline ${values.baseline} --rounds ${rounds}\`\n` +
    `- This checkout: ${commit}; date ${new Date().toISOString()}; load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after\n` +
    `- Data: ${steps} steps × ${samplesPerStep} samples from \`bench/rollouts/synthetic-dump.ts\`, imported by each side in turn into a fresh database migrated by this checkout\n\n` +
    `${table}\n`,
);
