import { expect, test } from '@playwright/test';
import { saveScreenshot } from '../screenshots';
import { API_TOKEN, API_URL } from '../stack';

test.describe.configure({ mode: 'serial' });

test('the overview shows the API and database as healthy', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  const health = page.getByRole('region', { name: 'API health' });
  await expect(health).toBeVisible();
  await expect(health.locator('.badge').first()).toHaveText('ok');
  await expect(health).toContainText('Database');
  await expect(health).toContainText('fusebox_test_e2e');
});

test('the overview lists each language with its toolchain version, or why it cannot run here', async ({
  page,
}) => {
  await page.goto('/');
  const card = page.getByRole('region', { name: 'Languages' });
  const row = (language: string) => card.locator('tr', { has: page.getByText(language, { exact: true }) });
  // The first listing asks every toolchain (JVMs included) for its version.
  await expect(row('python')).toContainText(/Python 3\.\d+/, { timeout: 60_000 });
  await expect(row('python')).toContainText('available');
  await expect(row('julia')).toContainText('unavailable');
  await expect(row('julia')).toContainText('no Debian 12 or npm package provides Julia');
});

test('before any execution, the overview says how to send the first one', async ({ page }) => {
  await page.goto('/');
  const empty = page.getByRole('region', { name: 'No executions yet' });
  await expect(empty).toBeVisible();
  // The running API's own address, ready to paste, not a default port.
  await expect(empty).toContainText(`curl -s ${API_URL}/run_code`);
  await expect(empty).toContainText(`sandbox_fusion_url to ${API_URL}/run_code`);
  // The stack requires a token: the curl names it (never its value), and verl's tool is warned about.
  await expect(empty).toContainText('-H "authorization: Bearer $FUSEBOX_API_TOKEN"');
  await expect(empty).toContainText("verl's SandboxFusion tool sends no token");
  await expect(empty).not.toContainText(API_TOKEN);
  await saveScreenshot(page, 'overview-empty');
});

test('the in-flight count rises while executions run and falls when they finish, without a reload', async ({
  page,
  request,
}) => {
  await page.goto('/');
  await expect(page.getByText('● live')).toBeVisible();
  const sleepy = { code: 'import time\ntime.sleep(4)\nprint("done")', language: 'python', run_timeout: 30 };
  const running = Promise.all(
    Array.from({ length: 6 }, () => request.post(`${API_URL}/run_code`, { data: sleepy, timeout: 60_000 })),
  );
  const inFlight = page.getByTestId('in-flight-run_code');
  await expect(inFlight).toHaveText(/^[1-9]\d*$/, { timeout: 30_000 });
  const responses = await running;
  for (const response of responses)
    expect((await response.json()) as { status: string }).toMatchObject({ status: 'Success' });
  await expect(inFlight).toHaveText('0', { timeout: 30_000 });
  // Six runs, none failed: on run_code's card, and on the executor's, which counts every execution it ran.
  await expect(page.getByTestId('errors-run_code')).toHaveText('0.0% of 6', { timeout: 30_000 });
  await expect(page.getByTestId('errors-executor')).toHaveText('0.0% of 6', { timeout: 30_000 });
  const failed = await request.post(`${API_URL}/run_code`, {
    data: { code: 'import sys\nsys.exit(2)', language: 'python' },
  });
  expect(await failed.json()).toMatchObject({ status: 'Failed' });
  await expect(page.getByTestId('errors-executor')).toContainText('model: Failed 1', { timeout: 30_000 });
  await expect(page.getByRole('img', { name: /run_code: in flight and waiting/ })).toBeVisible();
  await saveScreenshot(page, 'overview');
});

test("a run killed at the memory cap counts as out of memory, the model's doing", async ({
  page,
  request,
}) => {
  await page.goto('/');
  await expect(page.getByText('● live')).toBeVisible();
  // No limit of its own (memory_limit_MB -1): the server's cgroup cap (2 GiB by default) is what stops it.
  const hog = {
    code: 'chunks = []\nwhile True:\n    chunks.append(bytearray(64 << 20))\n    for i in range(0, 64 << 20, 4096):\n        chunks[-1][i] = 1',
    language: 'python',
    memory_limit_MB: -1,
    run_timeout: 60,
  };
  const answer = (await (
    await request.post(`${API_URL}/run_code`, { data: hog, timeout: 90_000 })
  ).json()) as {
    status: string;
    run_result: { status: string; return_code: number };
  };
  expect(answer).toMatchObject({ status: 'Failed', run_result: { status: 'Finished', return_code: 137 } });
  await expect(page.getByTestId('errors-executor')).toContainText('OutOfMemory 1', { timeout: 30_000 });
  await page.goto('/executions?status=OutOfMemory');
  const rows = page.getByRole('list', { name: 'executions' }).getByRole('listitem');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Failed · out of memory');
});
