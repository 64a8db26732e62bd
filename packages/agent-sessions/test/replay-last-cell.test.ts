import { type Executor, createExecutor } from '@fusebox/local-sandbox/executor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellAsRunResponse, lastCellOutcome } from '../src/cell-outcome';

// An action of a stateful session runs in the session's live interpreter, or, when the executor has none to
// spare, in a one-off `/run_jupyter` replay of the session's cells. Both must say the same of the last cell:
// what the model is shown, and whether the session's state survives it (a timeout or a crash ends it).

let executor: Executor;
beforeAll(async () => {
  executor = await createExecutor({ concurrency: 2 });
});
afterAll(() => executor?.close());

const TIMEOUT_S = 1;

async function live(cells: readonly string[]): Promise<string> {
  const session = await executor.sessions.create({ cellTimeoutMs: TIMEOUT_S * 1000 });
  try {
    let status = '';
    for (const code of cells) status = (await executor.sessions.run(session.id, code)).status;
    return status;
  } finally {
    executor.sessions.close(session.id);
  }
}

async function replayed(cells: readonly string[]) {
  const { response } = await executor.runJupyter({
    cells: [...cells],
    cell_timeout: TIMEOUT_S,
    total_timeout: TIMEOUT_S * (cells.length + 1),
  });
  return lastCellOutcome(response, cells.length);
}

describe('the last cell of a replay', () => {
  const cases: [name: string, cells: string[], status: string, runStatus: string][] = [
    ['ran', ['x = 6', 'print(x * 7)'], 'ok', 'Success'],
    ['raised', ['x = 6', 'raise ValueError(x)'], 'error', 'Failed'],
    ['timed out', ['x = 6', 'while True: pass'], 'timeout', 'Failed'],
    ['crashed the interpreter', ['x = 6', 'import os; os._exit(3)'], 'died', 'SandboxError'],
    // The names the interpreter gives a timeout and a crash, raised by the cell itself, are only raised.
    [
      'raised the timeout error',
      ['raise TimeoutError("the cell did not finish within 1 s")'],
      'error',
      'Failed',
    ],
    [
      'raised the crash error',
      ['class DeadKernelError(Exception): pass', 'raise DeadKernelError("the interpreter died")'],
      'error',
      'Failed',
    ],
  ];
  for (const [name, cells, status, runStatus] of cases) {
    it(`that ${name} is what it is in a live interpreter: ${status}`, async () => {
      const outcome = await replayed(cells);
      expect(outcome.status).toBe(status);
      expect(await live(cells)).toBe(status);
      expect(cellAsRunResponse(outcome).status).toBe(runStatus);
    }, 30_000);
  }

  it('that never ran, because an earlier cell crashed the replay, is a crash that says so, whatever it holds', async () => {
    // The session's own earlier code can crash only when replayed (a clock check); it must not get to pick the
    // label of the cell after it, nor hide it as a bare timeout.
    for (const last of ['raise ValueError(1)', 'print(1)', 'while True: pass']) {
      const outcome = await replayed(['import os; os._exit(3)', last]);
      expect(outcome.status).toBe('died');
      expect(outcome.error.map((error) => error.evalue).join('')).toContain('did not run');
    }
    const timedOutEarlier = await replayed(['while True: pass', 'raise ValueError(1)']);
    expect(timedOutEarlier.status).toBe('died');
    expect(cellAsRunResponse(timedOutEarlier).status).toBe('SandboxError');
  }, 60_000);

  it('that timed out is answered as a time limit, as a live cell is', async () => {
    const response = cellAsRunResponse(await replayed(['x = 6', 'while True: pass']));
    expect(response.run_result?.status).toBe('TimeLimitExceeded');
  }, 30_000);
});
