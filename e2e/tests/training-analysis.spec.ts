import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { GROUP_SIZE, GRPO_STEPS, writeGrpoDump, writeGrpoStep } from '../fixtures/grpo-dump';
import { fusebox } from '../fusebox-cli';
import { saveScreenshot } from '../screenshots';

// Metrics beyond the score, GRPO groups, export and copy, on a run of two steps of two GRPO groups each.
test.describe.configure({ mode: 'serial' });

let runId = '';
let dumpDir = '';
const SAMPLES = GRPO_STEPS * 2 * GROUP_SIZE;

test('a run charts response length and tool calls over steps, split by data_source', async ({ page }) => {
  dumpDir = await writeGrpoDump();
  const imported = await fusebox(['rollouts', 'import', dumpDir, '--name', 'e2e-grpo']);
  expect(imported.stdout).toContain(`imported ${SAMPLES} samples`);
  await page.goto('/rollouts');
  await page.getByRole('table', { name: 'rollout runs' }).getByRole('link', { name: 'e2e-grpo' }).click();
  await expect(page.getByRole('heading', { name: /Rollouts · e2e-grpo/ })).toBeVisible();
  runId = /\/rollouts\/([0-9a-f-]{36})/.exec(page.url())![1]!;

  // By default: the response length and the tool calls, each split by the dump's data_source.
  for (const source of ['math', 'code']) {
    await expect(
      page.getByRole('img', { name: `response length (chars) over steps, data_source = ${source}` }),
    ).toBeVisible();
    await expect(
      page.getByRole('img', { name: `tool calls over steps, data_source = ${source}` }),
    ).toBeVisible();
  }
  await saveScreenshot(page, 'rollouts-metrics');

  // Any metric: turns, then a numeric extra field; the choice is in the URL and survives a reload.
  await page.getByLabel('metric metric').selectOption('turns');
  await expect(
    page.getByRole('img', { name: 'assistant turns over steps, data_source = math' }),
  ).toBeVisible();
  await page.getByLabel('metric metric').selectOption('extra:len_penalty');
  await expect(page).toHaveURL(/metric=extra%3Alen_penalty/);
  await page.reload();
  await expect(page.getByRole('img', { name: 'len_penalty over steps, data_source = code' })).toBeVisible();

  // Split by nothing: one chart of the whole run.
  await page.getByLabel('metric split').selectOption('-');
  await expect(page.getByRole('img', { name: 'len_penalty over steps', exact: true })).toBeVisible();
  await expect(page.getByRole('img', { name: /len_penalty over steps, data_source/ })).toHaveCount(0);
});

test("a histogram of any metric at one step, chosen with the chart's own picker", async ({ page }) => {
  await page.goto(`/rollouts/${runId}?metric=turns&split=-`);
  // Each step has 1, 2, 3 and 4 turns twice (two groups of four): a bar per value; the last step by default.
  const turns = page.getByRole('list', { name: `assistant turns at step ${GRPO_STEPS}, samples per value` });
  await expect(turns.getByRole('listitem')).toHaveCount(4);
  await expect(turns.getByRole('listitem', { name: '4: 2' })).toBeVisible();
  await page.getByLabel('metric histogram step').selectOption('1');
  await expect(page).toHaveURL(/metric_step=1/);
  // Another metric from the same picker: len_penalty has eight values at step 1, one sample each.
  await page.getByLabel('metric metric').selectOption('extra:len_penalty');
  const penalty = page.getByRole('list', { name: 'len_penalty at step 1, samples per value' });
  await expect(penalty.getByRole('listitem')).toHaveCount(2 * GROUP_SIZE);
  await expect(penalty.getByRole('listitem', { name: '1.4: 1' })).toBeVisible();
  await saveScreenshot(page, 'rollouts-histogram');
});

test('the browser sorts by turns and by an extra field, and bounds the turns', async ({ page }) => {
  await page.goto(`/rollouts/${runId}/browse?step=1`);
  await expect(page.getByLabel('keyboard shortcuts')).toBeVisible();
  const rows = page.getByRole('list', { name: 'samples' }).getByRole('link');
  await page.getByLabel('sort').selectOption('turns_desc');
  // Lines 4 and 8 are the fourth sample of each group: four assistant turns.
  await expect(rows.first()).toHaveAttribute('data-line', '4');
  await expect(rows.first()).toContainText('4 turns');
  await page.getByLabel('sort').selectOption('field_desc:len_penalty');
  await expect(page).toHaveURL(/sort=field_desc&sort_field=len_penalty/);
  await expect(rows.first()).toHaveAttribute('data-line', '8');
  await page.getByLabel('turns maximum').fill('1');
  await page.getByLabel('turns maximum').press('Enter');
  await expect(page.locator('.list-count')).toContainText('2 samples');
  await expect(page).toHaveURL(/turns_max=1/);
});

