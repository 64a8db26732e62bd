import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { type RunningServer, startServer } from '@fusebox/api/testing';
import { DEMO_COMMAND } from '@fusebox/demo/testing';
import { saveScreenshot } from '../screenshots';

// The demo fills a database with executions, sessions and rollouts, which the other specs expect to find empty;
// so it runs against a stack of its own (API, dashboard, database), started here as `npm start` starts one on a
// new machine: embedded mode (no DATABASE_URL), in a data directory that does not exist yet. The other specs run
// on Postgres, so the browser sees both modes.

/** Its dashboard's port: away from the shared stack's 13000 and from `npm start`'s 3000. */
const DASHBOARD_PORT = Number(process.env.E2E_DEMO_DASHBOARD_PORT ?? 13100);
/** A small global limit, so the demo's sixteen episodes in flight must queue for permits. */
const LIMIT = 4;
const RUN = 'e2e-demo';

test.describe.configure({ mode: 'serial' });

let server: RunningServer;
/** The embedded database's settings, for the server and for the demo that imports through it. */
let databaseEnv: Record<string, string>;
let dashboard: string;
let dir: string;
let stdout = '';

test.beforeAll(async ({ request }) => {
  test.setTimeout(240_000);
  dir = await mkdtemp(join(tmpdir(), 'fusebox-e2e-demo-'));
  databaseEnv = { DATABASE_URL: '', FUSEBOX_DATA_DIR: join(dir, '.fusebox') };
  server = await startServer(
    {
      ...databaseEnv,
      DASHBOARD_PORT: String(DASHBOARD_PORT),
      FUSEBOX_MAX_CONCURRENCY: String(LIMIT),
    },
    [],
    120_000,
  );
  dashboard = `http://127.0.0.1:${DASHBOARD_PORT}`;
  await expect
    .poll(
      () =>
        request.get(dashboard).then(
          (response) => response.status(),
          () => 0,
        ),
      { timeout: 120_000 },
    )
    .toBe(200);
});

test.afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test("the overview shows the demo's executions in flight and waiting while it runs, then settling", async ({
  page,
}) => {
  test.setTimeout(600_000);
  await page.goto(`${dashboard}/`);
  await expect(page.getByText('● live')).toBeVisible();

  const demo: ChildProcess = spawn(
    process.execPath,
    [
      ...DEMO_COMMAND,
      ...['--api-url', server.url, '--dashboard-url', dashboard, '--name', RUN],
      ...['--episodes', '24', '--steps', '2', '--concurrency', '16', '--out', join(dir, RUN)],
    ],
    { env: { ...process.env, ...databaseEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  demo.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  demo.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(demo, 'exit');

  await expect(page.getByTestId('in-flight-run_code')).toHaveText(/^[1-9]\d*$/, { timeout: 120_000 });
  await expect(page.getByTestId('waiting-run_code')).toHaveText(/^[1-9]\d*$/, { timeout: 120_000 });
  await saveScreenshot(page, 'demo-overview');

  const [code] = (await exited) as [number | null];
  expect(stderr).not.toContain('unexpected error');
  expect(code).toBe(0);
  await expect(page.getByTestId('in-flight-run_code')).toHaveText('0', { timeout: 30_000 });
  await expect(page.getByTestId('waiting-run_code')).toHaveText('0');
  // The settled card counts the demo's finished executions: the share that failed, of how many.
  await expect(page.getByRole('region', { name: 'limiter run_code' })).toContainText(/\d+\.\d% of [1-9]\d*/, {
    timeout: 30_000,
  });
});

test("the rollout browser shows the demo's run at once: both steps, the scores, what the tools answered", async ({
  page,
}) => {
  const runUrl = / {2}rollouts {4}(http\S+)/.exec(stdout)?.[1];
  expect(runUrl, stdout).toBeDefined();
  await page.goto(runUrl as string);
  await expect(page.getByRole('heading', { name: `Rollouts · ${RUN}` })).toBeVisible();
  await expect(page.getByRole('table', { name: 'steps' }).getByRole('row')).toHaveCount(3);
  await expect(page.getByRole('img', { name: 'score over steps' })).toBeVisible();
  await saveScreenshot(page, 'demo-rollouts');

  // Each step's dump lists the GSM8K episodes first, and every step's first five play the scripted cases in
  // order (correct, wrong, malformed, timeout, crash): line 4 is the code that never ends.
  await page.goto(`${runUrl as string}/browse?step=1&line=4`);
  const call = page.getByRole('region', { name: 'tool call code_interpreter' }).first();
  await expect(call.getByLabel('tool response')).toContainText('timeout after 3s');
  await page.goto(`${runUrl as string}/browse?step=1&line=2`);
  await expect(page.getByLabel('conversation')).toContainText('reward=0.0');

  await page.goto(`${dashboard}/rollouts`);
  await expect(
    page.getByRole('table', { name: 'rollout runs' }).getByRole('row', { name: new RegExp(RUN) }),
  ).toContainText('48');
});

test("the sessions page lists the demo's coding episodes with their tasks", async ({ page }) => {
  await page.goto(`${dashboard}/sessions`);
  const list = page.getByRole('list', { name: 'sessions' });
  await expect(list.getByRole('listitem').first()).toContainText(/demo-[a-z-]+/);
});
