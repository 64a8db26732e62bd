import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startServer, type RunningServer } from '@fusebox/api/testing';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '@fusebox/db/testing';
import { createLocalLimiter } from '@fusebox/rate-limiter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CodeInterpreterTool,
  type Generate,
  computeGsm8kScore,
  runEpisode,
  scriptedGenerate,
  verlDumpLine,
} from '@fusebox/tools';
import {
  SEED_ASSISTANT_TURNS,
  SEED_SAMPLE,
  SEED_SYSTEM_PROMPT,
  SEED_USER_PROMPT,
} from '@fusebox/testing/seed-sample';
import { toolCall } from '@fusebox/testing/tool-call';

const RUNNER = fileURLToPath(new URL('./helpers/limited-runner.ts', import.meta.url));

let db: PostgresTestDatabase;
let server: RunningServer;
let url: string;
const opened: CodeInterpreterTool[] = [];

beforeAll(async () => {
  db = await createPostgresTestDatabase();
  // The limiter tests hold up to 6 sleeping runs at once: the executor must not be the tighter bound.
  server = await startServer(
    { DATABASE_URL: db.url, FUSEBOX_EXECUTOR_CONCURRENCY: '8' },
    ['--no-dashboard'],
    120_000,
  );
  url = `${server.url}/run_code`;
}, 60_000);

afterAll(async () => {
  await Promise.all(opened.map((tool) => tool.close()));
  await server?.stop();
  await db?.drop();
});

function codeTool(
  config: Record<string, unknown> = {},
  options: ConstructorParameters<typeof CodeInterpreterTool>[2] = {},
) {
  const tool = new CodeInterpreterTool({ sandbox_fusion_url: url, ...config }, undefined, options);
  opened.push(tool);
  return tool;
}

async function run(tool: CodeInterpreterTool, parameters: Record<string, unknown>) {
  const { instanceId } = await tool.create();
  const result = await tool.execute(instanceId, parameters);
  return { ...result, reward: await tool.calcReward(instanceId), release: () => tool.release(instanceId) };
}

