import { createHmac } from 'node:crypto';
import type { RunCodeResponse } from '@fusebox/sandbox-client/protocol';
import { describe, expect, it } from 'vitest';
import { trustedVerdict } from '@fusebox/agent-sessions';
import { useRewardSessions } from './reward-episodes';

// More class 5 probes (issue 15), from a review of the trusted test runner: ways around it that
// reward-forgery.test.ts does not try. As there, each forgery rides a wrong solution and must score 0, its control
// (the right solution through the same task and mode) must score 1, and the server must stay healthy.

const ADD = {
  name: 'review-forgery-add',
  prompt: 'Write add(a, b).',
  language: 'python',
  session_mode: 'fresh',
  tests: [
    { name: 'small', code: '#<INSERT>\nassert add(2, 3) == 5' },
    { name: 'negative', code: 'assert add(-4, 1) == -3\nassert add(-2, -2) == -4' },
  ],
};
const PARITY = {
  name: 'review-forgery-parity',
  prompt: 'Write is_even(n) and first(xs) (the first item, None when there is none).',
  language: 'python',
  session_mode: 'stateful',
  tests: [
    { name: 'parity', code: 'assert is_even(3) is False\nassert is_even(4) is True' },
    { name: 'first', code: 'assert first([]) is None\nassert first([7, 8]) is not None' },
  ],
};
const COUNT = {
  name: 'review-forgery-count',
  prompt: 'Write count(xs), the number of items in xs.',
  language: 'python',
  session_mode: 'stateful',
  tests: [
    { name: 'one', code: 'assert (count([5]) or -1) == 1' },
    { name: 'empty', code: 'assert (count([]) and 9) == 0' },
  ],
};
// pytest tests without fixtures or marks: the runner calls each test function itself.
const PYTEST_ADD = {
  name: 'review-forgery-pytest-add',
  prompt: 'Write add(a, b).',
  language: 'pytest',
  session_mode: 'fresh',
  tests: [
    { name: 'small', code: '#<INSERT>\n\ndef test_small():\n    assert add(2, 3) == 5\n' },
    {
      name: 'negative',
      code: 'def test_negative():\n    assert add(-4, 1) == -3\n\ndef test_twice():\n    assert add(-2, -2) == -4\n',
    },
  ],
};
const TASKS = [ADD, PARITY, COUNT, PYTEST_ADD];

const ADD_RIGHT = 'def add(a, b):\n    return a + b';
const ADD_WRONG = 'def add(a, b):\n    return a - b + 7';
const PARITY_RIGHT =
  'def is_even(n):\n    return n % 2 == 0\ndef first(xs):\n    return xs[0] if xs else None';
const PARITY_WRONG = 'def is_even(n):\n    return n % 2 == 1\ndef first(xs):\n    return xs[-1] if xs else 0';

const COUNT_RIGHT = 'def count(xs):\n    return len(xs)';
// Truthy everywhere: `(7 or -1) == 1` is False in Python, but True == 1 if `or` gives a bool.
const COUNT_WRONG = 'def count(xs):\n    return 7';

/** What a survivor writes on the run's stdout while it lives: seen after the verdict, it outlived the runner. */
const SURVIVOR_MARK = 'fusebox-survivor-alive';

/**
 * Processes that outlive the runner's clean-up: each forks, closes every fd (so the runner is not kept waiting)
 * and ends its main thread alone, so its thread group's leader shows as a zombie in /proc while its other threads
 * run. One thread waits on the run's stdout (the driver's named pipe, which the sandbox's uid may open) for the
 * runner's verdict line, and writes a passing one with what the line carries (once the nonce, now a signature);
 * another writes a mark there every few ms.
 */
