import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN, fenced } from './session-client';
import { type RunningServer, startServer } from './serve-process';

const CLIENT = fileURLToPath(new URL('./python/verl_swedev_client.py', import.meta.url));

interface EpisodeResult {
  sid: number;
  observations: string[];
  postprocess: { state: string; actions: number };
  reward: number;
}

describe("verl's swedev client (Python, aiohttp) against fusebox serve", () => {
  let database: TestDatabase;
  let server: RunningServer;
  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startServer({ ...database.env, FUSEBOX_EXECUTOR_CONCURRENCY: '2' });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('runs concurrent episodes with int sids and scores the correct solution 1.0 and the wrong one lower', async () => {
    const episodes = [
      {
        instance_id: 'INSTANCE',
        actions: [
          fenced('python', 'def add(a, b):\n    return a + b'),
          'print(add(2, 40))',
          fenced('python', 'assert add(-1, 1) == 0\nprint("ok")'),
          'Done. <function=finish>',
        ],
      },
      {
        instance_id: 'INSTANCE',
        actions: [
          fenced('python', 'def add(a, b):\n    return a * b'),
          'print(add(2, 40))',
          '<function=finish>',
        ],
      },
    ];
    // instance_id.item() is a Python int, so the client sends it as a bare JSON number beyond 2^53.
    const argument = JSON.stringify(episodes).replaceAll('"INSTANCE"', BUILTIN.add);
    const { stdout, stderr } = await promisify(execFile)('/usr/bin/python3', [CLIENT, server.url, argument], {
      timeout: 120_000,
    });
    expect(stderr).toBe('');
    const [correct, wrong] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as EpisodeResult);

    expect(correct?.observations).toEqual(['exit code 0', '42\nexit code 0', 'ok\nexit code 0']);
    expect(correct?.postprocess).toMatchObject({ state: 'postprocessed', actions: 3 });
    expect(correct?.reward).toBe(1);
    expect(Number.isInteger(correct?.sid)).toBe(true);

    expect(wrong?.observations).toEqual(['exit code 0', '80\nexit code 0']);
    // a * b passes only add(0, 0) == 0 of the four fail-to-pass tests.
    expect(wrong?.reward).toBe(0.25);
  });
});
