import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostileServer, startHostileServer } from './hostile-server';

// With every interpreter taken, a stateful session's action is a one-off /run_jupyter replay of all its cells.
// Only the new cell's output is the action's: the replayed cells' must neither use up the request's output budget
// (FUSEBOX_EXECUTOR_JUPYTER_OUTPUT_LIMIT_BYTES), which would cut the new cell's output, nor pile up in the server
// (a hostile review measured its peak RSS 374 → 1427 MB over 60 actions printing 2 MiB each).
const ADD_TWO_NUMBERS = '9000000000000000001'; // a builtin stateful Python task, loaded at every start
const MIB = 1024 * 1024;

let h: HostileServer;
beforeAll(async () => {
  h = await startHostileServer({
    FUSEBOX_SESSION_MAX: '1',
    FUSEBOX_EXECUTOR_JUPYTER_OUTPUT_LIMIT_BYTES: String(2 * MIB),
  });
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

async function call(path: string, body: unknown): Promise<Record<string, unknown>> {
  const answer = await h.post(path, body);
  expect(answer.status, `${path}: ${answer.text.slice(0, 300)}`).toBe(200);
  return JSON.parse(answer.text) as Record<string, unknown>;
}

describe('a replayed session whose cells each print a lot', { timeout: 300_000 }, () => {
  it('shows each action its own output whole, whatever the replayed cells printed', async () => {
    const start = async () =>
      ((await call('/start_instance', { instance_hash: ADD_TWO_NUMBERS })) as { sid: string }).sid;
    // Another session takes the only interpreter, so every action of this one is a replay.
    const holder = await start();
    await call('/process_action', { sid: holder, content: '```python\nx = 1\n```' });
    const sid = await start();
    const endings: string[] = [];
    for (let action = 1; action <= 4; action += 1) {
      const content = `\`\`\`python\nprint("a" * 800000 + "END-${action}")\n\`\`\``;
      const observation = (await call('/process_action', { sid, content })).content as string;
      endings.push(observation.slice(-40));
    }
    // The fourth replay's earlier cells printed 2.4 MB, more than the request's budget.
    expect(endings).toEqual([1, 2, 3, 4].map((action) => `${'a'.repeat(23)}END-${action}\nexit code 0`));
  });
});
