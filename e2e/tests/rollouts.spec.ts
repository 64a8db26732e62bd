import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import {
  HUGE_LINE,
  RARE_WORD,
  SAMPLES_PER_STEP,
  STEPS,
  TOOL_ERROR_LINE,
  writeRolloutDump,
} from '../fixtures/rollout-dump';
import { fusebox } from '../fusebox-cli';
import { saveScreenshot } from '../screenshots';
import { API_URL } from '../stack';

test.describe.configure({ mode: 'serial' });

let runId = '';

/**
 * Opens the rollout browser and waits until it takes input: the server sends the page with its first samples,
 * so it is on screen before hydration attaches the keys and handlers (its shortcut list appears then).
 */
async function openBrowser(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByLabel('keyboard shortcuts')).toBeVisible();
}

/** The sample pane's heading, e.g. "Step 2 · line 3 · score 0.7". */
const sampleHeading = (page: Page) => page.locator('.sample-header h2').first();

test('an empty database says how to import rollouts', async ({ page }) => {
  await page.goto('/rollouts');
  const empty = page.getByRole('region', { name: 'No rollouts imported yet' });
  await expect(empty).toBeVisible();
  await expect(empty).toContainText('fusebox rollouts import /path/to/rollouts --watch');
});

test('fusebox rollouts import loads a generated dump, and a second import adds nothing', async ({ page }) => {
  const dir = await writeRolloutDump();
  const first = await fusebox(['rollouts', 'import', dir, '--name', 'e2e-run']);
  expect(first.stderr).toBe('');
  expect(first.stdout).toContain(`imported ${STEPS * SAMPLES_PER_STEP} samples`);
  const again = await fusebox(['rollouts', 'import', dir, '--name', 'e2e-run']);
  expect(again.stdout).toContain('nothing new');

  await page.goto('/rollouts');
  const runs = page.getByRole('table', { name: 'rollout runs' });
  await expect(runs.getByRole('row', { name: /e2e-run/ })).toContainText(String(STEPS * SAMPLES_PER_STEP));
  await runs.getByRole('link', { name: 'e2e-run' }).click();
  await expect(page.getByRole('heading', { name: /Rollouts · e2e-run/ })).toBeVisible();
  await expect(page).toHaveTitle('e2e-run · Rollout run · Fusebox');
  runId = /\/rollouts\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  await expect(page.getByRole('img', { name: 'score over steps' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'steps' }).getByRole('row')).toHaveCount(STEPS + 1);
  await saveScreenshot(page, 'rollouts-steps');
});

test('n/p, N/P and j/k drive the browser, and the URL survives a reload', async ({ page }) => {
  await openBrowser(page, `/rollouts/${runId}/browse`);
  await expect(page).toHaveTitle('e2e-run · Rollout samples · Fusebox');
  await expect(page).toHaveURL(/step=1/);
  await expect(page.getByRole('list', { name: 'samples' }).getByRole('listitem')).toHaveCount(
    SAMPLES_PER_STEP,
  );
  await page.keyboard.press('n');
  await expect(sampleHeading(page)).toContainText('Step 1 · line 1');
  await page.keyboard.press('n');
  await expect(sampleHeading(page)).toContainText('Step 1 · line 2');
  await expect(page).toHaveURL(/line=2/);
  await page.keyboard.press('p');
  await expect(sampleHeading(page)).toContainText('Step 1 · line 1');
  await page.keyboard.press('Shift+N');
  await expect(sampleHeading(page)).toContainText('Step 2 · line 1');
  await page.keyboard.press('Shift+N');
  await expect(sampleHeading(page)).toContainText('Step 3 · line 1');
  await page.keyboard.press('Shift+P');
  await expect(sampleHeading(page)).toContainText('Step 2 · line 1');
  await page.reload();
  await expect(sampleHeading(page)).toContainText('Step 2 · line 1');
  await expect(page.getByLabel('keyboard shortcuts')).toBeVisible();

  // The ~200 KB sample renders, and j/k scroll it.
  await openBrowser(page, `/rollouts/${runId}/browse?step=3&line=${HUGE_LINE}`);
  await expect(sampleHeading(page)).toContainText(`Step 3 · line ${HUGE_LINE}`);
  await page.getByRole('button', { name: /Thinking · 2\d\d\.\dk chars/ }).click();
  await expect(
    page.getByText('Let me double-check every digit once more.', { exact: false }).first(),
  ).toBeVisible();
  const conversation = page.getByLabel('conversation');
  await page.keyboard.press('j');
  await expect.poll(() => conversation.evaluate((element) => element.scrollTop)).toBeGreaterThan(0);
  await page.keyboard.press('k');
  await expect.poll(() => conversation.evaluate((element) => element.scrollTop)).toBe(0);
});

