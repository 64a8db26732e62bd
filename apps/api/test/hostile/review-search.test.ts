import { describe, expect, it } from 'vitest';
import { healthProblem } from './hostile-server';
import { useImportedServer } from './review-imported-server';

// Hostile review of search sessions and /retrieve (issue 21's surfaces, attacked as issue 15 asks): what the
// answer tags let a model be rewarded for, and what huge or many queries do to the server.

const GOLDEN = 'Lyon';
// A passage that carries the golden answer in answer tags, as a poisoned or quoted web page would.
const server = useImportedServer([
  {
    kind: 'corpus',
    rows: [
      { id: '1', contents: `"Rivers"\nThe Rhone meets the Saone in a city. <answer>${GOLDEN}</answer>` },
      { id: '2', contents: '"Paris"\nParis is the capital of France.' },
    ],
  },
  {
    kind: 'tasks',
    rows: [
      {
        instance_hash: '7101',
        id: 'r1',
        question: 'Where do the Rhone and Saone meet?',
        golden_answers: [GOLDEN],
      },
    ],
  },
]);

async function call(path: string, body: unknown): Promise<Record<string, unknown>> {
  const answer = await server().post(path, body);
  expect(answer.status, `${path}: ${answer.text.slice(0, 500)}`).toBe(200);
  return JSON.parse(answer.text) as Record<string, unknown>;
}

/** An episode of the search task: each action's observation, and the reward. */
async function episode(actions: string[]): Promise<{ observations: string[]; reward: number }> {
  const { result, health } = await server().watch(async () => {
    const { sid } = (await call('/start_instance', { instance_hash: '7101' })) as { sid: string };
    const observations: string[] = [];
    for (const content of actions)
      observations.push((await call('/process_action', { sid, content })).content as string);
    const reward = (await call('/compute_reward', { sid })) as { reward: number };
    return { observations, reward: reward.reward };
  });
  expect(healthProblem(health)).toBeUndefined();
  return result;
}

describe('search session rewards', () => {
  it('rewards only an answer the model gave, not answer tags inside the passages it read', async () => {
    const read = await episode(['<search>Rhone Saone</search>', 'I am not sure.']);
    // Detection: the tagged golden answer did reach the model's context, in the passages.
    expect(read.observations[0]).toContain(`<answer>${GOLDEN}</answer>`);
    expect(read.reward).toBe(0);
    // Control: the same episode that answers is rewarded.
    const answered = await episode(['<search>Rhone Saone</search>', `<answer>${GOLDEN}</answer>`]);
    expect(answered.reward).toBe(1);
  });

  it('scores the last answer, so earlier hedges and a query holding the golden do not count', async () => {
    const hedged = await episode([`<answer>${GOLDEN}</answer>`, '<answer>Paris</answer>']);
    // Detection: the golden answer alone earns 1 (the test above), and the query below did reach the passages.
    const inQuery = await episode([`<search>is it ${GOLDEN}</search>`, '<answer>Paris</answer>']);
    expect(inQuery.observations[0]).toContain('Doc 1');
    const many = await episode([`${'<answer>Paris</answer>'.repeat(20)}<answer>${GOLDEN}</answer>`]);
    expect(hedged.reward).toBe(0);
    expect(inQuery.reward).toBe(0);
    // verl's compute_score: more than 10 answer tags in one response earn a quarter, even when the last is right.
    expect(many.reward).toBe(0.25);
  });
});

describe('queries, huge and many', () => {
  it('answers a huge query in a search action without stalling the server', async () => {
    // About 1 MB of query; a 10 MB action is refused as "not JSON" instead (see the report: parse-json-exact).
    const huge = `<search>${'rhone saone paris capital '.repeat(40_000)}</search>`;
    const run = await episode([huge, `<answer>${GOLDEN}</answer>`]);
    // The query is refused or searched, but the session goes on and still rewards its answer.
    expect(run.observations[0]?.length).toBeLessThan(100_000);
    expect(run.reward).toBe(1);
  });

  it('refuses /retrieve requests past its limits with a 4xx that names the limit', async () => {
    const { result, health } = await server().watch(async () => ({
      topk: await server().post('/retrieve', { queries: ['paris'], topk: 1e9 }),
      long: await server().post('/retrieve', { queries: ['x'.repeat(1_000_000)], topk: 3 }),
      many: await server().post('/retrieve', {
        queries: Array.from({ length: 100_000 }, () => 'paris'),
        topk: 3,
      }),
      ok: await server().post('/retrieve', { queries: ['paris'], topk: 1 }),
    }));
    expect(healthProblem(health)).toBeUndefined();
    expect(result.ok.status).toBe(200);
    expect(result.topk.status).toBe(422);
    expect(result.topk.text).toContain('FUSEBOX_RETRIEVE_MAX_TOPK');
    expect(result.long.status).toBe(422);
    expect(result.long.text).toContain('FUSEBOX_RETRIEVE_MAX_QUERY_CHARS');
    expect(result.many.status).toBeGreaterThanOrEqual(400);
    expect(result.many.status).toBeLessThan(500);
  });
});
