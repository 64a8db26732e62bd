// What the sandbox trust boundary (#15: an unprivileged uid per sandbox, its host-mounted tmpfs, seccomp, the
// masked /proc, the driver as pid 1) costs a run, side by side with the executor of the commit before it, in
// one process, passes interleaved so that both see the same machine.
//
// node --conditions=@fusebox/source --import tsx bench/trust-boundary/run.ts [--base <commit>] [--cpu-shares <n>]
//
// --cpu-shares sets the executors' `cpuShares` (the CPU weight of all sandboxes together, since be57b74; the
// default, 1024, weighs them all as one host process, so on a machine others load they get a sliver of it): a
// commit without the option ignores it. 262144 (cgroup v1's largest) measures the layers, not that policy.
//
// The base commit is checked out as a git worktree beside this one (node_modules linked), and its executor is
// imported from there.
import { execFileSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type PrintRunner, printRuns } from '../executor/print-runs';
import { writeResults } from '../write-results';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The last commit before the trust boundary's layers. */
const DEFAULT_BASE = 'd4aa07e';
const PASSES = 3;
/** Sandbox uids of the base commit's executor: the default base (1879048192) + 16 × 65536, leased by no one. */
const UNLEASED_UID_BASE = 1_879_048_192 + 16 * 65_536;
const LOADS = [
  { concurrency: 1, runs: 150 },
  { concurrency: 4, runs: 240 },
  { concurrency: 16, runs: 480 },
];

interface RunCode extends PrintRunner {
  close(): Promise<void>;
}

const { values } = parseArgs({
  options: { base: { type: 'string', default: DEFAULT_BASE }, 'cpu-shares': { type: 'string' } },
});
const cpuShares = values['cpu-shares'] === undefined ? undefined : Number(values['cpu-shares']);
const base = execFileSync('git', ['rev-parse', '--short', values.base], {
  cwd: ROOT,
  encoding: 'utf8',
}).trim();
const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();

const baseTree = join(tmpdir(), `fusebox-bench-${base}`);
if (!existsSync(baseTree)) {
  execFileSync('git', ['worktree', 'add', '--detach', baseTree, base], { cwd: ROOT, stdio: 'ignore' });
  symlinkSync(join(ROOT, 'node_modules'), join(baseTree, 'node_modules'));
}

async function executorOf(tree: string): Promise<RunCode> {
  const module = (await import(join(tree, 'packages/local-sandbox/src/executor.ts'))) as {
    createExecutor(options: object): Promise<RunCode>;
  };
  return module.createExecutor({
    concurrency: 16,
    warn: () => {},
    ...(cpuShares === undefined ? {} : { cpuShares }),
    // A commit before c53cea1 does not lease its sandbox uids: on the default base, any Fusebox on the machine
    // that leases the first block kills its runs (one came back Failed 137 in 27 ms), so it gets a range of its
    // own, which no server leases (a commit without the option ignores it).
    ...(tree === ROOT ? {} : { sandboxUidBase: UNLEASED_UID_BASE }),
  });
}

/** Latencies (ms) of `runs` print(1) runs, `concurrency` at a time, and their rate. */
async function measure(executor: RunCode, concurrency: number, runs: number) {
  const { latencies, seconds } = await printRuns(executor, concurrency, runs);
  const kept = latencies.slice(Math.floor(latencies.length / 10)).sort((a, b) => a - b);
  return {
    p50: kept[Math.floor(kept.length / 2)] as number,
    p99: kept[Math.floor(kept.length * 0.99)] as number,
    perSecond: runs / seconds,
  };
}

const median = (numbers: number[]) =>
  [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] as number;

const loadBefore = loadavg();
const executors = { [base]: await executorOf(baseTree), [head]: await executorOf(ROOT) };
await new Promise((resolve) => setTimeout(resolve, 2_000));
const samples = new Map<string, { p50: number[]; p99: number[]; perSecond: number[] }>();
for (let pass = 0; pass < PASSES; pass += 1) {
  for (const { concurrency, runs } of LOADS) {
    // Alternate which goes first, so neither always runs on the machine the other just warmed or loaded.
    const order = pass % 2 === 0 ? [base, head] : [head, base];
    for (const commit of order) {
      const result = await measure(executors[commit] as RunCode, concurrency, runs);
      const key = `${concurrency} ${commit}`;
      const entry = samples.get(key) ?? { p50: [], p99: [], perSecond: [] };
      entry.p50.push(result.p50);
      entry.p99.push(result.p99);
      entry.perSecond.push(result.perSecond);
      samples.set(key, entry);
      console.error(`pass ${pass + 1}, c=${concurrency}, ${commit}: p50 ${result.p50.toFixed(1)} ms`);
    }
  }
}
await Promise.all(Object.values(executors).map((executor) => executor.close()));

const rows: string[] = [];
const ratios: string[] = [];
for (const { concurrency } of LOADS) {
  const of = (commit: string) => samples.get(`${concurrency} ${commit}`)!;
  for (const [commit, label] of [
    [base, `before (${base})`],
    [head, `with the trust boundary (${head})`],
  ] as const) {
    const entry = of(commit);
    rows.push(
      `| ${concurrency} | ${label} | ${median(entry.p50).toFixed(1)} | ${median(entry.p99).toFixed(1)} | ${median(entry.perSecond).toFixed(0)} |`,
    );
  }
  ratios.push(
    `| ${concurrency} | ${(median(of(head).p50) / median(of(base).p50)).toFixed(2)}× | ${(median(of(head).perSecond) / median(of(base).perSecond)).toFixed(2)}× |`,
  );
}

const markdown = `# Trust boundary benchmark

Command: \`node --conditions=@fusebox/source --import tsx bench/trust-boundary/run.ts --base ${base}${cpuShares === undefined ? '' : ` --cpu-shares ${cpuShares}`}\`
Date: ${new Date().toISOString()}
Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average ${loadBefore.map((n) => n.toFixed(1)).join(' ')} before, ${loadavg()
  .map((n) => n.toFixed(1))
  .join(' ')} after

The executor in-process (\`executor.runCode\`, python \`print(1)\`, concurrency 16, default limits${cpuShares === undefined ? '' : `, \`cpuShares\` ${cpuShares}`}), before the
trust boundary (${base}) and with it (${head}), both in this one process, ${PASSES} passes with the order
alternating; each measurement drops its first tenth as warm-up. Medians of passes.

| c | executor | p50 ms | p99 ms | exec/s |
| --- | --- | --- | --- | --- |
${rows.join('\n')}

### With the trust boundary ÷ before

| c | p50 latency | throughput |
| --- | --- | --- |
${ratios.join('\n')}

Target (#15): no more than 10% extra latency (p50 ratio ≤ 1.10).
`;
console.log(markdown);
await writeResults(new URL('./RESULTS.md', import.meta.url), markdown);
