// Rollout driver cost, in two parts. (1) Overhead per turn: runEpisode with a null generate and a null tool, so
// everything measured is the driver (state machine, parsing, truncation, token counting, tool lifecycle).
// (2) Throughput: a 256-episode batch of scripted turns whose code really runs in Fusebox's sandbox through a
// real `fusebox serve`. Usage: node --conditions=@fusebox/source --import tsx bench/tools/run.ts [--overhead-only]
import { cpus, loadavg, totalmem } from 'node:os';
import { startServer } from '@fusebox/api/testing';
import { createPostgresTestDatabase } from '@fusebox/db/testing';
import { createSandboxClient } from '@fusebox/sandbox-client';
import {
  BaseTool,
  CodeInterpreterTool,
  type Generate,
  runBatch,
  runEpisode,
  scriptedGenerate,
  type ToolExecution,
  type Trajectory,
} from '@fusebox/tools';
import { writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/tools/run.ts';
const TURNS = 4; // 3 turns with a tool call, then a final answer
const PASSES = 5;
const EPISODES: Record<number, number> = { 1: 2_000, 64: 5_000 };
const BATCH_EPISODES = 256;
const BATCH_CONCURRENCY = 64;

/** A tool that does nothing, so its cost is the driver's. */
class NullTool extends BaseTool {
  protected initialState() {
    return {};
  }
  execute(instanceId: string, _parameters: Record<string, unknown>): Promise<ToolExecution> {
    this.state(instanceId);
    return Promise.resolve({ response: { text: 'ok\n' }, reward: null, metrics: {} });
  }
}

const CALL = '<tool_call>\n{"name": "null_tool", "arguments": {"code": "print(1)"}}\n</tool_call>';
const nullGenerate: Generate = ({ turn }) =>
  Promise.resolve({ content: turn < TURNS - 1 ? `Let me check.\n${CALL}` : '#### 1', finishReason: 'stop' });
const prompt = { messages: [{ role: 'user' as const, content: 'What is 1?' }] };

const nullTool = () =>
  new NullTool({}, { type: 'function', function: { name: 'null_tool', description: 'Nothing.' } });

async function overheadPass(concurrency: number, episodes: number): Promise<number> {
  const options = { generate: nullGenerate, tools: [nullTool()], limits: { maxAssistantTurns: TURNS + 1 } };
  const started = performance.now();
  if (concurrency === 1) {
    for (let index = 0; index < episodes; index++) await runEpisode(prompt, options);
  } else {
    await runBatch(
      Array.from({ length: episodes }, () => prompt),
      { ...options, concurrency },
    );
  }
  return ((performance.now() - started) * 1000) / (episodes * TURNS);
}

/** The floor: the same generate and tool calls in a hand-written loop, with no driver at all. */
async function baselinePass(concurrency: number, episodes: number): Promise<number> {
  const tool = nullTool();
  const signal = new AbortController().signal;
  const episode = async (requestId: string) => {
    const { instanceId } = await tool.create();
    for (let turn = 0; turn < TURNS; turn++) {
      const completion = await nullGenerate(
        { requestId, turn, messages: prompt.messages, tools: [] },
        { signal },
      );
      if (completion.content.includes('<tool_call>')) await tool.execute(instanceId, { code: 'print(1)' });
    }
    await tool.calcReward(instanceId);
    await tool.release(instanceId);
  };
  let next = 0;
  const worker = async () => {
    while (next < episodes) await episode(String(next++));
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ((performance.now() - started) * 1000) / (episodes * TURNS);
}

async function overheadRows(): Promise<string[]> {
  const rows: string[] = [];
  for (const concurrency of [1, 64]) {
    const episodes = EPISODES[concurrency] ?? 1_000;
    await overheadPass(concurrency, episodes / 4); // warm-up
    await baselinePass(concurrency, episodes / 4);
    const driver: number[] = [];
    const floor: number[] = [];
    // Alternating passes, so drift in a noisy machine's load hits both sides alike.
    for (let pass = 0; pass < PASSES; pass++) {
      floor.push(await baselinePass(concurrency, episodes));
      driver.push(await overheadPass(concurrency, episodes));
    }
    const [us, base] = [median(driver), median(floor)];
    rows.push(
      `| ${concurrency} | ${episodes} × ${TURNS} turns × ${PASSES} | ${base.toFixed(1)} | ${us.toFixed(1)} | ` +
        `${(us - base).toFixed(1)} | ${Math.round(1e6 / us)} |`,
    );
  }
  return rows;
}

async function batchRow(): Promise<string> {
  const db = await createPostgresTestDatabase();
  const server = await startServer({ DATABASE_URL: db.url }, ['--no-dashboard'], 120_000);
  const tool = new CodeInterpreterTool({ sandbox_fusion_url: `${server.url}/run_code`, default_timeout: 10 });
  try {
    const code = (n: number) =>
      `<tool_call>\n${JSON.stringify({ name: 'code_interpreter', arguments: { code: `print(${n} * 7)` } })}\n</tool_call>`;
    const generate = scriptedGenerate([code(6), code(7), '#### 42']);
    const requests = Array.from({ length: BATCH_EPISODES }, () => prompt);
    const options = {
      generate,
      tools: [tool],
      limits: { maxAssistantTurns: 4 },
      concurrency: BATCH_CONCURRENCY,
    };
    await runBatch(requests.slice(0, 16), options); // warm-up: connections, interpreter caches
    const started = performance.now();
    const trajectories = await runBatch(requests, options);
    const seconds = (performance.now() - started) / 1000;
    const calls = trajectories.flatMap((trajectory: Trajectory) => trajectory.toolCalls);
    const ok = calls.filter((call) => call.metrics.status === 'success').length;
    const completed = trajectories.filter((trajectory) => trajectory.state === 'COMPLETED').length;
    const durations = calls.map((call) => call.durationMs);
    const waits = calls.map((call) => Number(call.metrics.queueWaitMs ?? 0));

    // Baseline: the same executions straight through sandbox-client, as many in flight as the tool's global limit.
    const client = createSandboxClient({ endpoint: server.url });
    const bare = Array.from({ length: calls.length }, (_, index) => ({
      code: `print(${index % 2 ? 7 : 6} * 7)`,
      language: 'python' as const,
    }));
    const bareStarted = performance.now();
    const bareResults = await client.runConcurrent(bare, { concurrency: tool.settings.rate_limit });
    const bareSeconds = (performance.now() - bareStarted) / 1000;
    await client.close();
    const bareOk = bareResults.filter((result) => 'status' in result && result.status === 'Success').length;
    return [
      `| sandbox-client \`runConcurrent\`, ${tool.settings.rate_limit} in flight (baseline) | – | ${bare.length} (${bareOk} ok) | ` +
        `${bareSeconds.toFixed(2)} | – | ${(bare.length / bareSeconds).toFixed(1)} | – | – |`,
      `| \`runBatch\` of ${BATCH_EPISODES} episodes, ${BATCH_CONCURRENCY} in flight | ${completed} COMPLETED | ${calls.length} (${ok} ok) | ` +
        `${seconds.toFixed(2)} | ${(BATCH_EPISODES / seconds).toFixed(1)} | ${(calls.length / seconds).toFixed(1)} | ` +
        `${median(durations).toFixed(1)} | ${median(waits).toFixed(1)} |`,
    ].join('\n');
  } finally {
    await tool.close();
    await server.stop();
    await db.drop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function main() {
  // Other work on a shared machine moves these numbers a lot; the load when the run began is part of the result.
  const load = loadavg()[0]?.toFixed(1) ?? '?';
  const overhead = [
    '| episodes in flight | episodes × turns × passes | hand loop µs/turn | runEpisode µs/turn | driver overhead µs/turn | driver turns/s |',
    '|---|---|---|---|---|---|',
    ...(await overheadRows()),
  ].join('\n');
  console.log(overhead);
  if (process.argv.includes('--overhead-only')) return;
  const batch = [
    '| run | episodes | executions | seconds | episodes/s | executions/s | p50 tool call ms | p50 queue wait ms |',
    '|---|---|---|---|---|---|---|---|',
    await batchRow(),
  ].join('\n');
  console.log(`\n${batch}`);

  const cpu = cpus();
  const machine = `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}, load average ${load} at start`;
  await writeResults(
    new URL('RESULTS.md', import.meta.url),
    `# Rollout driver: overhead per turn and batch throughput\n\n` +
      `- command: \`${COMMAND}\`\n- date: ${new Date().toISOString()}\n- machine: ${machine}\n\n` +
      `## Driver overhead per turn\n\n` +
      `\`runEpisode\` with a null generate (answers at once) and a null tool (answers \`ok\` at once): ${TURNS} assistant ` +
      `turns per episode, 3 of them with a tool call, so the time is all driver: state machine, tool-call parsing, ` +
      `truncation, token counting, instance create/calcReward/release. The hand loop is the floor: the same generate and tool calls in a ` +
      `plain loop with no driver. Sequential episodes (1 in flight) and \`runBatch\` with 64 in flight; wall time / ` +
      `turns, median of ${PASSES} alternating passes.\n\n${overhead}\n\n` +
      `## Batch against the real API\n\n` +
      `\`runBatch\` of ${BATCH_EPISODES} episodes, each 3 scripted turns (2 \`code_interpreter\` calls running ` +
      `\`print(n * 7)\`, then \`#### 42\`), through \`CodeInterpreterTool\` (verl defaults: 10 workers, global ` +
      `limit 10) to a real \`fusebox serve\` on loopback executing in its sandbox (executor at its default, one run per ` +
      `core), after a 16-episode warm-up; then the same number of executions straight through sandbox-client with ` +
      `as many in flight as the tool's global limit, as the baseline. Tool call ms includes the queue wait for a ` +
      `permit: 64 episodes share 10 permits.\n\n${batch}\n`,
  );
}

await main();