test('a text field finds a part of its value, in the filter bar and in the query box', async ({ page }) => {
  await page.goto(`/rollouts/${runId}/browse?step=1`);
  await expect(page.getByLabel('keyboard shortcuts')).toBeVisible();
  const value = page.getByLabel('data_source value');
  // The whole value, as before: a part finds nothing.
  await value.fill('od');
  await value.press('Enter');
  await expect(page.getByText('No samples match')).toBeVisible();
  // Contains: the same text, found anywhere and ignoring case, kept in the URL as the pattern it means.
  await page.getByLabel('data_source match').selectOption('contains');
  await expect(page.locator('.list-count')).toContainText(`${GROUP_SIZE} samples`);
  expect(new URL(page.url()).searchParams.getAll('f')).toEqual(['data_source=*od*']);
  await value.fill('MAT');
  await value.press('Enter');
  await expect(page.locator('.list-count')).toContainText(`${GROUP_SIZE} samples`);
  await expect(page.getByRole('list', { name: 'samples' }).getByRole('link').first()).toContainText('math');
  await page.reload();
  await expect(page.getByLabel('data_source match')).toHaveValue('contains');
  await expect(value).toHaveValue('MAT');

  await page.goto(`/rollouts/${runId}/browse?step=1&q=${encodeURIComponent('data_source~ODE')}`);
  await expect(page.locator('.list-count')).toContainText(`${GRPO_STEPS * GROUP_SIZE} matches`);
});

test('groups whose rewards are all equal are counted per step, listed, and shown side by side', async ({
  page,
}) => {
  await page.goto(`/rollouts/${runId}`);
  const steps = page.getByRole('table', { name: 'steps' });
  await expect(steps.getByRole('row', { name: /step 1/ })).toContainText('1 (4 samples)');
  await expect(steps.getByRole('row', { name: /step 2/ })).toContainText('0 (0 samples)');
  await steps.getByRole('link', { name: 'all-equal groups of step 1' }).click();
  const groups = page.getByRole('table', { name: 'groups' });
  await expect(groups.getByRole('row')).toHaveCount(2);
  await expect(groups.getByRole('row').nth(1)).toContainText('all 1');
  await expect(groups.getByRole('row').nth(1)).toContainText('reverses a list');

  // Without the filter, every group of the run.
  // The box follows the URL, so it is clicked (uncheck() would check its state before the URL changes).
  const uniformOnly = page.getByLabel(/only groups whose rewards are all equal/);
  await uniformOnly.click();
  await expect(uniformOnly).not.toBeChecked();
  await page.getByRole('button', { name: /All steps/ }).click();
  await expect(groups.getByRole('row')).toHaveCount(1 + GRPO_STEPS * 2);

  await uniformOnly.click();
  await expect(groups.getByRole('row')).toHaveCount(1 + 1);
  await groups.getByRole('link', { name: 'side by side' }).click();
  await expect(page.getByText('every reward is 1: no learning signal')).toBeVisible();
  await expect(page.locator('.group-columns > section')).toHaveCount(GROUP_SIZE);
  await expect(page.getByRole('region', { name: 'line 8' })).toContainText('4 turns');
  await saveScreenshot(page, 'rollouts-group');
});

test('a sample links to its group, and copies as JSON', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(`/rollouts/${runId}/browse?step=2&line=3`);
  await expect(page.getByLabel('keyboard shortcuts')).toBeVisible();
  await page.getByRole('button', { name: 'Copy as JSON' }).click();
  await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();
  const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as Record<
    string,
    unknown
  >;
  expect(copied).toMatchObject({
    run: 'e2e-grpo',
    step: 2,
    line: 3,
    request_id: 'math-2-3',
    data_source: 'math',
  });
  await page.getByRole('link', { name: 'its GRPO group, side by side' }).click();
  await expect(page.getByText('rewards 1, 0, 1, 0')).toBeVisible();
});

test('exports the filtered list as JSONL and CSV', async ({ page }) => {
  await page.goto(`/rollouts/${runId}/browse?step=1&f=data_source%3Dcode&sort=turns_desc`);
  await expect(page.locator('.list-count')).toContainText('4 samples');
  const [jsonl] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'JSONL' }).click(),
  ]);
  expect(jsonl.suggestedFilename()).toBe('step-1.jsonl');
  const lines = (await readFile(await jsonl.path(), 'utf8')).trimEnd().split('\n');
  const samples = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  // The filter and the sort apply: the code group only, most turns first, extras back at the top level.
  expect(samples.map((sample) => [sample.line, sample.data_source])).toEqual([
    [8, 'code'],
    [7, 'code'],
    [6, 'code'],
    [5, 'code'],
  ]);
  expect(typeof samples[0]!.output).toBe('string');

  const [csv] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'CSV' }).click(),
  ]);
  const text = await readFile(await csv.path(), 'utf8');
  expect(text.split('\r\n')[0]).toBe('step,line,request_id,score,gts,data_source,len_penalty,input,output');
  expect(text).toContain('1,8,code-1-4,1,21,code,1.4,');
});