test('a sample shows its tool call with highlighted code and the tool response under it', async ({
  page,
}) => {
  await openBrowser(page, `/rollouts/${runId}/browse?step=2&line=4`);
  const call = page.getByRole('region', { name: 'tool call code_interpreter' });
  await expect(call).toBeVisible();
  const code = call.getByLabel('tool call code');
  await expect(code).toContainText('print(a * b)');
  await expect(code.locator('.hljs-built_in', { hasText: 'print' })).toBeVisible();
  await expect(call.getByLabel('tool response')).toContainText('49');
  const details = page.getByRole('complementary', { name: 'sample details' });
  await expect(details).toContainText('req-2-4');
  await expect(details).toContainText('acc');
  await saveScreenshot(page, 'rollouts-sample');
  await page.getByLabel('raw text').click();
  await expect(page).toHaveURL(/raw=1/);
  await expect(page.getByLabel('raw text')).toBeChecked();
  await expect(page.getByText('<tool_call>', { exact: false }).first()).toBeVisible();
});

test('filters by score as numbers and by an extra field; filters persist across steps', async ({ page }) => {
  await openBrowser(page, `/rollouts/${runId}/browse?step=1`);
  await page.getByLabel('sort').selectOption('score_desc');
  const rows = page.getByRole('list', { name: 'samples' }).locator('.score-chip');
  await expect(rows).toHaveText(['10.1', '9.1', '2.1', '1.1', '0.6', '0.1']);
  await page.getByLabel('minimum score').fill('2');
  await page.getByLabel('minimum score').press('Enter');
  await expect(rows).toHaveText(['10.1', '9.1', '2.1']);
  await expect(page).toHaveURL(/min=2/);
  await page.getByLabel('acc filter').selectOption('true');
  await expect(rows).toHaveText(['10.1', '9.1']);
  await page.keyboard.press('Shift+N');
  await expect(sampleHeading(page)).toContainText('Step 2 · line 4');
  await expect(page).toHaveURL(/min=2/);
  await expect(rows).toHaveText(['10.2', '9.2']);
  await saveScreenshot(page, 'rollouts-filtered');
});

test('a bound applies as you type, once typing pauses, without losing the field', async ({ page }) => {
  await openBrowser(page, `/rollouts/${runId}/browse?step=1&sort=score_desc`);
  const rows = page.getByRole('list', { name: 'samples' }).locator('.score-chip');
  const minimum = page.getByLabel('minimum score');
  await minimum.click();
  await minimum.pressSequentially('9');
  await expect(rows).toHaveText(['10.1', '9.1']);
  await expect(page).toHaveURL(/min=9/);
  await expect(minimum).toBeFocused();
  await minimum.press('Backspace');
  await minimum.pressSequentially('2');
  await expect(rows).toHaveText(['10.1', '9.1', '2.1']);
  await expect(minimum).toHaveValue('2');
  await expect(minimum).toBeFocused();
  // An extra field's text applies the same way, with no Enter: pred is the product, 28 on line 1 (score 0.1).
  await minimum.fill('');
  await minimum.press('Enter');
  const pred = page.getByLabel('pred value');
  await pred.click();
  await pred.pressSequentially('28');
  await expect(rows).toHaveText(['0.1']);
  await expect(page).toHaveURL(/f=pred%3D28/);
  await expect(pred).toBeFocused();
});

test('sorts by response length and bounds it: the 200 KB answer comes first, then alone', async ({
  page,
}) => {
  await openBrowser(page, `/rollouts/${runId}/browse?step=3`);
  const rows = page.getByRole('list', { name: 'samples' }).getByRole('listitem');
  await page.getByLabel('sort').selectOption('length_desc');
  await expect(rows.first()).toContainText(`#${HUGE_LINE}`);
  await expect(rows.first()).toContainText('1 calls');
  await page.getByLabel('response chars minimum').fill('100000');
  await page.getByLabel('response chars minimum').press('Enter');
  await expect(page).toHaveURL(/len_min=100000/);
  await expect(rows).toHaveCount(1);
  await page.getByLabel('tool calls minimum').fill('2');
  await page.getByLabel('tool calls minimum').press('Enter');
  await expect(page.getByText('No samples match')).toBeVisible();
  // One button undoes every filter, and keeps the sort.
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(rows).toHaveCount(SAMPLES_PER_STEP);
  await expect(page).not.toHaveURL(/len_min|calls_min/);
  await expect(page).toHaveURL(/sort=length_desc/);
  await expect(page.getByRole('button', { name: 'Clear filters' })).toHaveCount(0);
});

