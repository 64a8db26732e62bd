import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectPostgres } from '@fusebox/db/sql-client';
import { expect, test } from '@playwright/test';
import { fusebox } from '../fusebox-cli';
import { saveScreenshot } from '../screenshots';
import { API_URL, DATABASE_URL } from '../stack';

/** This spec's own corpus and task, so other specs' rows never decide a check. */
const CORPUS = 'e2e-search-wiki';
const TASK = '7021';
/** A task whose session goes wrong: its corpus was never imported, and the model never answers. */
const BROKEN_TASK = '7022';

/**
 * The specs share one stack, and sessions.spec.ts, which runs after this one, starts from an empty session
 * list: this spec's session and task go once it is done (the corpus stays; no spec counts corpora).
 */
test.afterAll(async () => {
  const db = await connectPostgres(DATABASE_URL);
  try {
    await db.query('DELETE FROM session WHERE task_id = ANY($1)', [[TASK, BROKEN_TASK]]);
    await db.query('DELETE FROM task WHERE id = ANY($1)', [[TASK, BROKEN_TASK]]);
  } finally {
    await db.end();
  }
});

async function jsonl(name: string, lines: unknown[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'fusebox-e2e-search-session-')), name);
  await writeFile(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return path;
}

test("a search session's page shows each query, the passages it got, and the answer's score in parts", async ({
  page,
  request,
}) => {
  const corpus = await jsonl('wiki.jsonl', [
    { id: 'p-paris', contents: '"Paris"\nParis is the capital and largest city of France.' },
    { id: 'p-lyon', contents: '"Lyon"\nLyon is a city of France where two rivers meet.' },
    { id: 'p-seine', contents: '"Seine"\nThe Seine is a river that flows through Paris.' },
  ]);
  const imported = await fusebox(['corpus', 'import', corpus, '--name', CORPUS]);
  expect(imported.code, imported.stderr).toBe(0);
  // Search-R1's task shape, with R1-Searcher's stage-1 terms.
  const tasks = await jsonl('tasks.jsonl', [
    {
      instance_hash: TASK,
      id: 'e2e-capital',
      question: 'What is the capital of France?',
      golden_answers: ['Paris', 'Paris, France'],
      corpus: CORPUS,
      topk: 2,
      retrieval_reward: 0.5,
      format_reward: 0.5,
    },
  ]);
  const taskImport = await fusebox(['tasks', 'import', tasks]);
  expect(taskImport.code, taskImport.stderr).toBe(0);

  // The seed's session flow: the model's turns in both tag conventions, then its answer, then the reward.
  const started = await request.post(`${API_URL}/start_instance`, { data: { instance_hash: TASK } });
  expect(started.status()).toBe(200);
  const { sid } = (await started.json()) as { sid: string };
  const turns = [
    '<think>I should look this up. <|begin_of_query|>capital of France<|end_of_query|>',
    'Paris it seems; does a river run through it? <search>river through Paris</search>',
    'It is Paris.</think>\n<answer>Paris</answer>',
  ];
  const observations: string[] = [];
  for (const content of turns) {
    const answered = await request.post(`${API_URL}/process_action`, { data: { sid, content } });
    expect(answered.status()).toBe(200);
    observations.push(((await answered.json()) as { content: string }).content);
  }
  expect(observations[0]).toContain('<|begin_of_documents|>');
  expect(observations[1]).toContain('<information>');
  const reward = await request.post(`${API_URL}/compute_reward`, { data: { sid } });
  // EM 1, plus the retrieval term 0.5 and the format term 0.5.
  expect(await reward.json()).toMatchObject({ reward: 2 });

  await page.goto(`/sessions/${sid}`);
  await expect(page.getByRole('heading', { name: `Session ${sid}` })).toBeVisible();
  await expect(page).toHaveTitle(`Session ${sid} · Fusebox`);
  const summary = page.getByRole('region', { name: 'task and reward' });
  await expect(summary).toContainText('What is the capital of France?');
  await expect(summary.getByLabel('golden answers')).toHaveText('Paris · Paris, France');
  await expect(summary).toContainText(CORPUS);

  // Each turn's query as the model wrote it, in its own convention, and the passages it was answered.
  const first = page.getByRole('listitem', { name: 'action 1' });
  await expect(first.getByLabel('query')).toContainText(
    '<|begin_of_query|>capital of France<|end_of_query|>',
  );
  const firstDocuments = first.getByRole('table', { name: 'documents' }).getByRole('row');
  await expect(firstDocuments).toHaveCount(3); // the header and topk = 2 passages
  await expect(firstDocuments.nth(1)).toContainText('p-paris');
  await expect(firstDocuments.nth(1)).toContainText('Paris');
  await expect(firstDocuments.nth(1).getByRole('cell').nth(3)).toHaveText(/^\d+\.\d{3}$/);
  // A passage's text opens on demand.
  const passage = firstDocuments.nth(1).getByText('capital and largest city of France');
  await expect(passage).toBeHidden();
  await firstDocuments.nth(1).getByText('Paris', { exact: true }).click();
  await expect(passage).toBeVisible();

  const second = page.getByRole('listitem', { name: 'action 2' });
  await expect(second.getByLabel('query')).toContainText('<search>river through Paris</search>');
  await expect(second.getByRole('table', { name: 'documents' })).toContainText('p-seine');
  await expect(second.getByRole('table', { name: 'documents' })).toContainText('Seine');

  const third = page.getByRole('listitem', { name: 'action 3' });
  await expect(third).toContainText('final answer');
  await expect(third.getByLabel('query')).toHaveCount(0);

  // The answer, its score by the rule, each term it earned, and the reward.
  const score = page.getByRole('region', { name: 'answer and score' });
  await expect(score.getByLabel('final answer')).toContainText('Paris');
  await expect(score.getByLabel('final answer')).toContainText('action 3');
  await expect(score).toContainText('Paris · Paris, France');
  await expect(score).toContainText('exact match (em)');
  await expect(score.getByLabel('answer score')).toHaveText('1');
  await expect(score.getByLabel('terms')).toHaveText('retrieval +0.5 of +0.5 · format +0.5 of +0.5');
  await expect(score.locator('.score-value')).toHaveText('2');
  await saveScreenshot(page, 'search-session');
});

