import type { Page } from '@playwright/test';
import { fileURLToPath } from 'node:url';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));

/** Saves a full-page screenshot as a test artefact (e2e/artifacts/<name>.png), for people to look at. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}