describe('CodeInterpreterTool against Fusebox’s /run_code', () => {
  it('runs the code and returns stdout, with metrics and a reward for the success', async () => {
    const result = await run(codeTool(), {
      code: 'import sys\nprint(6 * 7)\nprint("warn", file=sys.stderr)',
    });
    expect(result.response.text).toBe('42\nwarn\n');
    expect(result.metrics).toMatchObject({ status: 'success', outputBytes: 8 });
    expect(result.metrics.durationMs).toBeGreaterThan(0);
    expect(result.metrics.queueWaitMs).toBeGreaterThanOrEqual(0);
    expect(result.reward).toBe(1);
    await result.release();
  });

  it('tells the model the exit code of a failing run, and scores it 0', async () => {
    const result = await run(codeTool(), { code: 'print("before")\n1 / 0' });
    expect(result.response.text).toMatch(
      /^before\nTraceback[\s\S]*ZeroDivisionError: division by zero\nexit code 1$/,
    );
    expect(result.metrics.status).toBe('runtime_error');
    expect(result.reward).toBe(0);
  });

  it('says timeout after Ns, keeping what was printed so far', async () => {
    const result = await run(codeTool(), {
      code: 'print("started", flush=True)\nimport time\ntime.sleep(30)',
      timeout: 1,
    });
    expect(result.response.text).toBe('started\ntimeout after 1s');
    expect(result.metrics.status).toBe('timeout');
  });

  it('says memory limit exceeded when the run outgrows memory_limit_mb', async () => {
    const result = await run(codeTool({ memory_limit_mb: 64 }), { code: 'x = bytearray(512 * 1024 * 1024)' });
    expect(result.response.text).toMatch(/MemoryError\s*\nmemory limit exceeded \(64 MB\)$/);
    expect(result.metrics.status).toBe('memory_limit');
  });

  it('reports a compile error with the compiler’s message', async () => {
    const result = await run(codeTool(), { code: 'int main() { return undefined_name; }', language: 'cpp' });
    expect(result.response.text).toMatch(/compile error \(exit code \d+\)$/);
    expect(result.response.text).toMatch(/undefined_name|not found/);
    expect(result.metrics.status).toBe('compile_error');
  });

  it("compat: 'verl' reproduces verl's text: stdout + stderr when finished, else no stdout here", async () => {
    const tool = codeTool({ compat: 'verl' });
    expect((await run(tool, { code: 'print(1)\n1/0' })).response.text).toMatch(
      /^1\nTraceback[\s\S]*ZeroDivisionError: division by zero\n$/,
    );
    expect((await run(tool, { code: 'import time\ntime.sleep(5)', timeout: 0.5 })).response.text).toBe(
      'no stdout here',
    );
    expect((await run(tool, { code: 'print(1)', language: 'cobol' })).response.text).toBe('no stdout here');
  });

  it('answers an unsupported language with the supported ones', async () => {
    const result = await run(codeTool(), { code: 'print(1)', language: 'python3' });
    expect(result.response.text).toMatch(/^unsupported language "python3"; use one of: python, cpp, /);
  });

  it('turns an unreachable sandbox into a tool message instead of throwing', async () => {
    const tool = codeTool({ sandbox_fusion_url: 'http://127.0.0.1:9/run_code' });
    const result = await run(tool, { code: 'print(1)' });
    expect(result.response.text).toMatch(/^sandbox error: /);
    expect(result.metrics.status).toBe('api_error');
  }, 30_000);

  it('works with enable_global_rate_limit: false (verl crashes there)', async () => {
    const result = await run(codeTool({ enable_global_rate_limit: false }), { code: 'print("no limit")' });
    expect(result.response.text).toBe('no limit\n');
  });

  it('limit 3 × 6 tasks of 3 s: results in order, 6 s < duration < 10 s', async () => {
    const tool = codeTool({ rate_limit: 3, rate_limit_key: 'test.limit3' });
    const { instanceId } = await tool.create();
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        tool.execute(instanceId, { code: `import time\ntime.sleep(3)\nprint(${index})` }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    expect(results.map((result) => result.response.text)).toEqual(['0\n', '1\n', '2\n', '3\n', '4\n', '5\n']);
    expect(seconds).toBeGreaterThan(6);
    expect(seconds).toBeLessThan(10);
  }, 30_000);

  it('rotten execution: one of 20 calls aborted mid-run, the others intact and nothing left in flight', async () => {
    const limiter = createLocalLimiter({ limit: 6, key: 'test.rotten' });
    const tool = codeTool({}, { limiter });
    const { instanceId } = await tool.create();
    const rotten = new AbortController();
    setTimeout(() => rotten.abort(new Error('rotten')), 300);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        tool.execute(
          instanceId,
          {
            code:
              index === 10 ? 'import time\ntime.sleep(20)' : `import time\ntime.sleep(0.2)\nprint(${index})`,
          },
          index === 10 ? { signal: rotten.signal } : {},
        ),
      ),
    );
    expect(outcomes[10]).toMatchObject({ status: 'rejected', reason: new Error('rotten') });
    const texts = outcomes.map((outcome) =>
      outcome.status === 'fulfilled' ? outcome.value.response.text : null,
    );
    expect(texts.filter((_, index) => index !== 10)).toEqual(
      Array.from({ length: 20 }, (_, index) => `${index}\n`).filter((_, index) => index !== 10),
    );
    expect((await limiter.stats()).inFlight).toBe(0);
    await limiter.close();
  }, 60_000);

  it('shares a cluster-wide limit through Postgres with database_url', async () => {
    const config = { database_url: db.url, rate_limit: 2, rate_limit_key: 'test.pg' };
    const [first, second] = [codeTool(config), codeTool(config)];
    const sleepy = async (tool: CodeInterpreterTool) => {
      const { instanceId } = await tool.create();
      return Promise.all(
        [0, 1, 2].map(() => tool.execute(instanceId, { code: 'import time\ntime.sleep(1)\nprint("ok")' })),
      );
    };
    const started = performance.now();
    const results = (await Promise.all([sleepy(first), sleepy(second)])).flat();
    const seconds = (performance.now() - started) / 1000;
    expect(results.map((result) => result.response.text)).toEqual(Array(6).fill('ok\n'));
    // 6 one-second runs through 2 shared slots need 3 rounds; 2 separate limits of 2 would take 2
    expect(seconds).toBeGreaterThan(3);
    expect(Math.max(...results.map((result) => Number(result.metrics.queueWaitMs)))).toBeGreaterThan(1_500);
  }, 60_000);

  it('multi-node: 2 processes × 6 runs of 2 s under a global limit of 6 take two rounds, never 7 at once', async () => {
    const args = [url, db.url, 'test.multinode', '6', '6', '2'];
    const workers = [0, 1].map(() =>
      spawn(process.execPath, ['--conditions=@fusebox/source', '--import', 'tsx', RUNNER, ...args], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    // Listen for the exits now: a worker may exit before its last line has been read.
    const exits = workers.map((worker) => once(worker, 'exit'));
    const lines = workers.map((worker) => createInterface({ input: worker.stdout })[Symbol.asyncIterator]());
    for (const line of lines) expect((await line.next()).value).toBe('ready');
    for (const worker of workers) worker.stdin.end('go\n');
    const runs = (
      await Promise.all(
        lines.map(async (line) => JSON.parse(String((await line.next()).value)) as number[][]),
      )
    ).flat();
    await Promise.all(exits);

    const span =
      (Math.max(...runs.map(([, end]) => end ?? 0)) - Math.min(...runs.map(([start]) => start ?? 0))) / 1000;
    expect(runs).toHaveLength(12);
    expect(span).toBeGreaterThan(4);
    // The most runs holding a permit at one instant, across both processes. The worker stamps a run's end after
    // execute returns, a little after the permit went back, so each end is pulled in by 100 ms of slack.
    const edges = runs
      .flatMap(
        ([start = 0, end = 0]) =>
          [
            [start, 1],
            [end - 100, -1],
          ] as const,
      )
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let current = 0;
    let peak = 0;
    for (const [, delta] of edges) peak = Math.max(peak, (current += delta));
    expect(peak).toBeLessThanOrEqual(6);
  }, 90_000);
});

describe('episodes with real execution', () => {
  it('basic tool-call case: 3 turns, 3 generate calls, 6 messages, 2 tool messages from the sandbox', async () => {
    let calls = 0;
    const script = scriptedGenerate([
      toolCall('code_interpreter', { code: 'print(2 ** 10)' }),
      toolCall('code_interpreter', { code: 'print(sum(range(10)))' }),
      'So 1024 and 45.',
    ]);
    const generate: Generate = (request, options) => {
      calls += 1;
      return script(request, options);
    };
    const trajectory = await runEpisode(
      { messages: [{ role: 'user', content: 'Compute.' }] },
      { generate, tools: [codeTool()], limits: { maxAssistantTurns: 5 } },
    );
    expect(trajectory.state).toBe('COMPLETED');
    expect(calls).toBe(3);
    expect(trajectory.messages).toHaveLength(6);
    expect(
      trajectory.messages.filter((message) => message.role === 'tool').map((message) => message.content),
    ).toEqual(['1024\n', '45\n']);
    expect(trajectory.toolCalls.map((call) => call.metrics.status)).toEqual(['success', 'success']);
    expect(trajectory.rewards.tools).toEqual({ code_interpreter: 1 });
  }, 30_000);

  it("records in each run the rollout that sent it: the dump line's request_id and the tool instance", async () => {
    const code = `print("rollout ${process.pid}")`;
    const tool = codeTool();
    const episode = (requestId?: string) =>
      runEpisode(
        { messages: [{ role: 'user', content: 'Run it.' }], ...(requestId ? { requestId } : {}) },
        {
          generate: scriptedGenerate([toolCall('code_interpreter', { code }), 'Done.']),
          tools: [tool],
          limits: { maxAssistantTurns: 3 },
        },
      );
    // Two rollouts run the same code; a third names itself with an id no header can carry, and still runs.
    const [first, second, spaced] = await Promise.all([episode(), episode(), episode('my request 1')]);
    const reader = db.reader();
    try {
      const rows = await reader.execution.findMany({
        where: { code },
        select: { status: true, requestId: true, toolInstance: true },
      });
      const lines = [first, second].map((trajectory) => verlDumpLine(trajectory, 1).request_id);
      expect(rows.map((row) => row.requestId).sort()).toEqual([...lines, null].sort());
      expect(rows.every((row) => row.status === 'Success')).toBe(true);
      expect(new Set(rows.map((row) => row.toolInstance)).size).toBe(3);
      expect(spaced.toolCalls.map((call) => call.metrics.status)).toEqual(['success']);
    } finally {
      await reader.$disconnect();
    }
  }, 30_000);

  it("reproduces the seed's rollout dump byte for byte, the tool output really computed", async () => {
    const trajectory = await runEpisode(
      {
        messages: [
          { role: 'system', content: SEED_SYSTEM_PROMPT },
          { role: 'user', content: SEED_USER_PROMPT },
        ],
        groundTruth: '220000',
      },
      {
        generate: scriptedGenerate(SEED_ASSISTANT_TURNS),
        tools: [codeTool()],
        limits: { maxAssistantTurns: 5 },
        score: (t) => computeGsm8kScore(t.messages.at(-1)?.content ?? '', '220000').score,
      },
    );
    const line = verlDumpLine(trajectory, 1);
    expect(line.input).toBe(SEED_SAMPLE.input);
    expect(line.output).toBe(SEED_SAMPLE.output);
    expect(line.score).toBe(SEED_SAMPLE.score);
  }, 30_000);
});
