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

  // Once a hole: the budget counted characters, not the bytes they encode to in the reply, so 100 displays of
  // 100,000 U+0001 characters (each \u0001 in JSON, six bytes) or of a str whose __len__ says 0 were kept whole,
  // and the interpreter was killed (signal 9) rather than the display cut. It now counts the encoded bytes, of a
  // plain copy of the str.
  it('keeps a cell’s answer near the budget when display values escape or lie about their length', async () => {
    for (const value of ['"\\x01" * 100_000', 'S("x" * (8 << 20))']) {
      const answer = await cellAnswer(
        `from IPython.display import display\nclass S(str):\n    def __len__(self): return 0\nfor i in range(100): display({"text/plain": ${value}}, raw=True)\nprint("done")`,
      );
      expect(answer.status).toBe(200);
      const cell = JSON.parse(answer.text) as {
        status: string;
        stdout: string;
        display: { 'text/plain'?: string }[];
      };
      expect(cell.status, answer.text.slice(0, 300)).toBe('ok');
      expect(cell.stdout).toBe('done\n');
      // Detection: the displays reached the kernel's accounting, which kept what fits, cut.
      expect(cell.display[0]?.['text/plain']?.length).toBeGreaterThan(0);
      expect(answer.text.length).toBeLessThan(ANSWER_BOUND_BYTES);
    }
  });
});
