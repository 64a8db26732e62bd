// The rollout browser at scale: 100k verl dump samples over 100 steps (2–20 KB each). Measures the import, the
// API's sample-list and full-text search queries (p50/p95 over loopback HTTP, as the dashboard calls them), and
// the time to first render of the sample list in Chromium. Usage: node --import tsx bench/rollouts/run.ts
// [--steps 100] [--samples-per-step 1000] [--keep-data]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import pg from 'pg';
import { writeSyntheticDump } from './synthetic-dump';
import { FUSEBOX, runFusebox } from '../run-fusebox';
import { writeResults } from '../write-results';

const COMMAND = 'node --import tsx bench/rollouts/run.ts';
const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/fusebox_bench_rollouts';
const API_PORT = 18280;
const DASHBOARD_PORT = 13280;
const RUN_NAME = 'bench-rollouts';
const CHROMIUM = '/usr/bin/chromium';
/** Run in the page before its own scripts (as text: this file is type-checked without the DOM's types). */
const FIRST_ROW_PROBE = `
  const seen = new MutationObserver(() => {
    if (!document.querySelector('.sample-row')) return;
    seen.disconnect();
    requestAnimationFrame(() => document.documentElement.setAttribute('data-first-row-ms', String(performance.now())));
  });
  seen.observe(document, { childList: true, subtree: true });
`;
const QUERY_REPEATS = 20;
const ANALYSIS_REPEATS = 10;
/** The run page's charts and GRPO views and the browser's new sorts, as the dashboard calls them. */
const ANALYSIS_QUERIES = (runId: string): [string, string, unknown][] => [
  ['response length over steps', 'rolloutAnalysis.metricSteps', { runId, metric: 'response_chars' }],
  [
    'tool calls over steps, split by data_source',
    'rolloutAnalysis.metricSteps',
    { runId, metric: 'tool_calls', splitBy: 'data_source' },
  ],
  ['an extra field (acc) over steps', 'rolloutAnalysis.metricSteps', { runId, metric: 'extra:acc' }],
  ['tool errors over steps', 'rolloutAnalysis.metricSteps', { runId, metric: 'tool_errors' }],
  ['all-equal GRPO groups per step', 'rolloutAnalysis.groupSteps', { runId }],
  ['first page of all-equal groups', 'rolloutAnalysis.groups', { runId, uniform: true }],
  ['page of 100 sorted by turns', 'rollouts.samples', { runId, step: 50, limit: 100, sort: 'turns_desc' }],
  [
    'page of 100 sorted by tool errors',
    'rollouts.samples',
    { runId, step: 50, limit: 100, sort: 'tool_errors_desc' },
  ],
  [
    'page of 100 sorted by an extra field',
    'rollouts.samples',
    { runId, step: 50, limit: 100, sort: 'field_desc', sortField: 'acc' },
  ],
  ['export page (200 whole samples)', 'rolloutAnalysis.exportPage', { runId, step: 50 }],
];
const RENDER_REPEATS = 5;
/** Words of the synthetic vocabulary and text, from rare to everywhere, and phrases checked verbatim. */
const SEARCHES = [
  'zerodivisionerror',
  'traceback',
  'tickets marbles',
  'kalo',
  '"print(total_3)"',
  'the',
  '#### 4242',
  'tool_errors>=2 score<=0',
];
/** The migration that counted `tool_errors` for rows imported before the importer did. */
const TOOL_ERRORS_MIGRATION = new URL(
  '../../prisma/migrations/20261126170000_rollout_sample_tool_errors/migration.sql',
  import.meta.url,
);

const { values: options } = parseArgs({
  options: {
    steps: { type: 'string', default: '100' },
    'samples-per-step': { type: 'string', default: '1000' },
    'keep-data': { type: 'boolean', default: false },
  },
});
const steps = Number(options.steps);
const samplesPerStep = Number(options['samples-per-step']);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function trpc<T>(path: string, input: unknown): Promise<{ ms: number; data: T }> {
  const started = performance.now();
  const response = await fetch(
    `http://127.0.0.1:${API_PORT}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`,
  );
  const body = (await response.json()) as { result?: { data: T }; error?: unknown };
  const ms = performance.now() - started;
  if (!body.result) throw new Error(`${path} failed: ${JSON.stringify(body.error)}`);
  return { ms, data: body.result.data };
}