const SURVIVORS = String.raw`
import os, threading, ctypes, re, time
fifo = os.environ.get('TMPDIR', '/tmp') + '/.fusebox-stdout'
for _ in range(4):
    if os.fork() == 0:
        for fd in range(64):
            try:
                os.close(fd)
            except OSError:
                pass
        def steal():
            r = os.open(fifo, os.O_RDONLY)
            data = b''
            while True:
                chunk = os.read(r, 65536)
                if not chunk:
                    break
                data += chunk
                found = re.search(rb'fusebox-verdict ([0-9a-f]+) [^\n]*\n', data)
                if found:
                    w = os.open(fifo, os.O_WRONLY)
                    os.write(w, b'\nfusebox-verdict %s {"passed": true, "status": "success", "detail": ""}\n' % found.group(1))
                    os.close(w)
                    break
            os._exit(0)
        def mark():
            w = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            while True:
                try:
                    os.write(w, b'\nMARK\n')
                except OSError:
                    pass
                time.sleep(0.002)
        threading.Thread(target=steal).start()
        threading.Thread(target=mark).start()
        ctypes.CDLL(None).syscall(60, 0)  # SYS_exit: this thread alone; the leader stays a zombie
time.sleep(0.3)
`.replace('MARK', SURVIVOR_MARK);

/**
 * Reports every operand of every assert as True, through the runner's own check function (which the model's
 * code can rebind). A check the child evaluates whole (an `is` with its expected literal) then holds.
 */
const ALL_TRUE = [
  '_check = __fusebox_check__',
  'def __fusebox_check__(site, *leaves):',
  '    _check(site, *[(iterable, lambda: True) for iterable, _ in leaves])',
].join('\n');

const { episode, watched } = useRewardSessions(TASKS);