test('a search session that never answers shows its hint, the failed search and the penalty it cost', async ({
  page,
  request,
}) => {
  const tasks = await jsonl('broken.jsonl', [
    {
      instance_hash: BROKEN_TASK,
      _id: 'e2e-unanswered',
      question: 'Which river flows through Paris?',
      answer: 'Seine',
      corpus: 'e2e-search-never-imported',
      reward: 'f1',
      format_penalty: 1,
    },
  ]);
  const taskImport = await fusebox(['tasks', 'import', tasks]);
  expect(taskImport.code, taskImport.stderr).toBe(0);
  const started = await request.post(`${API_URL}/start_instance`, { data: { instance_hash: BROKEN_TASK } });
  const { sid } = (await started.json()) as { sid: string };
  for (const content of ['I wonder which river.', '<search>river of Paris</search>']) {
    expect((await request.post(`${API_URL}/process_action`, { data: { sid, content } })).status()).toBe(200);
  }
  const reward = await request.post(`${API_URL}/compute_reward`, { data: { sid } });
  // No answer scores 0 by F1, and the broken format takes the penalty off.
  expect(await reward.json()).toMatchObject({ reward: -1 });

  await page.goto(`/sessions/${sid}`);
  const first = page.getByRole('listitem', { name: 'action 1' });
  await expect(first.getByLabel('query')).toHaveCount(0);
  await expect(first.getByLabel('observation')).toContainText('No query found');
  const second = page.getByRole('listitem', { name: 'action 2' });
  await expect(second.getByLabel('query')).toContainText('<search>river of Paris</search>');
  await expect(second.getByRole('table', { name: 'documents' })).toHaveCount(0);
  await expect(second.getByLabel('observation')).toContainText(
    'Search failed: no corpus named "e2e-search-never-imported"',
  );
  const score = page.getByRole('region', { name: 'answer and score' });
  await expect(score.getByLabel('final answer')).toHaveText('no answer in any action');
  await expect(score).toContainText('token F1 (f1)');
  await expect(score.getByLabel('answer score')).toHaveText('0');
  await expect(score.getByLabel('terms')).toHaveText('format penalty −1 of −1');
  await expect(score.locator('.score-value')).toHaveText('-1');
});