async function main() {
  // Checked first: the render is measured last, after minutes of import.
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing; install it with: apt-get install -y chromium`);
  const loadBefore = loadavg()[0]!;
  const dir = join(tmpdir(), `fusebox-bench-rollouts-${steps}x${samplesPerStep}`);
  console.error(`generating ${steps} steps × ${samplesPerStep} samples in ${dir} …`);
  await rm(dir, { recursive: true, force: true });
  const dump = await writeSyntheticDump({ dir, steps, samplesPerStep });

  const admin = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS fusebox_bench_rollouts WITH (FORCE)');
  await admin.end();
  // Create and migrate first, so the import's time is the import's alone.
  const migrated = await runFusebox(['db', 'migrate'], { DATABASE_URL });
  if (migrated.code !== 0) throw new Error(migrated.out);

  console.error(`importing ${(dump.bytes / 1e9).toFixed(2)} GB …`);
  const imported = await runFusebox(['rollouts', 'import', dir, '--name', RUN_NAME], { DATABASE_URL });
  if (imported.code !== 0) throw new Error(imported.out);
  console.error(`imported in ${(imported.ms / 1000).toFixed(1)} s`);
  const reimported = await runFusebox(['rollouts', 'import', dir, '--name', RUN_NAME], { DATABASE_URL });

  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const [{ samples, size, indexSize }] = (
    await db.query<{ samples: number; size: string; indexSize: string }>(
      `SELECT count(*)::int AS samples, pg_size_pretty(pg_total_relation_size('rollout_sample')) AS size,
         pg_size_pretty(pg_total_relation_size('rollout_term')) AS "indexSize" FROM rollout_sample`,
    )
  ).rows as [{ samples: number; size: string; indexSize: string }];
  const [{ id: runId }] = (
    await db.query<{ id: string }>('SELECT id FROM rollout_run WHERE name = $1', [RUN_NAME])
  ).rows as [{ id: string }];
  // What upgrading costs a database that holds these samples already: the migration's count, rolled back.
  const migration = await readFile(TOOL_ERRORS_MIGRATION, 'utf8');
  await db.query('BEGIN');
  const backfillStarted = performance.now();
  await db.query(migration.slice(migration.indexOf('UPDATE')));
  const backfillMs = performance.now() - backfillStarted;
  await db.query('ROLLBACK');
  await db.end();

  const server = spawn(process.execPath, [FUSEBOX, 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL,
      PORT: String(API_PORT),
      DASHBOARD_PORT: String(DASHBOARD_PORT),
      FUSEBOX_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (let attempt = 0; ; attempt++) {
      const ready = await fetch(`http://127.0.0.1:${DASHBOARD_PORT}/rollouts`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (attempt > 120) throw new Error('the server did not start within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    // The sample list exactly as the browser asks for it: a page of 100, under each sort and a score filter.
    const listMs: number[] = [];
    const filters = [
      {},
      { sort: 'score_desc' },
      { scoreMin: 0.5 },
      { fields: [{ name: 'acc', equals: 'true' }] },
    ];
    await trpc('rollouts.samples', { runId, step: 1, limit: 100 });
    for (let index = 0; index < QUERY_REPEATS * filters.length; index++) {
      const step = 1 + ((index * 37) % steps);
      listMs.push(
        (await trpc('rollouts.samples', { runId, step, limit: 100, ...filters[index % filters.length] })).ms,
      );
    }
    const searchMs: number[] = [];
    const searchRows: string[] = [];
    for (const q of SEARCHES) {
      const times: number[] = [];
      let total = 0;
      for (let index = 0; index < QUERY_REPEATS / 2; index++) {
        const result = await trpc<{ total: number; capped: boolean }>('rollouts.search', {
          runId,
          q,
          limit: 50,
        });
        times.push(result.ms);
        total = result.data.total;
        if (result.data.capped) total = -total;
      }
      searchMs.push(...times);
      searchRows.push(
        `| \`${q}\` | ${total < 0 ? `${-total}+` : total} | ${percentile(times, 50).toFixed(0)} | ${percentile(times, 95).toFixed(0)} |`,
      );
    }
    const stepsMs: number[] = [];
    for (let index = 0; index < 5; index++) stepsMs.push((await trpc('rollouts.steps', { runId })).ms);
    // What the run page and the browser ask beyond the score: any metric over every step, GRPO groups, the
    // list sorted by a derived count or an extra field, and an export page.
    const analysisRows: string[] = [];
    for (const [what, path, input] of ANALYSIS_QUERIES(runId)) {
      const times: number[] = [];
      await trpc(path, input);
      for (let index = 0; index < ANALYSIS_REPEATS; index++) times.push((await trpc(path, input)).ms);
      analysisRows.push(
        `| ${what} | \`${path}\` | ${percentile(times, 50).toFixed(0)} | ${percentile(times, 95).toFixed(0)} |`,
      );
    }

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const renderMs: number[] = [];
    const readyMs: number[] = [];
    for (let index = 0; index < RENDER_REPEATS + 1; index++) {
      const page = await browser.newPage();
      // By the page's own clock, from the start of navigation: the frame that first shows a sample row (the
      // animation frame after the row enters the DOM, whether the server sent it or the browser rendered it).
      await page.addInitScript({ content: FIRST_ROW_PROBE });
      const step = 1 + ((index * 13) % steps);
      await page.goto(`http://127.0.0.1:${DASHBOARD_PORT}/rollouts/${runId}/browse?step=${step}`);
      await page.locator('html[data-first-row-ms]').waitFor({ state: 'attached' });
      // The page answers a script only once hydration has let go of the main thread: then it takes keys.
      const ready = await page.evaluate(() => performance.now());
      const firstRow = Number(await page.locator('html').getAttribute('data-first-row-ms'));
      // The first load warms Next's server and the browser cache.
      if (index > 0) {
        renderMs.push(firstRow);
        readyMs.push(ready);
      }
      await page.close();
    }
    await browser.close();

    // `ok` is null for a measure with no target.
    const row = (what: string, value: string, target: string, ok: boolean | null) =>
      `| ${what} | ${value} | ${target} | ${ok === null ? '–' : ok ? 'yes' : 'no'} |`;
    const importS = imported.ms / 1000;
    const table = [
      '| measure | result | target | met |',
      '| --- | --- | --- | --- |',
      row(
        `import ${samples.toLocaleString('en-US')} samples (${(dump.bytes / 1e9).toFixed(2)} GB of JSONL)`,
        `${importS.toFixed(1)} s (${(dump.bytes / 1e6 / importS).toFixed(0)} MB/s)`,
        '< 60 s',
        importS < 60,
      ),
      row(
        're-import of the same directory (adds nothing)',
        `${(reimported.ms / 1000).toFixed(1)} s`,
        '–',
        null,
      ),
      row(
        `the \`tool_errors\` migration's count of ${samples.toLocaleString('en-US')} samples imported before it`,
        `${(backfillMs / 1000).toFixed(1)} s`,
        '–',
        null,
      ),
      row(
        'sample-list query, page of 100 (p50 / p95)',
        `${percentile(listMs, 50).toFixed(0)} / ${percentile(listMs, 95).toFixed(0)} ms`,
        '< 100 ms',
        percentile(listMs, 95) < 100,
      ),
      row(
        `full-text search, ${SEARCHES.length} queries (p50 / p95)`,
        `${percentile(searchMs, 50).toFixed(0)} / ${percentile(searchMs, 95).toFixed(0)} ms`,
        'p95 < 300 ms',
        percentile(searchMs, 95) < 300,
      ),
      row(
        'step statistics for the chart, 100 steps (p50)',
        `${percentile(stepsMs, 50).toFixed(0)} ms`,
        '–',
        null,
      ),
      row(
        'first render of the sample list in Chromium (median)',
        `${percentile(renderMs, 50).toFixed(0)} ms`,
        '< 1 s',
        percentile(renderMs, 50) < 1000,
      ),
      row(
        'the same page ready for the keyboard (median)',
        `${percentile(readyMs, 50).toFixed(0)} ms`,
        '–',
        null,
      ),
    ].join('\n');
    const analysisTable = [
      '| query | procedure | p50 ms | p95 ms |',
      '| --- | --- | --- | --- |',
      ...analysisRows,
    ].join('\n');
    const searchTable = [
      '| query | matches | p50 ms | p95 ms |',
      '| --- | --- | --- | --- |',
      ...searchRows,
    ].join('\n');
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}`;
    const loadAfter = loadavg()[0]!;
    console.log(`${table}\n\n${searchTable}\n\n${analysisTable}`);
    await writeResults(
      new URL('RESULTS.md', import.meta.url),
      `# Rollout browser at scale\n\n` +
        `- Command: \`${COMMAND}${steps !== 100 || samplesPerStep !== 1000 ? ` --steps ${steps} --samples-per-step ${samplesPerStep}` : ''}\`\n` +
        `- Date: ${new Date().toISOString()}\n` +
        `- Machine: ${machine}; load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after (other work shares this machine)\n` +
        `- Data: ${steps} steps × ${samplesPerStep} samples from \`bench/rollouts/synthetic-dump.ts\` (2–20 KB of text each, tool calls, ` +
        `extras), ${(dump.bytes / 1e9).toFixed(2)} GB of JSONL; \`rollout_sample\` takes ${size} with its indexes, and the search index (\`rollout_term\`) ${indexSize}\n\n` +
        `${table}\n\nSearch queries (whole words through the \`rollout_term\` index; quoted or punctuated text is then checked verbatim; page of 50 with snippets):\n\n${searchTable}\n\n` +
        `Metrics, GRPO groups and export (${ANALYSIS_REPEATS} calls each after one warm-up; the charts and group counts read every sample's row of the run, no text):\n\n${analysisTable}\n\n` +
        `Times are wall-clock from the client over loopback HTTP (tRPC GET, as the dashboard calls it). The first render ` +
        `is the page's \`performance.now()\` at the animation frame after the first sample row enters the DOM; ready is when the page ` +
        `next runs a script (hydration done, keys work); medians of ${RENDER_REPEATS} loads after one warm-up.\n`,
    );
  } finally {
    server.kill('SIGTERM');
    await once(server, 'exit');
    if (!options['keep-data']) await rm(dir, { recursive: true, force: true });
  }
}

await main();