test('full-text search across steps marks the match in the list and in the sample', async ({ page }) => {
  await openBrowser(page, `/rollouts/${runId}/browse?step=1`);
  await expect(page.getByRole('list', { name: 'samples' })).toBeVisible();
  await page.keyboard.press('/');
  await expect(page.getByLabel('search all steps')).toBeFocused();
  await page.keyboard.type(RARE_WORD.toUpperCase());
  await page.keyboard.press('Enter');
  const results = page.getByRole('list', { name: 'search results' });
  await expect(page.getByText(`1 match for`)).toBeVisible();
  await expect(results.locator('mark')).toHaveText([RARE_WORD]);
  await results.getByRole('link').first().click();
  await expect(sampleHeading(page)).toContainText('Step 2 · line 3');
  // The match is inside the folded <think> block, which opens itself to show it.
  await expect(page.getByLabel('conversation').locator('mark')).toHaveText([RARE_WORD]);
  await saveScreenshot(page, 'rollouts-search');
});

test('search applies the filter bar and keeps it on screen; a word finds the words it begins', async ({
  page,
}) => {
  // Every sample "computes"; of each step's six, only line 1 scores at most 0.5 (0.1, 0.2, 0.3).
  await openBrowser(page, `/rollouts/${runId}/browse?step=1`);
  await page.getByLabel('maximum score').fill('0.5');
  await page.getByLabel('maximum score').press('Enter');
  await expect(page).toHaveURL(/max=0\.5/);
  await page.getByLabel('search all steps').fill('COMPUT');
  await page.getByLabel('search all steps').press('Enter');
  const results = page.getByRole('list', { name: 'search results' });
  await expect(page.getByText('3 matches for')).toContainText('under the filters');
  await expect(results.locator('.score-chip')).toHaveText(['0.1', '0.2', '0.3']);
  await expect(results.locator('mark').first()).toHaveText('compute');
  await expect(page.getByRole('form', { name: 'filters' })).toBeVisible();
  await expect(page.getByLabel('maximum score')).toHaveValue('0.5');

  // The same view from a link, and without the filter the search finds every sample.
  await openBrowser(page, `/rollouts/${runId}/browse?step=1&max=0.5&q=comput`);
  await expect(results.locator('.score-chip')).toHaveText(['0.1', '0.2', '0.3']);
  await page.getByLabel('maximum score').fill('');
  await page.getByLabel('maximum score').press('Enter');
  await expect(page.getByText(`${STEPS * SAMPLES_PER_STEP} matches for`)).toBeVisible();
});

test('one query box: fields, text and NOT in one query, completed as it is typed, saved in the URL', async ({
  page,
}) => {
  await openBrowser(page, `/rollouts/${runId}/browse?step=1`);
  const box = page.getByLabel('search all steps');
  await box.fill('sco');
  await expect(page.locator('#query-completions option').first()).toHaveAttribute('value', 'score>=');
  // Of each step's six samples that compute, only line 1 scores at most 0.5 (0.1, 0.2, 0.3).
  await box.fill('comput score<=0.5');
  await box.press('Enter');
  const results = page.getByRole('list', { name: 'search results' });
  await expect(page.getByText('3 matches for')).toBeVisible();
  await expect(results.locator('.score-chip')).toHaveText(['0.1', '0.2', '0.3']);
  await expect(page).toHaveURL(/q=comput\+score%3C%3D0\.5/);
  await box.fill('comput NOT score<=0.5');
  await box.press('Enter');
  await expect(page.getByText(`${STEPS * (SAMPLES_PER_STEP - 1)} matches for`)).toBeVisible();
  // An extra field of the dump is a field by its name alone: acc is true on even lines, 3 of each step's 6.
  await box.fill('acc:true');
  await box.press('Enter');
  await expect(page.getByText(`${STEPS * 3} matches for`)).toBeVisible();
  await box.fill('comput OR (score<=0.5');
  await box.press('Enter');
  const refused = page.getByRole('region', { name: 'The query could not be read' });
  await expect(refused).toContainText('a “(” is never closed at column 11');
});

