import { createCaller } from '@fusebox/api-router';
import { importDump } from '@fusebox/rollouts';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trpcContext } from '../../src/trpc-context';
import { type RouterContext, createRouterContext } from '../router-context';

// A page's live stream starts seconds after the page was rendered: its first event says whether the run (or the
// run list) changed lately, so a change made in between is refetched rather than taken as what the page shows.
describe('rollout live streams', () => {
  let context: RouterContext;
  let runId = '';

  beforeAll(async () => {
    context = await createRouterContext();
    const dir = await writeDump({ '1.jsonl': [dumpLine({}), dumpLine({})] });
    runId = (await importDump(context.opened.sql, { dir, name: 'live-run' })).run.id;
  });
  afterAll(() => context?.close());

  /** The first event of a fresh subscription to each stream. */
  async function firstEvents() {
    const controller = new AbortController();
    const caller = createCaller(trpcContext(context.services), { signal: controller.signal });
    const first = async (stream: AsyncIterable<unknown>) => {
      for await (const event of stream) return event as [string, Record<string, unknown>];
      throw new Error('the stream ended without an event');
    };
    try {
      return {
        run: await first(await caller.rolloutAnalysis.runChanges({ runId })),
        runs: await first(await caller.rollouts.runsChanges()),
      };
    } finally {
      controller.abort();
    }
  }

  it('says a run just imported changed lately, and one quiet for a minute did not', async () => {
    const fresh = await firstEvents();
    expect(fresh.run[1]).toEqual({ steps: 1, samples: 2, lastStep: 1, changedLately: true });
    expect(fresh.runs[1]).toEqual({ runs: 1, changedLately: true });

    await context.services.prisma.rolloutFile.updateMany({
      data: { updatedAt: new Date(Date.now() - 60_000) },
    });
    const quiet = await firstEvents();
    expect(quiet.run[1]).toMatchObject({ changedLately: false });
    expect(quiet.runs[1]).toMatchObject({ changedLately: false });
    // Whether it changed lately is no part of the version: the page refetches on versions only.
    expect(quiet.run[0]).toBe(fresh.run[0]);
    expect(quiet.runs[0]).toBe(fresh.runs[0]);
  });
});