test("exports a query's matches across every step, whole, in step and line order", async ({ page }) => {
  const query = 'data_source:code turns>2';
  await page.goto(`/rollouts/${runId}/browse?step=1&q=${encodeURIComponent(query)}`);
  await expect(page.locator('.list-count')).toContainText('4 matches');
  const [jsonl] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'JSONL' }).click(),
  ]);
  expect(jsonl.suggestedFilename()).toBe('search.jsonl');
  const samples = (await readFile(await jsonl.path(), 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  // Samples 3 and 4 of each step's code group make three and four turns.
  expect(samples.map((sample) => [sample.step, sample.line, sample.request_id])).toEqual([
    [1, 7, 'code-1-3'],
    [1, 8, 'code-1-4'],
    [2, 7, 'code-2-3'],
    [2, 8, 'code-2-4'],
  ]);
  expect(samples[0]!.output).toContain('<tool_call>');
});

test('a new step appears in the open browser and run page as it is imported, without a reload', async ({
  page,
  context,
}) => {
  await page.goto(`/rollouts/${runId}/browse?step=${GRPO_STEPS}`);
  await expect(page.getByLabel('keyboard shortcuts')).toBeVisible();
  const runPage = await context.newPage();
  await runPage.goto(`/rollouts/${runId}`);
  const steps = runPage.getByRole('table', { name: 'steps' }).getByRole('row');
  await expect(steps).toHaveCount(1 + GRPO_STEPS);
  // Both pages mark themselves so a reload would show: it would drop the mark.
  for (const open of [page, runPage]) await open.evaluate(() => ((window as { kept?: boolean }).kept = true));

  await writeGrpoStep(dumpDir, GRPO_STEPS + 1);
  const imported = await fusebox(['rollouts', 'import', dumpDir, '--name', 'e2e-grpo']);
  expect(imported.stdout).toContain(`imported ${2 * GROUP_SIZE} samples`);

  await expect(page.getByRole('combobox', { name: 'step', exact: true }).locator('option')).toHaveCount(
    GRPO_STEPS + 1,
  );
  await expect(steps).toHaveCount(1 + GRPO_STEPS + 1);
  await expect(
    runPage.getByRole('link', { name: `all-equal groups of step ${GRPO_STEPS + 1}` }),
  ).toBeVisible();
  for (const open of [page, runPage])
    expect(await open.evaluate(() => (window as { kept?: boolean }).kept)).toBe(true);
});

test('a step imported after the page was sent but before its live stream started still appears', async ({
  page,
}) => {
  // The stream is held until the import is done, so its first event is already news to the page: the server
  // says the run changed lately, and the page refetches rather than take that event as what it shows.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(
    (url) => url.pathname.endsWith('/rolloutAnalysis.runChanges'),
    async (route) => {
      await released;
      await route.continue();
    },
  );
  await page.goto(`/rollouts/${runId}/browse?step=${GRPO_STEPS}`);
  await expect(page.getByLabel('keyboard shortcuts')).toBeVisible();
  const stepOptions = page.getByRole('combobox', { name: 'step', exact: true }).locator('option');
  await expect(stepOptions).toHaveCount(GRPO_STEPS + 1);

  await writeGrpoStep(dumpDir, GRPO_STEPS + 2);
  const imported = await fusebox(['rollouts', 'import', dumpDir, '--name', 'e2e-grpo']);
  expect(imported.stdout).toContain(`imported ${2 * GROUP_SIZE} samples`);
  release();
  await expect(stepOptions).toHaveCount(GRPO_STEPS + 2);
});

test('compare shows a text diff of the responses, and picks any other sample', async ({ page }) => {
  // Line 1 of each step is the math prompt's first sample: its answer grows from one step to the next.
  await page.goto(`/rollouts/${runId}/compare?a=1:1&b=2:1`);
  await page.getByText('Text diff of the responses (A → B)').click();
  const diff = page.getByLabel('response diff');
  await expect(diff.locator('.diff-removed')).toHaveCount(1);
  await expect(diff.locator('.diff-added')).toHaveCount(1);
  await expect(diff.locator('.diff-added')).toContainText('Checking. '.repeat(20).trim());
  await saveScreenshot(page, 'rollouts-compare-diff');

  // Not only the same prompt: any step and line, from the page.
  await page.getByLabel('sample B: step').fill('1');
  await page.getByLabel('sample B: line').fill('8');
  await page
    .getByRole('form', { name: 'sample B: any sample' })
    .getByRole('button', { name: 'Show' })
    .click();
  await expect(page).toHaveURL(/b=1%3A8|b=1:8/);
  await expect(page.getByRole('region', { name: 'sample B' }).locator('h2')).toContainText(
    'B: step 1 · line 8',
  );
  await saveScreenshot(page, 'rollouts-compare-diff');
});