test('tool errors: counted per sample, found by the query box, sorted first, marked in the list', async ({
  page,
}) => {
  await openBrowser(page, `/rollouts/${runId}/browse?step=1`);
  const box = page.getByLabel('search all steps');
  await box.fill('tool_err');
  await expect(page.locator('#query-completions option').first()).toHaveAttribute('value', 'tool_errors>=');
  // One sample per step got a traceback back from its tool; the others' tool printed the product.
  await box.fill('tool_errors>0');
  await box.press('Enter');
  await expect(page.getByText(`${STEPS} matches for`)).toBeVisible();
  const results = page.getByRole('list', { name: 'search results' });
  await expect(results.getByRole('link')).toHaveCount(STEPS);
  await results.getByRole('link').first().click();
  await expect(sampleHeading(page)).toContainText(`line ${TOOL_ERROR_LINE}`);
  const call = page.getByRole('region', { name: 'tool call code_interpreter' }).first();
  await expect(call.locator('.badge.error', { hasText: 'traceback' })).toBeVisible();

  await openBrowser(page, `/rollouts/${runId}/browse?step=2&sort=tool_errors_desc&line=${TOOL_ERROR_LINE}`);
  const rows = page.locator('.sample-row');
  await expect(rows.first()).toHaveAttribute('data-line', String(TOOL_ERROR_LINE));
  await expect(rows.first().getByLabel('tool errors')).toHaveText(' (1 failed)');
  await expect(page.getByLabel('tool errors')).toHaveCount(1);
  await saveScreenshot(page, 'rollouts-tool-errors');
});

test('a tool call shows the sandbox run behind it, failed ones red, linked to the execution', async ({
  page,
  request,
}) => {
  // The fixture's step 1 line 1 asks for a = 4 and answers 28; line 2 a = 5. verl would have sent these codes.
  const ran = await request.post(`${API_URL}/run_code`, {
    data: { code: 'a = 4\nb = 7\nprint(a * b)', language: 'python' },
  });
  expect(await ran.json()).toMatchObject({ status: 'Success', run_result: { stdout: '28\n' } });
  const timedOut = await request.post(`${API_URL}/run_code`, {
    data: { code: 'a = 5\nb = 7\nprint(a * b)', language: 'python', run_timeout: 0.001 },
  });
  expect(await timedOut.json()).toMatchObject({
    status: 'Failed',
    run_result: { status: 'TimeLimitExceeded' },
  });

  await openBrowser(page, `/rollouts/${runId}/browse?step=1&line=1`);
  const call = page.getByRole('region', { name: 'tool call code_interpreter' }).first();
  await expect(call.getByLabel('execution')).toContainText('Success · exit 0');
  await expect(call).toContainText('the run whose output this response shows');
  await expect(call).not.toHaveClass(/failed/);

  await openBrowser(page, `/rollouts/${runId}/browse?step=1&line=2`);
  const failed = page.getByRole('region', { name: 'tool call code_interpreter' }).first();
  await expect(failed.getByLabel('execution')).toContainText('Failed · time limit');
  await expect(failed).toHaveClass(/failed/);
  await saveScreenshot(page, 'rollouts-tool-run');
  await failed.getByLabel('execution').click();
  await expect(page.getByRole('heading', { name: /Execution/ })).toContainText('Failed');
  await expect(page.getByLabel('code', { exact: true })).toContainText('a = 5');
});

test("a tool call links to the run its own rollout sent, named by the sample's request_id", async ({
  page,
  request,
}) => {
  // Step 1 line 3's code, run by its rollout (as @fusebox/tools sends it), then by another that printed the same.
  const code = 'a = 6\nb = 7\nprint(a * b)';
  const own = await request.post(`${API_URL}/run_code`, {
    data: { code, language: 'python' },
    headers: { 'x-fusebox-request-id': 'req-1-3', 'x-fusebox-tool-instance': 'instance-of-req-1-3' },
  });
  expect(await own.json()).toMatchObject({ status: 'Success', run_result: { stdout: '42\n' } });
  const twin = await request.post(`${API_URL}/run_code`, {
    data: { code, language: 'python' },
    headers: { 'x-fusebox-request-id': 'another-rollout' },
  });
  expect(twin.ok()).toBe(true);

  await openBrowser(page, `/rollouts/${runId}/browse?step=1&line=3`);
  const call = page.getByRole('region', { name: 'tool call code_interpreter' }).first();
  await expect(call).toContainText("the run this sample's rollout sent");
  await expect(call).toContainText('this code ran 2 times');
  await call.getByLabel('execution').click();
  const timings = page.getByRole('region', { name: 'timings' });
  await expect(timings).toContainText('req-1-3 · instance-of-req-1-3');
});

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false });

  test('the server sends the step list, the first samples and the chosen sample with the page', async ({
    page,
  }) => {
    await page.goto(`/rollouts/${runId}/browse?step=2&line=4`);
    await expect(page.getByRole('list', { name: 'samples' }).getByRole('listitem')).toHaveCount(
      SAMPLES_PER_STEP,
    );
    await expect(page.getByLabel('step').locator('option')).toHaveCount(STEPS);
    await expect(sampleHeading(page)).toContainText('Step 2 · line 4');
    await expect(page.getByRole('region', { name: 'tool call code_interpreter' })).toBeVisible();
  });
});

