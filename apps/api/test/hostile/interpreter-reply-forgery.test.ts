import { describe, expect, it } from 'vitest';
import { useRewardSessions } from './reward-episodes';
import { useProbes } from './sandbox-probe';

// Class 5 of the trust boundary (issue 15), its residual: an interpreter's reply about a cell cannot be kept from
// the cell. The cell runs in the interpreter's own process, so it can read the per-cell reply id from the
// interpreter's frame, write a whole reply with it on the reply channel, and patch the interpreter's functions so
// that every later cell of the same interpreter answers what it likes (packages/local-sandbox/README.md, "What an
// interpreter's reply can be made to say"). These probes show that the forgery works on what it can reach (the
// observations of a session, the cells of /run_jupyter), and that it does not reach the reward, which is computed
// by a trusted runner in a fresh sandbox, never from an interpreter's reply.

const TASK = {
  name: 'reply-forgery-add',
  prompt: 'Write add(a, b).',
  language: 'python',
  session_mode: 'stateful',
  tests: [
    { name: 'small', code: 'assert add(2, 3) == 5' },
    { name: 'negative', code: 'assert add(-4, 1) == -3' },
  ],
};
const RIGHT = 'def add(a, b):\n    return a + b';
const WRONG = 'def add(a, b):\n    return a - b + 7';

/**
 * Finds the interpreter's own globals through a method of its IPython shell and wraps its `send`: from this cell
 * on, every reply the interpreter sends (this cell's included, with the id the host gave it) says every test
 * passed, with no error. It needs no secret: it changes what the interpreter says, not who says it. (Not through
 * the collector's list of objects: a session forked from the session zygote has the interpreter's frozen out of
 * it.)
 */
const FORGE = `
import base64
kernel = type(get_ipython()).showtraceback.__globals__
forged = "FORGED: all tests pass\\n"
real_send = kernel["send"]
kernel["send"] = lambda message: real_send(dict(
    message, stdout=base64.b64encode(forged.encode()).decode(), stdout_bytes=len(forged), stderr="",
    stderr_bytes=0, error=[]))
`;
const FAILING_CELL = "assert add(2, 3) == 5, 'really failed'";

const { episode, watched } = useRewardSessions([TASK]);
const probes = useProbes();

describe('an interpreter reply forged by the cell it answers', { timeout: 120_000 }, () => {
  it('shows in the session observations, yet the reward of a wrong solution stays 0', async () => {
    const [forged, control] = await watched(() =>
      Promise.all([
        episode(TASK, [`${WRONG}\n${FORGE}`, FAILING_CELL]),
        episode(TASK, [`${RIGHT}\n${FORGE}`, FAILING_CELL]),
      ]),
    );
    // The forgery works where it can reach: the first cell answered itself, the failing cell shows no error.
    expect(forged.observations[0]).toContain('FORGED: all tests pass');
    expect(forged.observations[1]).toContain('FORGED: all tests pass');
    expect(forged.observations[1]).not.toContain('really failed');
    // The reward never reads it: the wrong solution fails each test, honestly; the right one, forging the same
    // way, passes each (so the episodes ran through the reward path).
    expect(forged.reward, JSON.stringify(forged.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
    expect(forged.detail.map(({ status }) => status)).toEqual(['wrong_answer', 'wrong_answer']);
    expect(control.reward, JSON.stringify(control.detail)).toMatchObject({ reward: 1, f2p_count: 2 });
  });

  it("shows in /run_jupyter's later cells, which share the forging cell's interpreter", async () => {
    const h = probes.server();
    const answer = await h.post('/run_jupyter', {
      cells: [`${WRONG}\n${FORGE}`, FAILING_CELL],
    });
    expect(answer.status).toBe(200);
    const { cells } = JSON.parse(answer.text) as {
      cells: { stdout: string; error: unknown[] }[];
    };
    expect(cells[0]?.stdout).toBe('FORGED: all tests pass\n');
    expect(cells[1]?.stdout).toBe('FORGED: all tests pass\n');
    expect(cells[1]?.error).toEqual([]);
    // Control: without the forgery the same cells report the failure.
    const honest = JSON.parse((await h.post('/run_jupyter', { cells: [WRONG, FAILING_CELL] })).text) as {
      cells: { error: { evalue: string }[] }[];
    };
    expect(honest.cells[1]?.error[0]?.evalue).toBe('really failed');
  });
});
