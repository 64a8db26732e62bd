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

test("a long session's page shows a page of actions at a time, and a long action cut with a way to read it whole", async ({
  page,
  request,
}) => {
  const started = await request.post(`${API_URL}/start_instance`, {
    data: { instance_hash: ADD_TWO_NUMBERS },
  });
  const { sid } = (await started.json()) as { sid: string };
  const literal = 'a'.repeat(6000);
  const act = async (code: string) => {
    const answer = await request.post(`${API_URL}/process_action`, {
      data: { sid, content: `\`\`\`python\n${code}\n\`\`\`` },
    });
    expect(answer.status()).toBe(200);
  };
  await act(`s = "${literal}"\nprint(len(s), "end-of-long")`);
  // 52 actions in all: the first page holds 50 (FUSEBOX_DASHBOARD_ACTIONS_PAGE).
  for (let index = 2; index <= 52; index += 1) await act(`print(${index} * 1000)`);

  await page.goto(`/sessions/${sid}`);
  const timeline = page.getByRole('list', { name: 'timeline' });
  await expect(timeline.getByRole('listitem', { name: 'action 50' })).toBeVisible();
  await expect(timeline.getByRole('listitem', { name: 'action 51' })).toHaveCount(0);

  // The long action came cut at 4000 characters: its end is not on the page until asked for.
  const long = timeline.getByRole('listitem', { name: 'action 1', exact: true });
  await expect(long.getByLabel('cut text')).toContainText('cut at 4.0k characters');
  await expect(long.getByLabel('action code')).not.toContainText('end-of-long');
  await expect(long.getByLabel('observation')).toContainText('6000 end-of-long');
  await long.getByRole('button', { name: 'Show whole' }).click();
  await expect(long.getByLabel('cut text')).toHaveText('Shown whole.');
  await expect(long.getByLabel('action code')).toContainText('end-of-long');

  await page.getByRole('button', { name: /Show the next actions \(50 of 52 shown\)/ }).click();
  await expect(timeline.getByRole('listitem', { name: 'action 52' })).toContainText('52000');
  await expect(page.getByRole('listitem', { name: 'more actions' })).toHaveCount(0);
});

test('a new session appears at the top of the open list over SSE, without a reload', async ({
  page,
  request,
}) => {
  const streams: string[] = [];
  page.on('request', (sent) => {
    if (sent.url().includes('sessions.changes')) streams.push(sent.url());
  });
  await page.goto('/sessions');
  const rows = page.getByRole('list', { name: 'sessions' }).getByRole('listitem');
  await expect(rows.first()).toBeVisible();
  await page.evaluate(() => ((window as { kept?: boolean }).kept = true));
  expect(streams.length).toBeGreaterThan(0);

  const started = await request.post(`${API_URL}/start_instance`, {
    data: { instance_hash: ADD_TWO_NUMBERS },
  });
  const { sid } = (await started.json()) as { sid: string };
  await expect(rows.first()).toContainText(sid);
  // A change to a listed session (its first action) shows too.
  await request.post(`${API_URL}/process_action`, { data: { sid, content: '```python\nprint(1)\n```' } });
  await expect(rows.first().locator('span').nth(3)).toHaveText('1');
  expect(await page.evaluate(() => (window as { kept?: boolean }).kept)).toBe(true);
});
