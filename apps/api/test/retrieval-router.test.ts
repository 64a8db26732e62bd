import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCorpus } from '@fusebox/retrieval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RouterContext, createRouterContext } from './router-context';

describe('the retrieval router', () => {
  let context: RouterContext;
  beforeAll(async () => {
    context = await createRouterContext();
    const path = join(await mkdtemp(join(tmpdir(), 'fusebox-retrieval-router-')), 'wiki.jsonl');
    await writeFile(path, `${JSON.stringify({ id: '1', contents: '"Oslo"\nOslo.' })}\nnot json\n`);
    const { corpus } = await importCorpus(context.opened.sql, { path, name: 'wiki' });
    const calls = [
      {
        corpusName: 'wiki',
        corpusId: corpus.id,
        queries: ['oslo'],
        topk: 3,
        status: 200,
        results: [[{ id: '1', score: 1.5 }]],
      },
      { corpusName: 'nope', queries: ['x'], topk: 3, status: 404, error: 'no corpus named "nope"' },
      {
        corpusName: 'wiki',
        corpusId: corpus.id,
        queries: ['a', 'b'],
        topk: 1,
        status: 200,
        results: [[], []],
      },
    ];
    // One at a time: ids are time-ordered, and the list is newest first.
    for (const call of calls)
      await context.services.prisma.retrievalCall.create({ data: { ...call, durationMs: 2 } });
  });
  afterAll(() => context?.close());

  it('lists the corpora with their size, rejected lines and calls', async () => {
    expect(await context.caller.retrieval.corpora()).toEqual([
      expect.objectContaining({ name: 'wiki', documentCount: 1, linesRejected: 1, _count: { calls: 2 } }),
    ]);
  });

  it('pages the calls newest first, with what was asked and returned, and filters refusals and corpora', async () => {
    const first = await context.caller.retrieval.calls({ limit: 2 });
    expect(first.items.map((call) => call.queries)).toEqual([['a', 'b'], ['x']]);
    const second = await context.caller.retrieval.calls({ limit: 2, cursor: first.nextCursor });
    expect(second.items).toEqual([
      expect.objectContaining({ corpusName: 'wiki', status: 200, results: [[{ id: '1', score: 1.5 }]] }),
    ]);
    expect(second.nextCursor).toBeNull();
    const refused = await context.caller.retrieval.calls({ refused: true });
    expect(refused.items.map((call) => [call.status, call.error])).toEqual([[404, 'no corpus named "nope"']]);
    expect((await context.caller.retrieval.calls({ corpus: 'wiki' })).items).toHaveLength(2);
  });
});
