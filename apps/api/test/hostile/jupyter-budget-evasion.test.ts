import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostileServer, healthProblem, startHostileServer } from './hostile-server';

// Ways around the output budget a /run_jupyter request's cells share (FUSEBOX_EXECUTOR_JUPYTER_OUTPUT_LIMIT_BYTES),
// none of which may make the answer grow with the cell count: display data (an expression's value, IPython's
// display()), many small cells, and errors whose names or keys the code chooses. The budget first kept each
// error's `ename` whole and uncounted, and any other key of the entry: a class named by a 1 MB string made 8
// cells answer 8 MB on a 1 MiB budget (hostile review).
const MIB = 1024 * 1024;

let h: HostileServer;
beforeAll(async () => {
  h = await startHostileServer({
    FUSEBOX_EXECUTOR_OUTPUT_LIMIT_BYTES: String(MIB),
    FUSEBOX_EXECUTOR_JUPYTER_OUTPUT_LIMIT_BYTES: String(MIB),
  });
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

interface Cell {
  stdout: string;
  display: Record<string, unknown>[];
  error: { ename: string }[];
}

async function runCells(cells: string[]): Promise<{ text: string; cells: Cell[] }> {
  const { result, health } = await h.watch(() =>
    h.post('/run_jupyter', { cells, cell_timeout: 30, total_timeout: 600 }),
  );
  expect(healthProblem(health)).toBeUndefined();
  expect(result.status).toBe(200);
  const answer = JSON.parse(result.text) as { status: string; cells: Cell[] };
  expect(answer.status).toBe('Success');
  expect(answer.cells).toHaveLength(cells.length);
  return { text: result.text, cells: answer.cells };
}

describe("a /run_jupyter request's cells that output around the budget", { timeout: 300_000 }, () => {
  it('display large values: the first whole, the rest dropped with a note', async () => {
    // 12 values of 700 kB (and a display() of another in each cell): 16 MB of display data.
    const cell = 'from IPython.display import display\ndisplay("y" * 700000)\n"x" * 700000';
    const { text, cells } = await runCells(Array<string>(12).fill(cell));
    expect(text.length).toBeLessThan(2 * MIB);
    expect(JSON.stringify(cells[0]!.display)).toContain('y'.repeat(1000));
    expect(cells.at(-1)!.display).toHaveLength(1);
    expect(cells.at(-1)!.display[0]!['text/plain']).toMatch(
      /^\[Fusebox: display data dropped: .*JUPYTER_OUTPUT_LIMIT_BYTES/,
    );
  });

  it('print a little each, in many cells: the budget holds for the request as a whole', async () => {
    const { text, cells } = await runCells(Array<string>(300).fill('print("z" * 8000)'));
    // 2.4 MB printed; the budget keeps 1 MiB and a note per cut cell.
    expect(text.length).toBeLessThan(1.5 * MIB);
    expect(cells[0]!.stdout).toBe(`${'z'.repeat(8000)}\n`);
    expect(cells.at(-1)!.stdout).toMatch(/^\n\[Fusebox: output truncated: 8001 bytes dropped/);
  });

  it('raise exceptions with megabyte class names: the names are cut past the budget', async () => {
    // The name appears three times in the kernel's reply line (ename, and twice in the traceback).
    const { text, cells } = await runCells(
      Array<string>(8).fill('raise type("E" * 1000000, (Exception,), {})()'),
    );
    expect(text.length).toBeLessThan(2 * MIB);
    expect(cells.at(-1)!.error[0]!.ename).toMatch(/^E{256}…$/);
  });

  it('add their own keys to every later error: an error past the budget keeps its name and message only', async () => {
    // A cell runs in the kernel's process: it can rebind the kernel's error_entry, found through a method of its
    // IPython shell (a forked interpreter's objects are frozen out of the collector's list).
    const patch = [
      'kernel = type(get_ipython()).showtraceback.__globals__',
      "own = kernel['error_entry']",
      "kernel['error_entry'] = lambda exc, cells: {**own(exc, cells), 'pad': 'p' * 1000000}",
    ].join('\n');
    const { text, cells } = await runCells([patch, ...Array<string>(8).fill('raise ValueError("v")')]);
    expect(cells[0]!.error).toEqual([]);
    expect(cells.at(-1)!.error[0]!.ename).toBe('ValueError');
    expect(text.length).toBeLessThan(2 * MIB);
  });
});
