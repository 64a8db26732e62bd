import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { fusebox } from '../fusebox-cli';
import { saveScreenshot } from '../screenshots';
import { API_URL } from '../stack';

/** A corpus of this spec's own, so the page's other rows (from other specs or runs) never decide a check. */
const CORPUS = 'e2e-wiki';

const passage = (id: string, title: string, text: string) =>
  JSON.stringify({ id, contents: `"${title}"\n${text}` });

test('the retrieval page lists corpora and every /retrieve call, with scores or the refusal, filterable', async ({
  page,
  request,
}) => {
  const file = join(await mkdtemp(join(tmpdir(), 'fusebox-e2e-retrieval-')), 'wiki.jsonl');
  await writeFile(
    file,
    [
      passage('p-paris', 'Paris', 'Paris is the capital and largest city of France.'),
      passage('p-lyon', 'Lyon', 'Lyon is a city of France where two rivers meet.'),
      '{"id": "broken", "contents": ',
      passage('p-hamlet', 'Hamlet', 'Hamlet is a tragedy by William Shakespeare.'),
    ]
      .map((line) => `${line}\n`)
      .join(''),
  );
  const imported = await fusebox(['corpus', 'import', file, '--name', CORPUS]);
  expect(imported.stdout, imported.stderr).toContain(`corpus "${CORPUS}": imported 3 passages`);

  // verl's SearchTool request, one refused for its topk, and one for a corpus that does not exist.
  const searched = await request.post(`${API_URL}/retrieve/${CORPUS}`, {
    data: { queries: ['cities of France', 'shakespeare tragedy'], topk: 2, return_scores: true },
  });
  expect(searched.status()).toBe(200);
  const refused = await request.post(`${API_URL}/retrieve/${CORPUS}`, {
    data: { queries: ['paris'], topk: 0 },
  });
  expect(refused.status()).toBe(422);
  const unknown = await request.post(`${API_URL}/retrieve/e2e-nope`, { data: { queries: ['paris'] } });
  expect(unknown.status()).toBe(404);

  await page.goto('/retrieval');
  await expect(page.getByRole('heading', { name: 'Retrieval' })).toBeVisible();
  const corpora = page.getByRole('table', { name: 'corpora' });
  const row = corpora.getByRole('row').filter({ hasText: CORPUS });
  await expect(row).toContainText('3');
  await expect(row.getByRole('cell').nth(2)).toHaveText('1');
  await expect(row).toContainText(file);

  await page.getByLabel('corpus').selectOption(CORPUS);
  await expect(page).toHaveURL(new RegExp(`corpus=${CORPUS}`));
  const calls = page.getByRole('list', { name: 'retrieve calls' }).getByRole('listitem');
  await expect(calls).toHaveCount(2);
  // Newest first: the refusal, then the search with each query's passages and scores (stemmed: cities ~ city).
  await expect(calls.nth(0)).toContainText('422');
  await expect(calls.nth(0)).toContainText('topk must be at least 1');
  await expect(calls.nth(1)).toContainText('200');
  await expect(calls.nth(1)).toContainText('cities of France | shakespeare tragedy');
  await expect(calls.nth(1)).toContainText(
    /p-(paris|lyon) \(\d+\.\d\d\), p-(paris|lyon) \(\d+\.\d\d\) \| p-hamlet/,
  );
  await saveScreenshot(page, 'retrieval');

  await page.getByLabel('status').selectOption('refused');
  await expect(calls).toHaveCount(1);
  await expect(calls.first()).toContainText('422');

  // The unknown corpus's refusal is recorded under the name asked for, though that corpus is not listed.
  await page.goto('/retrieval?refused=yes');
  await expect(page.getByRole('list', { name: 'retrieve calls' })).toContainText('e2e-nope');
  await expect(corpora.getByRole('row').filter({ hasText: 'e2e-nope' })).toHaveCount(0);

  await page.goto(`/retrieval?corpus=${CORPUS}-none`);
  await expect(page.getByText('No call matches these filters')).toBeVisible();
});
