import { expect, test } from '@playwright/test';
import { saveScreenshot } from '../screenshots';

test('the overview shows the API and database as healthy', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  const health = page.getByRole('region', { name: 'API health' });
  await expect(health).toBeVisible();
  await expect(health.locator('.badge').first()).toHaveText('ok');
  await expect(health).toContainText('Database');
  await expect(health).toContainText('fusebox_test_e2e');
  await saveScreenshot(page, 'overview');
});
