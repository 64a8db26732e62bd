import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostileServer, healthProblem, startHostileServer } from './hostile-server';

// Each stream of each /run_jupyter cell is capped (FUSEBOX_EXECUTOR_OUTPUT_LIMIT_BYTES), but a request may hold
// a thousand cells: before the request's own budget, 200 cells that each printed 1 MiB to stdout and stderr made
// one 419 MB answer, the server's RSS went from 358 to 2783 MB and a ping waited 4.3 s (hostile review).
const MIB = 1024 * 1024;
const CELLS = 12;

let h: HostileServer;
beforeAll(async () => {
  h = await startHostileServer({
    FUSEBOX_EXECUTOR_OUTPUT_LIMIT_BYTES: String(MIB),
    FUSEBOX_EXECUTOR_JUPYTER_OUTPUT_LIMIT_BYTES: String(4 * MIB + 1),
  });
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

interface Cell {
  stdout: string;
  stderr: string;
  error: { ename: string; evalue: string; traceback: string[] }[];
}

/** Runs CELLS copies of `cell` in one request while the server is pinged; the answer, after the common checks. */
async function runCells(cell: string): Promise<{ status: string; cells: Cell[] }> {
  const { result, health } = await h.watch(() =>
    h.post('/run_jupyter', { cells: Array<string>(CELLS).fill(cell), cell_timeout: 30, total_timeout: 600 }),
  );
  expect(healthProblem(health)).toBeUndefined();
  expect(result.status).toBe(200);
  // Each case writes 24 MiB or more; the budget keeps 4 MiB and the notes.
  expect(result.text.length).toBeLessThan(5 * MIB);
  const answer = JSON.parse(result.text) as { status: string; cells: Cell[] };
  expect(answer.cells).toHaveLength(CELLS);
  return answer;
}

describe("a /run_jupyter request's cells that each print the output limit", { timeout: 300_000 }, () => {
  it('answer within the budget of the whole request, the rest dropped with a note', async () => {
    const cell = `import sys\nn = sys.stdout.write("é" * ${MIB / 2})\nn = sys.stderr.write("b" * ${MIB})`;
    const { status, cells } = await runCells(cell);
    expect(status).toBe('Success');
    // Two cells fit whole (2 MiB each); the byte left would cut the third's first character, so none is kept.
    expect(cells[0]!.stdout).toBe('é'.repeat(MIB / 2));
    expect(cells[1]!.stderr).toBe('b'.repeat(MIB));
    expect(cells[2]!.stdout).toMatch(
      /^\n\[Fusebox: output truncated: 1048576 bytes dropped \(the cells of a request/,
    );
    // stderr's ASCII takes that byte.
    expect(cells[2]!.stderr).toMatch(/^b\n\[Fusebox: output truncated: 1048575 bytes dropped/);
    expect(cells.at(-1)!.stdout).toContain('FUSEBOX_EXECUTOR_JUPYTER_OUTPUT_LIMIT_BYTES');
  });

  it("count their exceptions' messages too, keeping each error's name", async () => {
    // An exception's message is in its evalue and its traceback: 2 MB a cell here, uncapped per cell.
    const cell = 'raise ValueError("x" * 1000000)';
    const { cells } = await runCells(cell);
    expect(cells.map((one) => one.error[0]?.ename)).toEqual(Array<string>(CELLS).fill('ValueError'));
    expect(cells[0]!.error[0]!.evalue).toBe('x'.repeat(1000000));
    expect(cells.at(-1)!.error[0]).toMatchObject({ traceback: [] });
    expect(cells.at(-1)!.error[0]!.evalue).toMatch(/^\n\[Fusebox: output truncated: 1000000 bytes dropped/);
  });
});
