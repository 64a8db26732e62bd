import { describe, expect, it } from 'vitest';
import { contained, openSession, useProbes } from './sandbox-probe';

// Hostile review of IPython in interpreter sessions (kernel.py): how big a cell can make its answer. A cell's
// display data has a budget (a quarter of the output limit plus 512 KiB); the answer must stay near it.

const probes = useProbes();

/** The largest answer a cell that prints one short line may get: the display budget with room for JSON. */
const ANSWER_BOUND_BYTES = 2 * 1024 * 1024;

async function cellAnswer(code: string): Promise<{ status: number; text: string }> {
  const session = await openSession(probes.server());
  try {
    return await contained(probes.server(), () => session.cell(code, 60));
  } finally {
    await session.close();
  }
}

describe('display data of a cell', () => {
  it('cuts one huge display bundle to the budget', async () => {
    const answer = await cellAnswer(
      'from IPython.display import display\ndisplay({"text/html": "x" * (50 << 20)}, raw=True)\nprint("shown")',
    );
    expect(answer.status).toBe(200);
    const cell = JSON.parse(answer.text) as { stdout: string; display: { 'text/html'?: string }[] };
    // Detection: the display did come back, cut, beside the cell's own output.
    expect(cell.stdout).toBe('shown\n');
    expect(cell.display[0]?.['text/html']?.length).toBeGreaterThan(0);
    expect(answer.text.length).toBeLessThan(ANSWER_BOUND_BYTES);
  });

  // Once a hole: the budget bounded the bytes of display values, not the number of bundles, so 200,000 empty
  // `display()` calls answered 3.6 MB of empty entries and 2,000,000 killed the interpreter. Each entry now costs
  // its MIME type and separators, and a bundle nothing of which fits adds no entry.
  it('keeps a cell’s answer near the display budget however many bundles it displays', async () => {
    const answer = await cellAnswer(
      'from IPython.display import display\nfor i in range(200_000): display({"text/plain": ""}, raw=True)\nprint("done")',
    );
    expect(answer.status).toBe(200);
    // Detection: the cell ran to its end and was answered.
    expect((JSON.parse(answer.text) as { stdout: string }).stdout).toBe('done\n');
    expect(answer.text.length).toBeLessThan(ANSWER_BOUND_BYTES);
  });
});
