import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { type PostgresTestDatabase, createPostgresTestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The README's examples, run as written by a child Node process that imports the package by its name.
const README = new URL('../README.md', import.meta.url);
const blocks = async () =>
  [...(await readFile(README, 'utf8')).matchAll(/```(\w*)\n([\s\S]*?)```/g)].map(([, lang, text]) => ({
    lang,
    text: text!,
  }));

/** Runs `code` as a module inside the workspace (under node_modules, so no linter picks it up) and returns stdout. */
async function run(code: string, env: Record<string, string> = {}): Promise<string> {
  const cache = new URL('../node_modules/.cache/', import.meta.url);
  await mkdir(cache, { recursive: true });
  const script = new URL(`readme-example-${process.pid}-${Date.now()}.mts`, cache);
  await writeFile(script, code);
  try {
    const child = spawn(
      process.execPath,
      ['--conditions=@fusebox/source', '--import', 'tsx', script.pathname],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const [exitCode] = (await once(child, 'exit')) as [number | null];
    expect(exitCode).toBe(0);
    return stdout;
  } finally {
    await unlink(script);
  }
}

describe('the README', () => {
  let database: PostgresTestDatabase;
  beforeAll(async () => {
    database = await createPostgresTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('runs the in-process example and prints what it says', async () => {
    const [local, printed] = await blocks();
    expect(local?.lang).toBe('ts');
    expect(await run(local!.text)).toBe(printed!.text);
  }, 60_000);

  it('runs the Postgres example against a database', async () => {
    const pgExample = (await blocks()).find(({ text }) => text.includes("from '@fusebox/rate-limiter/pg'"));
    const stdout = await run(pgExample!.text, { DATABASE_URL: database.url });
    expect(stdout).toBe('ran under a cluster-wide permit\nrun_code: 0/10 in flight, 0 waiting\n');
  }, 60_000);
});
