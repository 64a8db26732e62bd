import { expect, test } from '@playwright/test';
import { saveScreenshot } from '../screenshots';
import { API_URL } from '../stack';

/** The builtin task "add-two-numbers", shipped with every Fusebox. */
const ADD_TWO_NUMBERS = '9000000000000000001';

test('a session shows its task, each action with its observation, and the reward with f2p counts', async ({
  page,
  request,
}) => {
  await page.goto('/sessions');
  await expect(page.getByRole('region', { name: 'No sessions yet' })).toBeVisible();

  const started = await request.post(`${API_URL}/start_instance`, {
    data: { instance_hash: ADD_TWO_NUMBERS },
  });
  const { sid } = (await started.json()) as { sid: string };
  const action = await request.post(`${API_URL}/process_action`, {
    data: {
      sid,
      content: 'Here it is:\n```python\ndef add(a, b):\n    return a + b\n\nprint(add(2, 3))\n```',
    },
  });
  expect(((await action.json()) as { content: string }).content).toContain('5');
  const reward = await request.post(`${API_URL}/compute_reward`, { data: { sid } });
  expect(await reward.json()).toMatchObject({ reward: 1 });

  await page.reload();
  const list = page.getByRole('list', { name: 'sessions' });
  await expect(list.getByRole('listitem').first()).toContainText(sid);
  await expect(list.getByRole('listitem').first()).toContainText('add-two-numbers');
  await saveScreenshot(page, 'sessions');

  await list.getByRole('link').first().click();
  await expect(page.getByRole('heading', { name: `Session ${sid}` })).toBeVisible();
  const summary = page.getByRole('region', { name: 'task and reward' });
  await expect(summary).toContainText('add-two-numbers');
  await expect(summary.locator('.score-value')).toHaveText('1');
  await expect(summary).toContainText(/4 of 4/);
  const first = page.getByRole('listitem', { name: 'action 1' });
  await expect(first.getByLabel('action code')).toContainText('return a + b');
  await expect(first.getByLabel('observation')).toContainText('5');
  await expect(page.getByRole('table', { name: 'tests' })).toContainText('small_ints');
  await saveScreenshot(page, 'session-timeline');

  await page.goto('/sessions/123');
  await expect(page.locator('section[role="alert"]')).toContainText('Session not found');
});
