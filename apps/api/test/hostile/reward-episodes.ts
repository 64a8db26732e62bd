import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PrismaClient } from '@fusebox/db/client';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { deriveInstanceHash } from '@fusebox/tasks';
import { runCli } from '../serve-process';
import { type HostileServer, healthProblem, startHostileServer } from './hostile-server';

// What the reward-forgery probes share: a hostile server on a database holding their tasks, and episodes
// through the real session routes (/start_instance, /process_action, /compute_reward).

/** A task as `fusebox tasks import` reads it; episodes need its name and language. */
export interface RewardTask {
  name: string;
  language: string;
}

/** What an episode saw: each action's observation, the reward, its stored per-test detail, the test runs' stdout. */
export interface Episode {
  observations: string[];
  reward: Record<string, unknown>;
  detail: { name: string; passed: boolean; status: string; detail: string }[];
  stdouts: string[];
}

export interface RewardSessions {
  /** Opens a session of `task`, sends `actions` (each fenced in the task's language), and computes its reward. */
  episode: (task: RewardTask, actions: string[]) => Promise<Episode>;
  /** Runs `probe` while the server is pinged, and fails unless the server stayed healthy. */
  watched: <T>(probe: () => Promise<T>) => Promise<T>;
}

/** One hostile `fusebox serve` for a test file, on a database where `tasks` were imported before it started. */
export function useRewardSessions(tasks: readonly RewardTask[]): RewardSessions {
  let h: HostileServer | undefined;
  let database: TestDatabase | undefined;
  let prisma: PrismaClient | undefined;
  let dir: string | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    prisma = database.reader();
    dir = mkdtempSync(join(tmpdir(), 'fusebox-reward-'));
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, tasks.map((task) => `${JSON.stringify(task)}\n`).join(''));
    const imported = await runCli(['tasks', 'import', file], database.env);
    if (imported.code !== 0) throw new Error(`tasks import failed: ${imported.stdout}${imported.stderr}`);
    // The harness's own database goes unused: the server reads this one, with the tasks in it.
    h = await startHostileServer(database.env);
  }, 180_000);

  afterAll(async () => {
    await h?.stop();
    await prisma?.$disconnect();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const started = () => {
    if (!h || !prisma) throw new Error('the reward server did not start');
    return { h, prisma };
  };

  async function call(path: string, body: unknown): Promise<Record<string, unknown>> {
    const answer = await started().h.post(path, body);
    expect(answer.status, `${path}: ${answer.text}`).toBe(200);
    return JSON.parse(answer.text) as Record<string, unknown>;
  }

  return {
    async episode(task, actions) {
      const { sid } = (await call('/start_instance', {
        instance_hash: String(deriveInstanceHash(task.name)),
      })) as { sid: string };
      const observations: string[] = [];
      for (const content of actions) {
        const fenced = `\`\`\`${task.language}\n${content}\n\`\`\``;
        observations.push((await call('/process_action', { sid, content: fenced })).content as string);
      }
      const reward = await call('/compute_reward', { sid });
      const { prisma } = started();
      const stored = await prisma.session.findUnique({ where: { id: sid }, select: { rewardDetail: true } });
      const runs = await prisma.execution.findMany({
        where: { sessionId: sid, source: 'session_reward' },
        select: { stdout: true },
      });
      return {
        observations,
        reward,
        detail: (stored?.rewardDetail ?? []) as Episode['detail'],
        stdouts: runs.map(({ stdout }) => stdout),
      };
    },
    async watched(probe) {
      const { result, health } = await started().h.watch(probe);
      expect(healthProblem(health)).toBeUndefined();
      return result;
    },
  };
}