test('compares two samples of the same prompt side by side', async ({ page }) => {
  await page.goto(`/rollouts/${runId}/compare?a=1:2&b=3:2`);
  await expect(page.getByRole('region', { name: 'sample A' })).toContainText('A: step 1 · line 2');
  await expect(page.getByRole('region', { name: 'sample B' })).toContainText('B: step 3 · line 2');
  await expect(
    page
      .getByRole('region', { name: 'sample B' })
      .getByRole('region', { name: 'tool call code_interpreter' }),
  ).toBeVisible();
  await saveScreenshot(page, 'rollouts-compare');
  await page.getByLabel('sample B: same prompt at').selectOption('1:2');
  await expect(page).toHaveURL(/b=1(:|%3A)2/);
  await expect(page.getByRole('region', { name: 'sample B' })).toContainText('B: step 1 · line 2');
});

test('a comparison opened from a filtered list goes back to it with the filters on', async ({ page }) => {
  await openBrowser(page, `/rollouts/${runId}/browse?step=1&line=2&min=0.5&sort=score_desc`);
  await page.getByRole('link', { name: 'Compare…' }).click();
  await expect(page).toHaveURL(/\/compare\?a=1(:|%3A)2&b=.*min=0\.5/);
  await page.getByRole('region', { name: 'sample A' }).getByRole('link', { name: 'open' }).click();
  await expect(page).toHaveURL(/\/browse\?step=1&line=2&sort=score_desc&min=0\.5/);
});

test('a prompt sampled once compares with its neighbour, and the page says they differ', async ({ page }) => {
  const dir = await mkdtemp(join(tmpdir(), 'fusebox-e2e-once-'));
  const line = (question: string) =>
    JSON.stringify({ input: `user\n${question}\nassistant\n`, output: 'assistant\n42', score: 1, step: 1 });
  await writeFile(join(dir, '1.jsonl'), `${line('What is 6 times 7?')}\n${line('What is 40 plus 2?')}\n`);
  expect((await fusebox(['rollouts', 'import', dir, '--name', 'e2e-once'])).stderr).toBe('');
  await page.goto('/rollouts');
  await page.getByRole('table', { name: 'rollout runs' }).getByRole('link', { name: 'e2e-once' }).click();
  await expect(page.getByRole('heading', { name: /Rollouts · e2e-once/ })).toBeVisible();
  const onceId = /\/rollouts\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  await openBrowser(page, `/rollouts/${onceId}/browse?step=1&line=1`);
  await page.getByRole('link', { name: 'Compare…' }).click();
  await expect(page).toHaveURL(/a=1(:|%3A)1&b=1(:|%3A)2/);
  await expect(page.getByRole('note')).toHaveText('A and B answer different prompts.');
  await page.getByLabel('sample B: line').fill('1');
  await page
    .getByRole('form', { name: 'sample B: any sample' })
    .getByRole('button', { name: 'Show' })
    .click();
  await expect(page.getByRole('note')).toHaveText(
    'A and B are the same sample: pick another for either side above.',
  );
});

test('unknown ids and a missing API show a clear state, never a blank page', async ({ page }) => {
  // Next.js has an empty role=alert route announcer of its own; the page's problem card is a section.
  const alert = page.locator('section[role="alert"]');
  await page.goto('/rollouts/0190d6c2-0000-7000-8000-000000000000');
  await expect(alert).toContainText('Rollout run not found');
  await page.goto('/rollouts/not-a-run/browse');
  await expect(alert).toContainText('does not name');
  await openBrowser(page, `/rollouts/${runId}/browse?step=1&line=999`);
  await expect(alert).toContainText('no sample at step 1, line 999');
  await page.goto(`/rollouts/${runId}/compare?a=oops`);
  await expect(alert).toContainText('?a=STEP:LINE&b=STEP:LINE');

  // What the dashboard's /trpc proxy answers when the API process is gone.
  await page.route('**/trpc/**', (route) =>
    route.fulfill({
      status: 502,
      contentType: 'application/json',
      body: JSON.stringify({
        error: {
          message: 'cannot reach the Fusebox API at http://127.0.0.1:18080 (fetch failed)',
          code: -32603,
        },
      }),
    }),
  );
  await page.goto('/rollouts');
  await expect(alert).toContainText('The Fusebox API is unreachable');
  await saveScreenshot(page, 'api-unreachable');
});
