import { expect, test } from '@playwright/test';
import { saveScreenshot } from '../screenshots';
import { API_URL } from '../stack';

test('executions are listed newest first, filter by status, and open with code, output and timings', async ({
  page,
  request,
}) => {
  // The stack requires its token: a call without it (plain fetch, not the tests' request context, which sends
  // it) is refused; the dashboard adds it on the server side.
  const refused = await fetch(`${API_URL}/run_code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: 'print(1)', language: 'python' }),
  });
  expect(refused.status).toBe(401);

  const ok = await request.post(`${API_URL}/run_code`, {
    data: { code: 'print(6 * 7)', language: 'python' },
  });
  expect(await ok.json()).toMatchObject({ status: 'Success' });
  const failed = await request.post(`${API_URL}/run_code`, {
    data: { code: 'import sys\nprint("about to fail")\nsys.exit(3)', language: 'python' },
  });
  expect(await failed.json()).toMatchObject({ status: 'Failed' });

  // The rows come with the page; its filters answer once it is hydrated, when its live stream opens.
  const hydrated = page.waitForRequest((sent) => sent.url().includes('executions.changes'));
  await page.goto('/executions');
  const list = page.getByRole('list', { name: 'executions' });
  await expect(list.getByRole('listitem').first()).toContainText('Failed');
  await saveScreenshot(page, 'executions');
  await hydrated;
  await page.getByLabel('status').selectOption('Failed');
  await expect(page).toHaveURL(/status=Failed/);
  await expect(list.getByRole('listitem').first()).toContainText('Failed');
  await expect(list.getByRole('listitem').filter({ hasText: 'Success' })).toHaveCount(0);

  await list.getByRole('link').first().click();
  await expect(page.getByRole('heading', { name: /Execution/ })).toContainText('Failed');
  await expect(page.getByLabel('code', { exact: true })).toContainText('sys.exit(3)');
  await expect(page.getByLabel('code', { exact: true }).locator('.hljs-keyword').first()).toBeVisible();
  await expect(page.getByLabel('stdout')).toContainText('about to fail');
  const timings = page.getByRole('region', { name: 'timings' });
  await expect(timings).toContainText('permit wait · sandbox queue');
  await expect(timings).toContainText('on run_code');
  await expect(timings).toContainText('Finished · 3');
  await saveScreenshot(page, 'execution-detail');

  await page.goto('/executions/0190d6c2-0000-7000-8000-000000000000');
  await expect(page.locator('section[role="alert"]')).toContainText('Execution not found');
});

test('executions are found by text in their code or output, and listed slowest first', async ({
  page,
  request,
}) => {
  const marker = `quasar${Date.now()}`;
  for (const code of [
    `import time\ntime.sleep(0.8)\nprint("${marker}")`,
    `print("${marker.toUpperCase()}")`,
  ]) {
    const ran = await request.post(`${API_URL}/run_code`, { data: { code, language: 'python' } });
    expect(await ran.json()).toMatchObject({ status: 'Success' });
  }
  await page.goto('/');
  await page.getByRole('link', { name: 'The slowest executions' }).click();
  await expect(page).toHaveURL(/\/executions\?sort=slowest/);
  await expect(page.getByLabel('sort')).toHaveValue('slowest');

  await page.getByLabel('search code and output').fill(marker);
  await expect(page).toHaveURL(new RegExp(`q=${marker}`));
  const list = page.getByRole('list', { name: 'executions' });
  // Its stdout holds the marker in upper case, found all the same; the sleeper ran longest, so it comes first.
  await expect(list.getByRole('listitem')).toHaveCount(2);
  await list.getByRole('link').first().click();
  await expect(page.getByLabel('code', { exact: true })).toContainText('time.sleep(0.8)');
  await page.goBack();
  await page.getByLabel('sort').selectOption('newest');
  // The page is rendered again on the server with the new order; the old list stays until it comes.
  await expect(page).not.toHaveURL(/sort=slowest/);
  await expect(list.getByRole('listitem')).toHaveCount(2);
  await list.getByRole('link').first().click();
  await expect(page.getByLabel('code', { exact: true })).toContainText(marker.toUpperCase());
});

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false });

  test('the server sends the first executions with the page, filtered as the URL says', async ({
    page,
    request,
  }) => {
    const marker = `prefetched${Date.now()}`;
    for (const code of [`print("${marker}")`, `import sys\nprint("${marker}")\nsys.exit(1)`]) {
      await request.post(`${API_URL}/run_code`, { data: { code, language: 'python' } });
    }
    await page.goto(`/executions?q=${marker}`);
    const list = page.getByRole('list', { name: 'executions' });
    await expect(list.getByRole('listitem')).toHaveCount(2);
    await page.goto(`/executions?q=${marker}&status=Failed`);
    await expect(list.getByRole('listitem')).toHaveCount(1);
    await expect(list.getByRole('listitem')).toContainText('Failed');
    await expect(page.getByLabel('language').locator('option', { hasText: 'python' })).toHaveCount(1);
  });
});

test('new executions appear at the top of the list while it is open, over SSE and without polling', async ({
  page,
  request,
}) => {
  const lists: number[] = [];
  const streams: string[] = [];
  page.on('request', (sent) => {
    if (sent.url().includes('executions.list')) lists.push(Date.now());
    if (sent.url().includes('executions.changes')) streams.push(sent.url());
  });
  await page.goto('/executions?status=Failed');
  const rows = page.getByRole('list', { name: 'executions' }).getByRole('listitem');
  await expect(rows.first()).toBeVisible();
  await page.evaluate(() => ((window as { kept?: boolean }).kept = true));
  const before = await rows.count();
  // The rows come with the page; the stream opens once it is hydrated.
  await expect.poll(() => streams.length).toBeGreaterThan(0);

  // Six seconds in which nothing is recorded (a row is written when its run ends): the 2-second poll this
  // replaced asked for the list at least twice in them; the live list asks only after a change.
  const quietFrom = Date.now();
  const slow = await request.post(`${API_URL}/run_code`, {
    data: { code: 'import time\ntime.sleep(6)', language: 'python', run_timeout: 20 },
  });
  expect(await slow.json()).toMatchObject({ status: 'Success' });
  expect(lists.filter((at) => at > quietFrom).length).toBeLessThanOrEqual(1);

  const failed = await request.post(`${API_URL}/run_code`, {
    data: { code: 'raise SystemExit(5)', language: 'python' },
  });
  expect(await failed.json()).toMatchObject({ status: 'Failed' });
  await expect(rows).toHaveCount(before + 1);
  expect(await page.evaluate(() => (window as { kept?: boolean }).kept)).toBe(true);
  await rows.first().getByRole('link').first().click();
  await expect(page.getByLabel('code', { exact: true })).toContainText('raise SystemExit(5)');
});

test("a filter's old rows are marked busy until its page arrives, then replaced", async ({ page }) => {
  const hydrated = page.waitForRequest((sent) => sent.url().includes('executions.changes'));
  await page.goto('/executions');
  const list = page.getByRole('list', { name: 'executions' });
  await expect(list.getByRole('listitem').first()).toBeVisible();
  await hydrated;
  await expect(list).toHaveAttribute('aria-busy', 'false');

  // The filter's server render is held back until the test has seen the old rows marked busy.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(
    (url) => url.pathname === '/executions' && url.searchParams.get('status') === 'Success',
    async (route) => {
      if (route.request().headers()['rsc']) await held;
      await route.continue();
    },
  );
  await page.getByLabel('status').selectOption('Success');
  await expect(list).toHaveAttribute('aria-busy', 'true');
  await expect(list.getByRole('listitem').filter({ hasText: 'Failed' }).first()).toBeVisible();
  release();
  await expect(page).toHaveURL(/status=Success/);
  await expect(list).toHaveAttribute('aria-busy', 'false');
  await expect(list.getByRole('listitem').filter({ hasText: 'Failed' })).toHaveCount(0);
});
