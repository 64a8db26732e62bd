import { describe, expect, it } from 'vitest';
import { healthProblem } from './hostile-server';
import { useImportedServer } from './review-imported-server';

// Hostile review of the dataset API's /submit (SandboxFusion's shape): can a submission forge its verdict? It
// is judged by the task's own tests through the sessions' test runner, so what a completion can try is to end
// the program early, print a verdict, or bring tests of its own in the request's `config`.

const ROWS = [
  {
    id: 11,
    content: 'Write add(a, b).',
    labels: { programming_language: 'python' },
    test: { code: 'assert add(2, 3) == 5\nassert add(-4, 1) == -3' },
  },
  {
    id: 'sum-ab',
    content: 'Read two integers and print their sum.',
    labels: { programming_language: 'python' },
    test: [
      { input: { stdin: '1 2\n' }, output: { stdout: '3\n' } },
      { input: { stdin: '-5 5\n' }, output: { stdout: '0\n' } },
    ],
  },
];

const server = useImportedServer([{ kind: 'tasks', rows: ROWS }]);

interface Verdict {
  accepted: boolean;
  tests: { passed: boolean }[];
}

/** Submits completions at once, the server watched meanwhile; each verdict. */
async function submit<T extends Record<string, unknown>[]>(
  ...bodies: T
): Promise<{ [K in keyof T]: Verdict }> {
  const h = server();
  const { result, health } = await h.watch(() =>
    Promise.all(bodies.map((body) => h.post('/submit', { config: {}, ...body }))),
  );
  expect(healthProblem(health)).toBeUndefined();
  return result.map((answer) => {
    expect(answer.status, answer.text).toBe(200);
    return JSON.parse(answer.text) as Verdict;
  }) as { [K in keyof T]: Verdict };
}

const fenced = (code: string) => `\`\`\`python\n${code}\n\`\`\``;
const RIGHT_ADD = fenced('def add(a, b):\n    return a + b');

describe('/submit verdicts', { timeout: 120_000 }, () => {
  it('refuses tests and data a submission brings in its config for a stored problem: its own tests judge it', async () => {
    const wrong = fenced('def add(a, b):\n    return 0');
    const h = server();
    const post = async (config: object) => {
      const answer = await h.post('/submit', { dataset: 'autoeval', id: 11, completion: wrong, config });
      return { status: answer.status, detail: (JSON.parse(answer.text) as { detail?: unknown }).detail };
    };
    // Each is refused by name, never silently used (nor silently ignored, which would hide that it was not).
    expect(await post({ provided_data: { id: 11, test: { code: 'assert add(1, 1) == 0' } } })).toEqual({
      status: 400,
      detail:
        'config.provided_data: problem 11 of dataset "autoeval" is stored, and its own tests judge it; send provided_data only for a problem that is not',
    });
    expect(await post({ extra: { test: 'assert True' } })).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/^config\.extra\.test: unknown option/) as unknown,
    });
    // Detection: with a config it honours, the task's tests judge: the wrong completion fails, the right passes.
    const config = { run_timeout: 5 };
    const [judged, control] = await submit(
      { dataset: 'autoeval', id: 11, completion: wrong, config },
      { dataset: 'autoeval', id: 11, completion: RIGHT_ADD, config },
    );
    expect([judged.accepted, control.accepted]).toEqual([false, true]);
  });

  it('does not accept a Python completion that ends the program early or prints a verdict', async () => {
    const [exits, prints, hooks] = await submit(
      { dataset: 'autoeval', id: 11, completion: fenced('import os\ndef add(a, b):\n    os._exit(0)') },
      {
        dataset: 'autoeval',
        id: 11,
        completion: fenced(
          'import sys\nprint("passed: 2 of 2")\nprint("OK")\nsys.exit(0)\ndef add(a, b): return 0',
        ),
      },
      {
        // Replaces the failing assert's exception with a clean exit, for whatever runs after it.
        dataset: 'autoeval',
        id: 11,
        completion: fenced(
          'import os, sys\nsys.excepthook = lambda *a: os._exit(0)\nimport atexit\natexit.register(lambda: os._exit(0))\ndef add(a, b): return 0',
        ),
      },
    );
    expect([exits.accepted, prints.accepted, hooks.accepted]).toEqual([false, false, false]);
  });

  it('does not accept a stdin/stdout completion that prints what a test expects without reading it', async () => {
    // Prints the first test's expected output whatever the input: it must fail the second.
    const [guess, control] = await submit(
      { dataset: 'common_oj', id: 'sum-ab', completion: fenced('print(3)') },
      {
        dataset: 'common_oj',
        id: 'sum-ab',
        completion: fenced('a, b = map(int, input().split())\nprint(a + b)'),
      },
    );
    expect(control.accepted).toBe(true);
    expect(guess.accepted).toBe(false);
    expect(guess.tests.map((test) => test.passed)).toEqual([true, false]);
  });
});
