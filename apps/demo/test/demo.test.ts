import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectPostgres } from '@fusebox/db/sql-client';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '@fusebox/db/testing';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCodingTasks } from '../src/demo-data';
import { type RunningServer, startServer } from '@fusebox/api/testing';
import { DEMO_COMMAND, runDemoCli } from './demo-process';

/** The server's global limit: small, so the demo's episodes must queue for permits. */
const LIMIT = 3;
const TOKEN = 'demo-test-token';

interface DumpLine {
  score: number;
  step: number;
  output: string;
  data_source: string;
  task: string;
  case: string;
  acc: boolean;
  sid?: string;
}

/** The most intervals that overlap at one moment; a finish counts before an acquire at the same instant. */
function peakOverlap(intervals: { from: number; to: number }[]): number {
  const events = intervals.flatMap(({ from, to }) => [
    { at: from, delta: 1 },
    { at: to, delta: -1 },
  ]);
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let running = 0;
  let peak = 0;
  for (const { delta } of events) {
    running += delta;
    peak = Math.max(peak, running);
  }
  return peak;
}

describe('fusebox demo against a real server', () => {
  let database: PostgresTestDatabase;
  let server: RunningServer;
  let client: pg.Client;
  let dir: string;
  let out: string;
  let demo: Awaited<ReturnType<typeof runDemoCli>>;
  let lines: DumpLine[];

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    server = await startServer({
      DATABASE_URL: database.url,
      FUSEBOX_MAX_CONCURRENCY: String(LIMIT),
      FUSEBOX_API_TOKEN: TOKEN,
    });
    client = await connectPostgres(database.url);
    dir = await mkdtemp(join(tmpdir(), 'fusebox-demo-test-'));
    out = join(dir, 'rollouts');
    // Ten episodes a step: each task family plays every scripted case at least once per step.
    demo = await runDemoCli(
      [
        '--api-url',
        server.url,
        '--token',
        TOKEN,
        '--episodes',
        '10',
        '--steps',
        '2',
        '--concurrency',
        '8',
        '--out',
        out,
        '--report',
        join(dir, 'report.json'),
      ],
      { DATABASE_URL: database.url, DASHBOARD_PORT: '13999' },
    );
    const text = [1, 2].map((step) => readFile(join(out, `${step}.jsonl`), 'utf8'));
    lines = (await Promise.all(text))
      .flatMap((file) => file.trimEnd().split('\n'))
      .map((line) => JSON.parse(line) as DumpLine);
  }, 600_000);

  afterAll(async () => {
    await client?.end();
    await server?.stop();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('finishes, with a summary table and the dashboard pages to open', () => {
    expect(demo.stderr).not.toContain('unexpected error');
    expect(demo.code).toBe(0);
    expect(demo.stdout).toMatch(/Done: 20 episodes in [\d.]+ s/);
    expect(demo.stdout).toMatch(/^tasks\s+episodes\s+mean reward\s+tool calls\s+executions\s+errors$/m);
    expect(demo.stdout).toMatch(/^gsm8k\s+10\s/m);
    expect(demo.stdout).toMatch(/^coding\s+10\s/m);
    expect(demo.stdout).toMatch(/^correct\s+\d+\s+1\.00$/m);
    expect(demo.stdout).toMatch(/errors by kind: .*malformed_call \d+/);
    expect(demo.stdout).toMatch(/errors by kind: .*timeout \d+/);
    expect(demo.stdout).toMatch(/errors by kind: .*runtime_error \d+/);
    expect(demo.stdout).toContain('  overview    http://127.0.0.1:13999/');
    expect(demo.stdout).toMatch(/ {2}rollouts {4}http:\/\/127\.0\.0\.1:13999\/rollouts\/[0-9a-f-]{36}\n/);
    expect(demo.stdout).toContain(`limit ${LIMIT}`);
  });

  it('records every execution in the server, and never more than the global limit at once', async () => {
    const { rows } = await client.query<{ requested: Date; acquired: Date; finished: Date; source: string }>(
      `SELECT "requested_at" AS "requested", "acquired_at" AS "acquired", "finished_at" AS "finished", "source"
       FROM "execution" WHERE "acquired_at" IS NOT NULL AND "finished_at" IS NOT NULL`,
    );
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as {
      all: { executions: number };
    };
    // Every code run of a tool call, plus the tests /compute_reward runs.
    expect(rows.length).toBeGreaterThan(report.all.executions);
    expect(new Set(rows.map((row) => row.source))).toEqual(
      new Set(['run_code', 'session_action', 'session_reward']),
    );
    const peak = peakOverlap(
      rows.map((row) => ({ from: row.acquired.getTime(), to: row.finished.getTime() })),
    );
    expect(peak).toBeLessThanOrEqual(LIMIT);
    expect(peak).toBeGreaterThan(1);
    // Eight episodes against three permits: some executions had to wait for one.
    expect(rows.some((row) => row.acquired.getTime() > row.requested.getTime())).toBe(true);
  });

  it('scores the scripted answers right: correct 1, wrong 0 (or the share of tests a wrong solution passes)', async () => {
    const tasks = new Map((await loadCodingTasks()).map((task) => [task.name, task]));
    expect(lines).toHaveLength(20);
    for (const family of ['fusebox-demo/gsm8k', 'fusebox-demo/coding']) {
      const cases = new Set(lines.filter((line) => line.data_source === family).map((line) => line.case));
      expect(cases).toEqual(new Set(['correct', 'wrong', 'malformed', 'timeout', 'crash']));
    }
    for (const line of lines) {
      const coding = line.data_source === 'fusebox-demo/coding';
      const expected =
        line.case !== 'wrong' ? 1 : coding ? (tasks.get(line.task)?.metadata.mistake_reward ?? NaN) : 0;
      expect({ task: line.task, case: line.case, score: line.score }).toEqual({
        task: line.task,
        case: line.case,
        score: expect.closeTo(expected, 9) as number,
      });
      expect(line.acc).toBe(expected === 1);
    }
  });

  it('shows the model what went wrong: a malformed call, a timeout, a crash', () => {
    const output = (family: string, scripted: string) =>
      lines.find((line) => line.data_source === family && line.case === scripted)?.output ?? '';
    for (const family of ['fusebox-demo/gsm8k', 'fusebox-demo/coding']) {
      expect(output(family, 'malformed')).toContain('not valid JSON');
      expect(output(family, 'timeout')).toContain('timeout after 3s');
      expect(output(family, 'crash')).toMatch(/NameError: name '\w+' is not defined/);
    }
    expect(output('fusebox-demo/coding', 'timeout')).toContain('the Python session was restarted');
  });

  it('imports each step into one rollout run, and stores each coding episode as a session with its reward', async () => {
    const runs = await client.query<{ name: string; samples: number; steps: number }>(
      `SELECT r."name", count(s.*)::int AS "samples", count(DISTINCT s."step")::int AS "steps"
       FROM "rollout_run" r JOIN "rollout_sample" s ON s."run_id" = r."id" GROUP BY r."name"`,
    );
    expect(runs.rows).toEqual([{ name: 'rollouts', samples: 20, steps: 2 }]);
    const coding = lines.filter((line) => line.data_source === 'fusebox-demo/coding');
    const { rows } = await client.query<{ id: string; reward: number; state: string }>(
      'SELECT "id", "reward", "state" FROM "session" WHERE "id" = ANY($1)',
      [coding.map((line) => line.sid)],
    );
    expect(rows).toHaveLength(coding.length);
    for (const row of rows) {
      expect(row.state).toBe('postprocessed');
      expect(row.reward).toBeCloseTo(coding.find((line) => line.sid === row.id)?.score ?? NaN, 9);
    }
  });

  it('refuses to dump into a directory that already holds a run, naming a way out', async () => {
    const again = await runDemoCli(['--api-url', server.url, '--token', TOKEN, '--out', out], {
      DATABASE_URL: database.url,
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${out} already holds a rollout dump; pass a new --out`);
  });

  it('says what to do when the token is missing, the server is on another database, or nothing listens', async () => {
    const noToken = await runDemoCli(['--api-url', server.url], {
      DATABASE_URL: database.url,
      FUSEBOX_API_TOKEN: '',
    });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('wants a bearer token: pass --token or set FUSEBOX_API_TOKEN');

    const otherDatabase = await runDemoCli(['--api-url', server.url, '--token', TOKEN], {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/fusebox_elsewhere',
    });
    expect(otherDatabase.code).toBe(1);
    expect(otherDatabase.stderr).toContain(
      `uses the database postgresql://postgres@127.0.0.1:5432/${database.name}`,
    );
    expect(otherDatabase.stderr).toContain('run it with the same DATABASE_URL as the server');

    const nobody = await runDemoCli(['--api-url', 'http://127.0.0.1:9'], { DATABASE_URL: database.url });
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('no Fusebox API answers at http://127.0.0.1:9');
    expect(nobody.stderr).toContain('Start it with `npm start` in another terminal');
  });

  it('rejects bad flags with the usage and exit code 2', async () => {
    const bad = await runDemoCli(['--episodes', 'many', '--tasks', 'chess', '--api-url', 'ftp://x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--api-url: expected an http(s) URL');
    expect(bad.stderr).toContain('--episodes: expected a positive integer');
    expect(bad.stderr).toContain('--tasks: expected a list of gsm8k, coding');
    expect(bad.stderr).toContain('usage: fusebox-demo [options]');
    const lonely = await runDemoCli(['--model-url', 'http://127.0.0.1:8000/v1']);
    expect(lonely.code).toBe(2);
    expect(lonely.stderr).toContain('--model-url and --model go together');
    const unknown = await runDemoCli(['--turbo']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--turbo'");
  });

  it('stops cleanly on Ctrl-C, keeping the steps already dumped and imported', async () => {
    const out = join(dir, 'interrupted');
    const child = spawn(
      process.execPath,
      [
        ...DEMO_COMMAND,
        ...['--api-url', server.url, '--token', TOKEN, '--out', out],
        ...['--episodes', '6', '--steps', '50', '--concurrency', '6'],
      ],
      { env: { ...process.env, DATABASE_URL: database.url }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit');
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('step 1/50:')) resolve();
      }),
    );
    child.kill('SIGINT');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(130);
    expect(stderr).toContain('fusebox-demo: stopped; the steps finished so far are dumped and imported');
    const { rows } = await client.query<{ samples: number }>(
      `SELECT count(*)::int AS "samples" FROM "rollout_sample" s JOIN "rollout_run" r ON r."id" = s."run_id"
       WHERE r."name" = 'interrupted' AND s."step" = 1`,
    );
    expect(rows).toEqual([{ samples: 6 }]);
  });
});
