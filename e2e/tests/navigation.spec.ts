import { expect, test } from '@playwright/test';
import { saveScreenshot } from '../screenshots';

test('each page names its tab, so a row of dashboard tabs can be told apart', async ({ page }) => {
  for (const [path, title] of [
    ['/', 'Overview · Fusebox'],
    ['/executions', 'Executions · Fusebox'],
    ['/sessions', 'Sessions · Fusebox'],
    ['/rollouts', 'Rollouts · Fusebox'],
    ['/retrieval', 'Retrieval · Fusebox'],
    ['/sessions/12345', 'Session 12345 · Fusebox'],
  ] as const) {
    await page.goto(path);
    await expect(page).toHaveTitle(title);
  }
});

test('an unknown address answers 404 with a page of the dashboard that leads back', async ({ page }) => {
  const response = await page.goto('/no-such-page');
  expect(response?.status()).toBe(404);
  await expect(page).toHaveTitle('Page not found · Fusebox');
  const card = page.getByRole('region', { name: 'Page not found' });
  await expect(card).toBeVisible();
  await saveScreenshot(page, 'not-found');
  for (const view of ['overview', 'executions', 'sessions', 'retrieval'])
    await expect(card.getByRole('link', { name: view })).toBeVisible();
  await card.getByRole('link', { name: 'rollouts' }).click();
  await expect(page).toHaveURL(/\/rollouts$/);
});
