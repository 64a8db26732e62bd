import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RouterContext, createRouterContext } from './router-context';

describe('the executions router', () => {
  let context: RouterContext;
  let services: RouterContext['services'];
  let caller: RouterContext['caller'];
  const base = Date.parse('2026-11-20T12:00:00Z');

  beforeAll(async () => {
    context = await createRouterContext();
    ({ services, caller } = context);
    await services.prisma.execution.createMany({
      data: Array.from({ length: 7 }, (_, index) => ({
        source: 'run_code',
        language: index % 2 ? 'bash' : 'python',
        code: `print(${index})`,
        status: index === 3 ? 'Failed' : 'Success',
        stdout: `${index}\n`,
        requestedAt: new Date(base + index * 1000),
        acquiredAt: new Date(base + index * 1000 + 5),
        finishedAt: new Date(base + index * 1000 + 40),
        queueWaitMs: 5,
        runMs: 35,
      })),
    });
  });
  afterAll(() => context?.close());

  it('pages newest first with a cursor that neither skips nor repeats', async () => {
    const first = await caller.executions.list({ limit: 3 });
    const second = await caller.executions.list({ limit: 3, cursor: first.nextCursor });
    const third = await caller.executions.list({ limit: 3, cursor: second.nextCursor });
    const codes = [...first.items, ...second.items, ...third.items].map(
      (item) => item.requestedAt.getTime() - base,
    );
    expect(codes).toEqual([6000, 5000, 4000, 3000, 2000, 1000, 0]);
    expect(third.nextCursor).toBeNull();
  });

  it('filters by status, language and time range', async () => {
    expect((await caller.executions.list({ status: 'Failed' })).items).toHaveLength(1);
    expect((await caller.executions.list({ language: 'bash' })).items).toHaveLength(3);
    const range = await caller.executions.list({ from: base + 2000, to: base + 4000 });
    expect(range.items.map((item) => item.requestedAt.getTime() - base)).toEqual([3000, 2000]);
    expect(await caller.executions.languages()).toEqual(['bash', 'python']);
  });

  it('shows one execution in full, and NOT_FOUND for an unknown or malformed id', async () => {
    const [latest] = (await caller.executions.list({ limit: 1 })).items;
    const execution = await caller.executions.byId({ id: latest!.id });
    expect(execution).toMatchObject({ code: 'print(6)', stdout: '6\n', queueWaitMs: 5, runMs: 35 });
    await expect(caller.executions.byId({ id: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      caller.executions.byId({ id: '0190d6c2-0000-7000-8000-000000000000' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('filters by the statuses of requests that got no answer: Refused, Abandoned, Error, and 429s', async () => {
    const unanswered = [
      ['Refused', '429 64 executions already waiting'],
      ['Refused', '422 body.language: Field required'],
      ['Abandoned', ''],
      ['Error', ''],
    ] as const;
    await services.prisma.execution.createMany({
      data: unanswered.map(([status, message], index) => ({
        source: 'run_code',
        language: 'python',
        code: 'print(1)',
        status,
        message,
        requestedAt: new Date(base - 10_000 + index),
      })),
    });
    // Newest first, each row known by its place in `unanswered` (its request time).
    const listed = async (status: 'Refused' | 'Abandoned' | 'Error' | 'RateLimited') =>
      (await caller.executions.list({ status })).items.map(
        (item) => item.requestedAt.getTime() - (base - 10_000),
      );
    expect(await listed('Refused')).toEqual([1, 0]);
    expect(await listed('RateLimited')).toEqual([0]);
    expect(await listed('Abandoned')).toEqual([2]);
    expect(await listed('Error')).toEqual([3]);
    await expect(caller.executions.list({ status: 'Lost' as 'Error' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('finds text in the code, stdout or stderr, ignoring case, with % and _ as themselves', async () => {
    const needles = [
      { code: 'x = "Needle_50%"', stdout: '', stderr: '' },
      { code: 'print(1)', stdout: 'found a NEEDLE\n', stderr: '' },
      { code: 'raise E', stdout: '', stderr: 'NeedleError: a50b\n' },
    ];
    await services.prisma.execution.createMany({
      data: needles.map((texts, index) => ({
        source: 'run_code',
        language: 'python',
        status: 'Success',
        ...texts,
        requestedAt: new Date(base - 20_000 + index),
      })),
    });
    const found = await caller.executions.list({ q: 'needle' });
    expect(found.items.map((item) => item.requestedAt.getTime() - base)).toEqual([-19_998, -19_999, -20_000]);
    // As LIKE wildcards, `_50%` would also match `a50b`.
    const literal = await caller.executions.list({ q: '_50%' });
    expect(literal.items.map((item) => item.requestedAt.getTime() - base)).toEqual([-20_000]);
    expect((await caller.executions.list({ q: 'needle\\' })).items).toEqual([]);
    expect((await caller.executions.list({ q: 'needle', status: 'Failed' })).items).toEqual([]);
    await expect(caller.executions.list({ q: 'x'.repeat(201) })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('sorts the slowest first, pages without skipping or repeating, and leaves out what never ran', async () => {
    await services.prisma.execution.createMany({
      data: [120.5, 999.25, 999.25, 0.1].map((runMs, index) => ({
        source: 'run_code',
        language: 'python',
        code: `slow(${index})`,
        status: 'Success',
        requestedAt: new Date(base - 30_000 + index),
        runMs,
      })),
    });
    const seen: { id: string; runMs: number | null }[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof caller.executions.list>> = await caller.executions.list({
        sort: 'slowest',
        limit: 2,
        cursor,
      });
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    // The seven rows of the set-up ran 35 ms; the Refused, Abandoned and Error rows never ran.
    expect(seen.map((item) => item.runMs)).toEqual([
      999.25,
      999.25,
      120.5,
      ...Array<number>(7).fill(35),
      0.1,
    ]);
    expect(new Set(seen.map((item) => item.id)).size).toBe(seen.length);
    const ties = seen.slice(0, 2).map((item) => item.id);
    expect(ties).toEqual([...ties].sort().reverse());
    await expect(
      caller.executions.list({ sort: 'slowest', cursor: `1e400:${seen[0]!.id}` }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
