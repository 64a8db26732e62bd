import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { NO_DATABASE_SERVER_ENV, type RunningServer, runCli, startServer } from './serve-process';
import { BUILTIN, act, fenced, post } from './session-client';

const ENV = NO_DATABASE_SERVER_ENV;
/** A first start creates and migrates the embedded database: tens of seconds on a loaded machine. */
const START_TIMEOUT_MS = 180_000;

async function trpc<T>(server: RunningServer, path: string, input?: unknown): Promise<T> {
  const query = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  const response = await fetch(`${server.url}/trpc/${path}${query}`);
  const body = (await response.json()) as { result?: { data: T }; error?: unknown };
  if (!body.result) throw new Error(`${path}: ${JSON.stringify(body.error)}`);
  return body.result.data;
}

describe('fusebox serve with no database server', () => {
  let cwd: string;
  let dataDir: string;
  let server: RunningServer;
  let sid: string;
  const cli = (args: string[]) => runCli(args, ENV, { cwd });

  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'fusebox-embedded-serve-'));
    dataDir = join(cwd, '.fusebox');
    server = await startServer(ENV, ['--no-dashboard'], START_TIMEOUT_MS, { cwd });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
    if (cwd) await rm(cwd, { recursive: true, force: true });
  });

  it('says first that it runs embedded, where the data lives and how to move to Postgres', async () => {
    const first = JSON.parse(server.output().split('\n')[0]!) as { msg: string };
    expect(first.msg).toContain('embedded mode (PGlite, no database server)');
    expect(first.msg).toContain(`data in ${dataDir}`);
    expect(first.msg).toContain('set DATABASE_URL to a Postgres');
    const health = (await (await fetch(`${server.url}/health`)).json()) as { database: unknown };
    expect(health.database).toMatchObject({
      status: 'ok',
      mode: 'embedded',
      url: pathToFileURL(dataDir).href,
    });
    // The global limit is this process's own, and the live overview reads it there (no Postgres to ask).
    const load = await trpc<{ keys: unknown[]; limiterError: string | null }>(server, 'limiter.stats');
    expect(load.limiterError).toBeNull();
    expect(load.keys).toContainEqual(
      expect.objectContaining({ key: 'run_code', source: 'limiter', limit: 3, inFlight: 0 }),
    );
  });

  it('runs code and a whole agent session', async () => {
    const run = await fetch(`${server.url}/run_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'print("embedded")', language: 'python' }),
    });
    expect(await run.json()).toMatchObject({ status: 'Success', run_result: { stdout: 'embedded\n' } });

    const started = await post(server, '/start_instance', { instance_hash: BUILTIN.add });
    expect(started.status).toBe(200);
    sid = started.body.sid as string;
    expect(await act(server, sid, fenced('python', 'def add(a, b):\n    return a + b'))).toBe('exit code 0');
    expect((await post(server, '/compute_reward', { sid })).body).toMatchObject({ reward: 1, f2p_count: 4 });
    expect((await post(server, '/postprocess', { sid })).body).toMatchObject({ state: 'postprocessed' });
  });

  it('imports through the running server, which holds the data directory', async () => {
    const tasks = join(cwd, 'tasks.jsonl');
    await writeFile(
      tasks,
      `${JSON.stringify({
        name: 'triple',
        prompt: 'Write triple(x).',
        language: 'python',
        tests: [{ name: 'three', code: 'assert triple(1) == 3' }],
      })}\nnot json\n`,
    );
    const imported = await cli(['tasks', 'import', tasks]);
    expect(imported.stderr).toContain(`the data directory ${dataDir} is held by the Fusebox server (pid `);
    expect(imported.stderr).toContain('importing through it');
    expect(imported.stderr).toContain(`${tasks}:2: not JSON`);
    expect(imported.stdout).toContain('loaded 1 tasks (1 new, 0 updated), rejected 1 lines');
    expect(imported.code).toBe(1);

    const dump = await writeDump({ '1.jsonl': [dumpLine({ score: 1 }), dumpLine({ score: 0 })] });
    const rollouts = await cli(['rollouts', 'import', dump, '--name', 'embedded-run']);
    expect(rollouts.code).toBe(0);
    expect(rollouts.stdout).toContain('run "embedded-run": imported 2 samples');
    const missing = await cli(['rollouts', 'import', join(cwd, 'nowhere')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`cannot read ${join(cwd, 'nowhere')}: no such directory`);
  });

  it('refuses, naming the server, what needs the data directory to itself', async () => {
    const migrate = await cli(['db', 'migrate']);
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toContain('is held by the Fusebox server');
    expect(migrate.stderr).toContain('restart it to apply new ones');

    const exported = await cli(['db', 'export', join(cwd, 'all.fusebox.gz')]);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain('stop it first');
    expect(existsSync(join(cwd, 'all.fusebox.gz'))).toBe(false);

    const second = await cli(['serve', '--no-dashboard']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `the data directory ${dataDir} is in use by another Fusebox process (pid `,
    );
    expect(second.stderr).toContain('set DATABASE_URL');
  });

  it(
    'stops cleanly and finds everything again after a restart',
    async () => {
      expect(await server.stop('SIGTERM')).toBe(0);
      // Released: no lock, no record of a server that is gone.
      expect(existsSync(join(dataDir, 'fusebox.lock'))).toBe(false);
      expect(existsSync(join(dataDir, 'server.json'))).toBe(false);

      server = await startServer(ENV, ['--no-dashboard'], START_TIMEOUT_MS, { cwd });
      expect(server.output()).not.toContain('applied migration');
      const session = await trpc<{ state: string; reward: number; actions: unknown[] }>(
        server,
        'sessions.byId',
        {
          id: sid,
        },
      );
      expect(session).toMatchObject({ state: 'postprocessed', reward: 1 });
      expect(session.actions).toHaveLength(1);
      const executions = await trpc<{ items: { source: string; stdout: string | null }[] }>(
        server,
        'executions.list',
        {},
      );
      expect(executions.items).toContainEqual(expect.objectContaining({ source: 'run_code' }));
      const tasks = await trpc<{ items: { name: string }[] }>(server, 'tasks.list', { search: 'triple' });
      expect(tasks.items.map((task) => task.name)).toEqual(['triple']);
      const runs = await trpc<{ name: string; samples: number }[]>(server, 'rollouts.runs');
      expect(runs).toContainEqual(expect.objectContaining({ name: 'embedded-run', samples: 2 }));
    },
    START_TIMEOUT_MS,
  );

  it('imports straight into the data directory when no server holds it', async () => {
    expect(await server.stop('SIGINT')).toBe(0);
    const dir = join(cwd, 'steps');
    await mkdir(dir);
    await writeFile(join(dir, '1.jsonl'), `${JSON.stringify(dumpLine())}\n`);
    const direct = await cli(['rollouts', 'import', dir]);
    expect(direct.code).toBe(0);
    expect(direct.stderr).not.toContain('importing through it');
    expect(direct.stdout).toContain('run "steps": imported 1 samples');
  });
});