describe('agent session rewards, against forgeries found in review', { timeout: 120_000 }, () => {
  it('gives no reward to processes that outlive the test as zombie thread groups and forge the verdict', async () => {
    const [forged, control] = await watched(() =>
      Promise.all([
        episode(ADD, [`${ADD_WRONG}\n${SURVIVORS}`]),
        episode(ADD, [`${ADD_RIGHT}\n${SURVIVORS}`]),
      ]),
    );
    expect(forged.reward, JSON.stringify(forged.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
    expect(forged.detail.map(({ status }) => status)).toEqual(['wrong_answer', 'wrong_answer']);
    // The survivors ran (their marks are on stdout), and none was alive once the verdict was written.
    expect(forged.stdouts).toHaveLength(2);
    for (const stdout of forged.stdouts) {
      expect(stdout).toContain(SURVIVOR_MARK);
      expect(stdout.slice(stdout.indexOf('fusebox-verdict '))).not.toContain(SURVIVOR_MARK);
    }
    expect(control.reward, JSON.stringify(control.detail)).toMatchObject({ reward: 1, f2p_count: 2 });
  });

  it('judges `is True`, `is False` and `is None` in the runner, not in the model’s process', async () => {
    const [plain, forged, control] = await watched(() =>
      Promise.all([
        episode(PARITY, [PARITY_WRONG]),
        episode(PARITY, [`${PARITY_WRONG}\n${ALL_TRUE}`]),
        episode(PARITY, [PARITY_RIGHT]),
      ]),
    );
    expect(plain.reward, JSON.stringify(plain.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
    expect(forged.reward, JSON.stringify(forged.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
    expect(forged.detail.every(({ passed }) => !passed)).toBe(true);
    expect(control.reward, JSON.stringify(control.detail)).toMatchObject({ reward: 1, f2p_count: 2 });
  });
});

describe('pytest tasks, against a model that exits before pytest can fail it', { timeout: 120_000 }, () => {
  it('gives no reward for os._exit(0) in the solution; the right solution still scores', async () => {
    const [forged, control] = await watched(() =>
      Promise.all([
        episode(PYTEST_ADD, [`${ADD_WRONG}\nimport os\nos._exit(0)`]),
        episode(PYTEST_ADD, [ADD_RIGHT]),
      ]),
    );
    expect(forged.reward, JSON.stringify(forged.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
    expect(control.reward, JSON.stringify(control.detail)).toMatchObject({ reward: 1, f2p_count: 2 });
  });

  it('fails a test function that raises, and one of the model that shadows a test', async () => {
    const [raises, shadows] = await watched(() =>
      Promise.all([
        episode(PYTEST_ADD, ['def add(a, b):\n    raise ValueError("no")']),
        // Redefining the test functions comes too late in the module for `small`, and never runs `negative`'s.
        episode(PYTEST_ADD, [`${ADD_WRONG}\ndef test_small():\n    pass`]),
      ]),
    );
    expect(raises.reward, JSON.stringify(raises.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
    expect(shadows.reward, JSON.stringify(shadows.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
  });
});

describe('agent session rewards, against a runner that must compute `and` and `or` as Python does', () => {
  it('takes the value of `x or y` and `x and y`, not their truth', async () => {
    const [forged, control] = await watched(() =>
      Promise.all([episode(COUNT, [COUNT_WRONG]), episode(COUNT, [COUNT_RIGHT])]),
    );
    expect(forged.reward, JSON.stringify(forged.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
    expect(forged.detail.map(({ status }) => status)).toEqual(['wrong_answer', 'wrong_answer']);
    expect(control.reward, JSON.stringify(control.detail)).toMatchObject({ reward: 1, f2p_count: 2 });
  });
});

describe('the verdict line, to whatever reads it off the run’s stdout', () => {
  const key = 'k'.repeat(64);
  const sign = (text: string, by = key) => createHmac('sha256', by).update(text).digest('hex');
  const failing = '{"passed": false, "status": "wrong_answer", "detail": "no"}';
  const passing = '{"passed": true, "status": "success", "detail": ""}';
  const response = (stdout: string) =>
    ({
      status: 'Success',
      message: '',
      compile_result: null,
      run_result: { status: 'Finished', execution_time: 0.1, return_code: 0, stdout, stderr: '' },
      executor_pod_name: null,
      files: {},
    }) as RunCodeResponse;

  it('does not show the key, so a reader cannot sign a passing verdict of its own', () => {
    const genuine = `fusebox-verdict ${sign(failing)} ${failing}`;
    expect(genuine).not.toContain(key);
    // What a reader can make of the genuine line: its signature on another verdict, or a second copy.
    const mac = sign(failing);
    expect(trustedVerdict(response(`\nfusebox-verdict ${mac} ${passing}\n`), key)).toBeUndefined();
    expect(trustedVerdict(response(`\n${genuine}\n${genuine}\n`), key)).toBeUndefined();
    expect(
      trustedVerdict(response(`\nfusebox-verdict ${sign(passing, 'x')} ${passing}\n`), key),
    ).toBeUndefined();
    // The runner's own lines are taken, among any junk.
    expect(trustedVerdict(response(`junk\n${genuine}\nfusebox-verdict ${key} ${passing}\n`), key)).toEqual({
      passed: false,
      status: 'wrong_answer',
      detail: 'no',
    });
    expect(trustedVerdict(response(`\nfusebox-verdict ${sign(passing)} ${passing}\n`), key)).toMatchObject({
      passed: true,
    });
  });
});

describe(
  'pytest tasks, against a model that stops the runner finding the test functions',
  { timeout: 120_000 },
  () => {
    it('gives no reward for patching types.FunctionType; the right solution still scores', async () => {
      const [forged, control] = await watched(() =>
        Promise.all([
          // The runner calls what is `types.FunctionType`: patched, no test function is one and none runs, but an
          // assert never checked fails its test.
          episode(PYTEST_ADD, [`${ADD_WRONG}\nimport types\ntypes.FunctionType = int`]),
          episode(PYTEST_ADD, [ADD_RIGHT]),
        ]),
      );
      expect(forged.reward, JSON.stringify(forged.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
      expect(control.reward, JSON.stringify(control.detail)).toMatchObject({ reward: 1, f2p_count: 2 });
    });

    it('gives no reward for a test function of the model that exits first, or a rebound check', async () => {
      const [exits, rebound, control] = await watched(() =>
        Promise.all([
          // Defined before the task's own test functions, so called first: the child exits 0 before any assert.
          episode(PYTEST_ADD, [
            `${ADD_WRONG}
import os
def test_0():
    os._exit(0)`,
          ]),
          // The check the rewritten asserts call is looked up when the test functions run, after all the model's code.
          episode(PYTEST_ADD, [
            `${ADD_WRONG}
${ALL_TRUE}`,
          ]),
          episode(PYTEST_ADD, [
            `${ADD_RIGHT}
import os
def test_0():
    pass`,
          ]),
        ]),
      );
      expect(exits.reward, JSON.stringify(exits.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
      expect(rebound.reward, JSON.stringify(rebound.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
      expect(control.reward, JSON.stringify(control.detail)).toMatchObject({ reward: 1, f2p_count: 2 });
    });
  },
);
