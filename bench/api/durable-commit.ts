// The price of durable agent actions (issue #20). An action is answered once its commit is on disk; before, its
// statement ran with synchronous_commit off, and an embedded crash lost answered actions. This measures
// /process_action (`print(1)`, stateful sessions, one per client) against a real `fusebox serve`, on Postgres and
// on the embedded database, with the database's synchronous_commit on (what Fusebox does now) and off (the
// baseline: the commit as it was), alternating rounds so that both see the same machine load.
// Usage: node --conditions=@fusebox/source --import tsx bench/api/durable-commit.ts [--seconds N] [--rounds N]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startServer } from '@fusebox/api/testing';
import type { DatabaseMode } from '@fusebox/db/database';
import {
  createEmbeddedTestDatabase,
  createPostgresTestDatabase,
  type TestDatabase,
} from '@fusebox/db/testing';
import { writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/api/durable-commit.ts';
const CONCURRENCIES = [1, 16];
/** The builtin task `add-two-numbers`: stateful Python. */
const TASK = '9000000000000000001';
const JSON_HEADERS = { 'content-type': 'application/json' };

type Commit = 'durable' | 'relaxed';

interface Sample {
  mode: DatabaseMode;
  commit: Commit;
  c: number;
  latencies: number[];
  seconds: number;
}

/**
 * Sets synchronous_commit for every session opened after it: for the database on the shared Postgres server, and
 * in the data directory's postgresql.auto.conf embedded (PGlite, in single-user mode, ignores per-database
 * settings).
 */
async function setCommit(database: TestDatabase, commit: Commit): Promise<void> {
  const value = commit === 'durable' ? 'on' : 'off';
  const sql = await database.connectSql();
  try {
    if (database.mode === 'embedded') {
      await sql.exec(`ALTER SYSTEM SET synchronous_commit = ${value}`);
    } else {
      await sql.exec(`ALTER DATABASE "${database.name}" SET synchronous_commit = ${value}`);
    }
  } finally {
    await sql.close();
  }
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
  if (response.status !== 200)
    throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** `c` clients, each on its own session, sending actions back to back for `seconds`. */
async function measure(url: string, c: number, seconds: number): Promise<number[]> {
  const sids = await Promise.all(
    Array.from({ length: c }, async () => (await post(`${url}/start_instance`, { instance_hash: TASK })).sid),
  );
  const content = 'Here is my code:\n```python\nprint(1)\n```\n';
  for (const sid of sids) await post(`${url}/process_action`, { sid, content });
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    sids.map(async (sid) => {
      while (performance.now() < until) {
        const sent = performance.now();
        await post(`${url}/process_action`, { sid, content });
        latencies.push(performance.now() - sent);
      }
    }),
  );
  await Promise.all(sids.map((sid) => post(`${url}/postprocess`, { sid })));
  return latencies;
}

async function round(mode: DatabaseMode, commit: Commit, seconds: number): Promise<Sample[]> {
  const database =
    mode === 'embedded' ? await createEmbeddedTestDatabase() : await createPostgresTestDatabase();
  try {
    await setCommit(database, commit);
    const server = await startServer({ ...database.env }, ['--no-dashboard'], 180_000);
    try {
      const samples: Sample[] = [];
      for (const c of CONCURRENCIES) {
        samples.push({ mode, commit, c, latencies: await measure(server.url, c, seconds), seconds });
      }
      return samples;
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' } },
  });
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const loadBefore = loadavg();
  const samples: Sample[] = [];
  for (const mode of ['postgres', 'embedded'] as const) {
    for (let index = 0; index < rounds; index += 1) {
      for (const commit of index % 2 === 0
        ? (['relaxed', 'durable'] as const)
        : (['durable', 'relaxed'] as const)) {
        samples.push(...(await round(mode, commit, seconds)));
        process.stderr.write(`${mode} ${commit} round ${index + 1} done\n`);
      }
    }
  }
  const rows = (['postgres', 'embedded'] as const).flatMap((mode) =>
    CONCURRENCIES.map((c) => {
      const of = (commit: Commit) =>
        samples.filter((sample) => sample.mode === mode && sample.c === c && sample.commit === commit);
      const stats = (commit: Commit) => {
        const chosen = of(commit);
        const latencies = chosen.flatMap((sample) => sample.latencies);
        const perSecond = latencies.length / chosen.reduce((sum, sample) => sum + sample.seconds, 0);
        return {
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          perSecond,
          count: latencies.length,
        };
      };
      const durable = stats('durable');
      const relaxed = stats('relaxed');
      return `| ${mode} | ${c} | ${durable.count} / ${relaxed.count} | ${durable.p50.toFixed(2)} | ${relaxed.p50.toFixed(2)} | ${(durable.p50 / relaxed.p50).toFixed(2)}x | ${durable.p99.toFixed(2)} | ${relaxed.p99.toFixed(2)} | ${durable.perSecond.toFixed(1)} | ${relaxed.perSecond.toFixed(1)} | ${(durable.perSecond / relaxed.perSecond).toFixed(2)}x |`;
    }),
  );
  const loadAfter = loadavg();
  await writeResults(
    new URL('./DURABLE-COMMIT.md', import.meta.url),
    [
      '# Durable agent actions: what the synchronous commit costs',
      '',
      `Command: \`${COMMAND}${seconds === 5 ? '' : ` --seconds ${seconds}`}${rounds === 3 ? '' : ` --rounds ${rounds}`}\``,
      `Date: ${new Date().toISOString()}`,
      `Load average: ${loadBefore.map((load) => load.toFixed(1)).join(' ')} before, ${loadAfter.map((load) => load.toFixed(1)).join(' ')} after (2 cores, shared with other work)`,
      '',
      `/process_action with \`print(1)\` in stateful sessions (one per client, c clients back to back, ${seconds} s per`,
      `measure) against a real \`fusebox serve\` with its defaults. **durable**: the database's \`synchronous_commit\``,
      'on, as Fusebox runs now (an answered action is in the WAL on disk, embedded included). **relaxed**: the same',
      'server with `synchronous_commit` off for the whole database, the baseline of how actions were committed',
      `before issue #20. ${rounds} rounds per mode, alternating which goes first; each round a fresh database and`,
      'server. Ratio = durable ÷ relaxed.',
      '',
      '| database | c | actions (durable / relaxed) | p50 ms durable | p50 ms relaxed | p50 ratio | p99 ms durable | p99 ms relaxed | actions/s durable | actions/s relaxed | throughput ratio |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
      '',
    ].join('\n'),
  );
}

await main();
