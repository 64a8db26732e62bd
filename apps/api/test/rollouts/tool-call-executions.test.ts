import { importDump } from '@fusebox/rollouts';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RouterContext, createRouterContext } from '../router-context';

// A rollout's tool call names no execution: the router joins it to the executions of its exact code and puts
// first the one whose output the model was shown.
describe('executions.forToolCalls', () => {
  let context: RouterContext;
  let caller: RouterContext['caller'];
  const base = Date.parse('2026-11-20T12:00:00Z');
  const product = 'a = 6\nb = 7\nprint(a * b)';
  const loop = 'while True:\n    pass';

  beforeAll(async () => {
    context = await createRouterContext();
    caller = context.caller;
    const run = (code: string, at: number, fields: Record<string, unknown>) => ({
      source: 'run_code',
      language: 'python',
      code,
      status: 'Success',
      runStatus: 'Finished',
      returnCode: 0,
      requestedAt: new Date(base + at),
      runMs: 30,
      ...fields,
    });
    await context.services.prisma.execution.createMany({
      data: [
        run(product, 1000, { stdout: '42\n' }),
        // The same code again, later, with another output (another sample's run): listed after the one shown.
        run(product, 2000, { stdout: '41\n', sessionId: null }),
        run(loop, 3000, {
          status: 'Failed',
          runStatus: 'TimeLimitExceeded',
          returnCode: null,
          runMs: 10_000,
          stderr: '',
        }),
        run('print("x" * 10**7)', 4000, { stdout: 'xxxx', outputTruncated: true }),
        run('import sys; sys.exit(3)', 5000, { status: 'Failed', returnCode: 3, stderr: 'bye\n' }),
      ],
    });
  });
  afterAll(() => context?.close());

  it('lists the run whose output the response shows first, then the others newest first', async () => {
    const [found] = await caller.executions.forToolCalls({ calls: [{ code: product, response: '42' }] });
    expect(found!.count).toBe(2);
    expect(found!.capped).toBe(false);
    expect(
      found!.executions.map((execution) => [execution.requestedAt.getTime() - base, execution.outputMatches]),
    ).toEqual([
      [1000, true],
      [2000, false],
    ]);
  });

  it('carries what makes a failure look like one: status, exit code, time limit, truncation', async () => {
    const found = await caller.executions.forToolCalls({
      calls: [
        // verl's sandbox tool answers a run that did not finish with this text, not the time limit.
        { code: loop, response: 'no stdout here' },
        { code: 'print("x" * 10**7)', response: 'xxxx' },
        { code: 'import sys; sys.exit(3)', response: 'bye' },
        { code: 'print("never ran")', response: null },
      ],
    });
    expect(
      found.map(({ count, executions: [first] }) => [
        count,
        first?.status,
        first?.runStatus,
        first?.returnCode,
        first?.outputTruncated,
        first?.outputMatches,
      ]),
    ).toEqual([
      [1, 'Failed', 'TimeLimitExceeded', null, false, false],
      [1, 'Success', 'Finished', 0, true, true],
      [1, 'Failed', 'Finished', 3, false, true],
      [0, undefined, undefined, undefined, undefined, undefined],
    ]);
  });

  it("puts first the run the sample's own rollout sent, even when another run printed the same", async () => {
    const code = 'import random\nprint(4)';
    const sent = (requestId: string | null, at: number) => ({
      source: 'run_code',
      language: 'python',
      code,
      status: 'Success',
      stdout: '4\n',
      requestId,
      toolInstance: requestId && `${requestId}-tool`,
      requestedAt: new Date(base + at),
    });
    // Three rollouts ran the same code and printed the same: only the request id tells them apart.
    await context.services.prisma.execution.createMany({
      data: [sent('rollout-a', 10_000), sent('rollout-b', 11_000), sent(null, 12_000)],
    });
    const firstFor = async (requestId?: string | null) => {
      const [found] = await caller.executions.forToolCalls({ calls: [{ code, response: '4' }], requestId });
      return found!.executions.map((run) => [
        run.requestedAt.getTime() - base,
        run.sameRequest,
        run.outputMatches,
      ]);
    };
    expect(await firstFor('rollout-a')).toEqual([
      [10_000, true, true],
      [12_000, false, true],
      [11_000, false, true],
    ]);
    expect((await firstFor('rollout-b'))[0]).toEqual([11_000, true, true]);
    // A sample without a request id, or one no run names, gets the newest run that printed its response.
    expect((await firstFor(null))[0]).toEqual([12_000, false, true]);
    expect((await firstFor('rollout-z'))[0]).toEqual([12_000, false, true]);
  });

  it('ranks a run of the same request id that printed something else below one that printed the response', async () => {
    // Request ids are the client's: a resumed training run can send the same id and code again.
    const code = 'print(len("resumed"))';
    const sent = (requestId: string | null, at: number, stdout: string) => ({
      source: 'run_code',
      language: 'python',
      code,
      status: 'Success',
      stdout,
      requestId,
      requestedAt: new Date(base + at),
    });
    await context.services.prisma.execution.createMany({
      data: [sent(null, 20_000, '7\n'), sent('step-1-0', 21_000, '8\n')],
    });
    const [shown] = await caller.executions.forToolCalls({
      calls: [{ code, response: '7' }],
      requestId: 'step-1-0',
    });
    expect(shown!.executions.map((run) => [run.requestedAt.getTime() - base, run.sameRequest])).toEqual([
      [20_000, false],
      [21_000, true],
    ]);
    // A response that shows no run's output (cut by the tool): the run its request sent comes first.
    const [cut] = await caller.executions.forToolCalls({
      calls: [{ code, response: '…' }],
      requestId: 'step-1-0',
    });
    expect(cut!.executions[0]).toMatchObject({ sameRequest: true, outputMatches: false });
  });

  it('refuses empty code and too many calls with a clear error', async () => {
    await expect(
      caller.executions.forToolCalls({ calls: [{ code: '', response: null }] }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    const many = Array.from({ length: 101 }, () => ({ code: 'x', response: null }));
    await expect(caller.executions.forToolCalls({ calls: many })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it("links a sample's sid to the session this Fusebox holds, and names none it does not", async () => {
    const { prisma } = context.services;
    await prisma.task.create({
      data: { id: '17', name: 'add', source: 'fusebox', prompt: 'add', language: 'python' },
    });
    await prisma.session.create({
      data: { id: '9007199254740991', taskId: '17', sessionMode: 'stateful', actionCount: 3, errorCount: 1 },
    });
    const dir = await writeDump({
      '1.jsonl': [dumpLine({ sid: '9007199254740991' }), dumpLine({ sid: 12 }), dumpLine({ sid: 'x; drop' })],
    });
    const { run } = await importDump(context.opened.sql, { dir, name: 'swedev-run' });
    const sessionOf = async (line: number) =>
      (await caller.rollouts.sample({ runId: run.id, step: 1, line })).session;
    expect(await sessionOf(1)).toEqual({
      id: '9007199254740991',
      state: 'active',
      reward: null,
      actionCount: 3,
      errorCount: 1,
    });
    expect(await sessionOf(2)).toBeNull();
    expect(await sessionOf(3)).toBeNull();
  });
});
