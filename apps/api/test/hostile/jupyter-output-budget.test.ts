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

describe("a /run_jupyter request's cells that each print the output limit", { timeout: 300_000 }, () => {
  it('answer within the budget of the whole request, the rest dropped with a note', async () => {
    const cell = `import sys\nn = sys.stdout.write("é" * ${MIB / 2})\nn = sys.stderr.write("b" * ${MIB})`;
    const { result, health } = await h.watch(() =>
      h.post('/run_jupyter', {
        cells: Array<string>(CELLS).fill(cell),
        cell_timeout: 30,
        total_timeout: 600,
      }),
    );
    expect(healthProblem(health)).toBeUndefined();
    expect(result.status).toBe(200);
    // Without the budget: 24 MiB of output. With it, 4 MiB and the notes.
    expect(result.text.length).toBeLessThan(5 * MIB);
    const { status, cells } = JSON.parse(result.text) as {
      status: string;
      cells: { stdout: string; stderr: string }[];
    };
    expect(status).toBe('Success');
    expect(cells).toHaveLength(CELLS);
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
    const { result, health } = await h.watch(() =>
      h.post('/run_jupyter', {
        cells: Array<string>(CELLS).fill(cell),
        cell_timeout: 30,
        total_timeout: 600,
      }),
    );
    expect(healthProblem(health)).toBeUndefined();
    expect(result.status).toBe(200);
    expect(result.text.length).toBeLessThan(5 * MIB);
    const { cells } = JSON.parse(result.text) as {
      cells: { error: { ename: string; evalue: string; traceback: string[] }[] }[];
    };
    expect(cells.map((one) => one.error[0]?.ename)).toEqual(Array<string>(CELLS).fill('ValueError'));
    expect(cells[0]!.error[0]!.evalue).toBe('x'.repeat(1000000));
    expect(cells.at(-1)!.error[0]).toMatchObject({ traceback: [] });
    expect(cells.at(-1)!.error[0]!.evalue).toMatch(/^\n\[Fusebox: output truncated: 1000000 bytes dropped/);
  });
});
