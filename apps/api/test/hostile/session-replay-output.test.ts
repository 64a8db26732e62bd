import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostileServer, startHostileServer } from './hostile-server';

// With every interpreter taken, a stateful session's action is a one-off /run_jupyter replay of all its cells.
// Only the new cell's output is the action's: the replayed cells' must neither use up the request's output budget
// (FUSEBOX_EXECUTOR_JUPYTER_OUTPUT_LIMIT_BYTES), which would cut the new cell's output, nor pile up in the server
// (a hostile review measured its peak RSS 374 → 1427 MB over 60 actions printing 2 MiB each). The replayed cells
// come back empty: an earlier cell that crashes only when replayed (after a time it read from the clock) ends
// the replay before the new cell runs, and the action must not read as the new cell's clean exit.
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

const start = async () =>
  ((await call('/start_instance', { instance_hash: ADD_TWO_NUMBERS })) as { sid: string }).sid;

describe('a replayed session whose cells each print a lot', { timeout: 300_000 }, () => {
  it('shows each action its own output whole, whatever the replayed cells printed', async () => {
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

  it("answers the action as a lost state, not as the new cell's success", async () => {
    const holder = await start();
    await call('/process_action', { sid: holder, content: '```python\nx = 1\n```' });
    const sid = await start();
    const deadline = Date.now() / 1000 + 2;
    const first = `import os, time\nif time.time() > ${deadline}:\n    os._exit(0)\nprint("first")`;
    const ran = (await call('/process_action', { sid, content: `\`\`\`python\n${first}\n\`\`\`` }))
      .content as string;
    expect(ran).toBe('first\nexit code 0');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const observation = (await call('/process_action', { sid, content: '```python\nprint("second")\n```' }))
      .content as string;
    expect(observation).not.toContain('second');
    expect(observation).not.toContain('exit code 0');
    expect(observation).toContain('the Python session was restarted');
  });
});
