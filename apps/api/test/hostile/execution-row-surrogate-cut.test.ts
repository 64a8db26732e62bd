import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostileServer, startHostileServer } from './hostile-server';

// An execution row keeps 64 Ki characters of stdout and 1 Mi of code, cut after storableText made them storable:
// a cut between the two halves of a surrogate pair leaves one alone. The run's own output (or code) decides
// where the cut falls. If the row could not be written the client would get 503 (a request is answered only once
// its row is in), and a reward's rows share the transaction that stores its detail.
const STORED_OUTPUT_CHARS = 64 * 1024;
const STORED_CODE_CHARS = 1024 * 1024;

let h: HostileServer;
beforeAll(async () => {
  h = await startHostileServer();
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

describe('an execution row cut inside a surrogate pair', { timeout: 60_000 }, () => {
  it('is stored when stdout is cut there', async () => {
    const code = `import sys\nsys.stdout.write("x" * ${STORED_OUTPUT_CHARS - 1} + "\\U0001F600")`;
    const answer = await h.post('/run_code', { code, language: 'python', run_timeout: 10 });
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect((JSON.parse(answer.text) as { status: string }).status).toBe('Success');
  });

  it('is stored when the code is cut there', async () => {
    const code = `#${'x'.repeat(STORED_CODE_CHARS - 2)}\u{1F600}\nprint(1)`;
    const answer = await h.post('/run_code', { code, language: 'python', run_timeout: 10 });
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect((JSON.parse(answer.text) as { status: string }).status).toBe('Success');
  });
});
