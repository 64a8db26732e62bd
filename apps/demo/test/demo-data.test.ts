import { createSandboxClient } from '@fusebox/sandbox-client';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODING_TASKS_PATH, type CodingTask, loadCodingTasks, loadGsm8kProblems } from '../src/demo-data';
import { type RunningServer, runCli, startServer } from '@fusebox/api/testing';

/**
 * The demo's shipped problems and tasks, checked in the real sandbox: if a "correct" program printed something
 * else than its answer, or a task's reference solution failed a test, the demo would show a right answer scoring
 * 0 and nobody would know which side is wrong.
 */
describe("the demo's shipped data", () => {
  let database: TestDatabase;
  let server: RunningServer;

  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startServer(database.env);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('has a few dozen GSM8K problems whose programs print their answers, right and mistaken', async () => {
    const problems = await loadGsm8kProblems();
    expect(problems.length).toBeGreaterThanOrEqual(24);
    expect(new Set(problems.map((problem) => problem.id)).size).toBe(problems.length);
    const client = createSandboxClient({ endpoint: server.url });
    try {
      const programs = problems.flatMap((problem) => [problem.code, problem.mistake]);
      const results = await client.runConcurrent(
        programs.map((code) => ({ code, language: 'python' as const, run_timeout: 10 })),
        { concurrency: 8 },
      );
      const printed = results.map((result) =>
        'status' in result ? result.run_result?.stdout?.trim() : result,
      );
      expect(printed).toEqual(problems.flatMap((problem) => [problem.answer, problem.mistake_answer]));
      for (const problem of problems) expect(problem.mistake_answer).not.toBe(problem.answer);
    } finally {
      await client.close();
    }
  }, 300_000);

  it('has a few dozen coding tasks whose solutions pass every test, and whose mistakes score as stated', async () => {
    const tasks = await loadCodingTasks();
    expect(tasks.length).toBeGreaterThanOrEqual(24);
    const imported = await runCli(['tasks', 'import', CODING_TASKS_PATH], database.env);
    expect(imported.stdout).toContain(`loaded ${tasks.length} tasks`);
    expect(imported.code).toBe(0);

    const post = async (path: string, body: object) => {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, path).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };
    const reward = async (task: CodingTask, code: string) => {
      const { sid } = await post('/start_instance', { instance_hash: task.instance_hash });
      const { content } = await post('/process_action', {
        sid,
        content: `${code}\n\n${task.metadata.check}`,
      });
      await post('/postprocess', { sid });
      const answer = await post('/compute_reward', { sid });
      return { task: task.name, content, reward: answer.reward };
    };
    // Four tasks at a time: all of them at once, beside the rest of the suite on two slow cores, once took one
    // of a right solution's 3 s tests past its timeout (0.75 instead of 1), which says nothing of the data.
    type Scored = Awaited<ReturnType<typeof reward>>;
    const results: { solution: Scored; mistake: Scored; task: CodingTask }[] = [];
    for (let start = 0; start < tasks.length; start += 4) {
      const batch = tasks.slice(start, start + 4).map(async (task) => ({
        solution: await reward(task, task.metadata.solution),
        mistake: await reward(task, task.metadata.mistake),
        task,
      }));
      results.push(...(await Promise.all(batch)));
    }
    for (const { solution, mistake, task } of results) {
      expect(solution).toMatchObject({ content: expect.stringMatching(/exit code 0$/) as string, reward: 1 });
      expect(mistake.reward, task.name).toBeCloseTo(task.metadata.mistake_reward, 9);
      expect(task.metadata.mistake_reward).toBeLessThan(1);
    }
  }, 600_000);
});
