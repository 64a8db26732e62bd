import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { fusebox, startFusebox } from '../fusebox-cli';

// The importer and the CLI as training uses them, watched from an open run list: a line that training writes in
// two parts is imported once, whole, and the runs that `fusebox runs` lists and deletes are the dashboard's.
test.describe.configure({ mode: 'serial' });

/** The watcher's own quiet time (watch-dump.ts) and polling interval, and a margin for one pass after both. */
const WATCH_QUIET_MS = 5_000;
const WATCH_INTERVAL_MS = 2_000;

function dumpLine(requestId: string): string {
  return JSON.stringify({
    input: 'user\nWhat is 6 times 7?\nassistant\n',
    output: `Six sevens are 42, as ${requestId} worked out.`,
    gts: '42',
    score: 1,
    step: 1,
    request_id: requestId,
  });
}

/** A dump whose step 1 holds one whole line and the first half of a second, as training leaves it mid-write. */
async function halfWrittenDump(): Promise<{ dir: string; finish: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'fusebox-e2e-split-'));
  const second = dumpLine('second-half-written');
  const cut = second.indexOf('"output"');
  await writeFile(join(dir, '1.jsonl'), `${dumpLine('first')}\n${second.slice(0, cut)}`);
  return { dir, finish: () => appendFile(join(dir, '1.jsonl'), `${second.slice(cut)}\n`) };
}

/** The run list's row of a run, and its samples and skipped lines. */
function runRow(page: Page, name: string) {
  const row = page
    .getByRole('table', { name: 'rollout runs' })
    .getByRole('row')
    .filter({
      has: page.getByRole('link', { name, exact: true }),
    });
  return { row, samples: row.getByRole('cell').nth(2), skipped: row.getByRole('cell').nth(3) };
}

test('--watch keeps a half-written last line through its quiet time and imports it once whole', async ({
  page,
}) => {
  const { dir, finish } = await halfWrittenDump();
  const watcher = startFusebox(['rollouts', 'import', dir, '--watch', '--name', 'e2e-split-watch']);
  try {
    const stream = page.waitForRequest((sent) => sent.url().includes('rollouts.runsChanges'));
    await page.goto('/rollouts');
    // The list listens for changes over SSE (it polled every 10 s before).
    await stream;
    const run = runRow(page, 'e2e-split-watch');
    await expect(run.samples).toHaveText('1');
    await expect(run.skipped).toHaveText('0');
    // Past the quiet time, with a pass after it: the half line used to be rejected here as malformed.
    await page.waitForTimeout(WATCH_QUIET_MS + 2 * WATCH_INTERVAL_MS);
    await expect(run.skipped).toHaveText('0');

    await finish();
    // The open list follows the import without a reload.
    await expect(run.samples).toHaveText('2');
    await expect(run.skipped).toHaveText('0');
  } finally {
    watcher.child.kill('SIGINT');
  }
  expect(await watcher.exited).toBe(0);
  expect(watcher.stderr()).not.toMatch(/skipped|malformed/i);
  expect(watcher.stdout()).toContain('watching');

  await page.getByRole('link', { name: 'e2e-split-watch', exact: true }).click();
  await page.getByRole('link', { name: 'Browse samples →' }).click();
  await expect(page.getByRole('list', { name: 'samples', exact: true })).toContainText('second-half-written');
});

test('two one-shot imports of a line written in two parts lose nothing', async ({ page }) => {
  const { dir, finish } = await halfWrittenDump();
  const first = await fusebox(['rollouts', 'import', dir, '--name', 'e2e-split-once']);
  expect(first.code).toBe(0);
  expect(first.stderr).not.toMatch(/skipped/);
  await page.goto('/rollouts');
  const run = runRow(page, 'e2e-split-once');
  await expect(run.samples).toHaveText('1');

  await finish();
  const second = await fusebox(['rollouts', 'import', dir, '--name', 'e2e-split-once']);
  expect(second.code).toBe(0);
  expect(second.stderr).not.toMatch(/skipped/);
  await expect(run.samples).toHaveText('2');
  await expect(run.skipped).toHaveText('0');
});

test('fusebox runs list shows the runs the dashboard shows, and runs delete removes one from the open list', async ({
  page,
}) => {
  await page.goto('/rollouts');
  const watched = runRow(page, 'e2e-split-watch');
  const once = runRow(page, 'e2e-split-once');
  await expect(once.row).toBeVisible();
  const href = await once.row.getByRole('link').getAttribute('href');
  const onceId = href!.split('/').at(-1)!;

  const listed = await fusebox(['runs', 'list']);
  expect(listed.code).toBe(0);
  const line = listed.stdout.split('\n').find((text) => text.includes('e2e-split-once'));
  expect(line).toContain(onceId);
  expect(line).toMatch(/\b2\b/);
  expect(listed.stdout).toContain('e2e-split-watch');

  const deleted = await fusebox(['runs', 'delete', 'e2e-split-once']);
  expect(deleted.code).toBe(0);
  expect(deleted.stdout).toContain('e2e-split-once');
  await expect(once.row).toHaveCount(0);
  await expect(watched.row).toBeVisible();
  expect((await fusebox(['runs', 'list'])).stdout).not.toContain('e2e-split-once');

  await page.goto(`/rollouts/${onceId}`);
  await expect(page.getByText(/not found|no run/i).first()).toBeVisible();
});

test('the CLI answers a user mistake in one line, with no stack trace', async () => {
  const version = JSON.parse(
    await readFile(new URL('../../apps/api/package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  const shown = await fusebox(['--version']);
  expect(shown.code).toBe(0);
  expect(shown.stdout.trim()).toContain(version.version);

  const help = await fusebox(['--help']);
  expect(help.code).toBe(0);
  for (const command of ['serve', 'rollouts import', 'runs list', 'runs delete', 'tasks import'])
    expect(help.stdout).toContain(command);

  const mistakes: { args: string[]; says: RegExp }[] = [
    { args: ['rollouts', 'import', '/tmp', '--nmae', 'x'], says: /--name/ },
    { args: ['rolouts', 'import', '/tmp'], says: /did you mean "rollouts"/ },
    { args: ['tasks', 'import', '/no/such/directory'], says: /\/no\/such\/directory/ },
    { args: ['runs', 'delete', 'no-such-run'], says: /no-such-run/ },
  ];
  for (const { args, says } of mistakes) {
    const result = await fusebox(args);
    expect(result.code, args.join(' ')).not.toBe(0);
    expect(result.stderr, args.join(' ')).toMatch(says);
    expect(result.stderr, args.join(' ')).not.toMatch(/^\s+at /m);
  }
});
