import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_DATABASE_SERVER_ENV, type RunningServer, startServer } from '@fusebox/api/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_CORPUS_NAME, loadSearchQuestions } from '../src/demo-data';
import { runDemoCli } from './demo-process';

// `npm start` then `npm run demo` on a machine with no Postgres: the server holds the embedded data directory
// (.fusebox in the working directory), so the demo imports and reads through it.
const ENV = NO_DATABASE_SERVER_ENV;
/** A first start creates and migrates the embedded database: tens of seconds on a loaded machine. */
const START_TIMEOUT_MS = 180_000;

describe('the demo against a server in embedded mode', () => {
  let cwd: string;
  let server: RunningServer;

  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'fusebox-embedded-demo-'));
    server = await startServer(ENV, ['--no-dashboard'], START_TIMEOUT_MS, { cwd });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
    if (cwd) await rm(cwd, { recursive: true, force: true });
  });

  it('runs the demo against it, importing and reading through it', async () => {
    const out = join(cwd, 'demo-dumps');
    const demo = await runDemoCli(
      ['--api-url', server.url, '--episodes', '2', '--steps', '1', '--out', out],
      ENV,
      { cwd },
    );
    expect(demo.stderr).not.toContain('unexpected error');
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('2 samples imported into run "demo-dumps"');
    expect(demo.stdout).toMatch(/server: \d+ executions recorded during the demo/);
  });

  it('runs the search questions: imports the corpus through it, and scores the scripted answers', async () => {
    const out = join(cwd, 'search-dumps');
    const demo = await runDemoCli(
      ['--api-url', server.url, '--tasks', 'search', '--episodes', '10', '--steps', '1', '--out', out],
      ENV,
      { cwd },
    );
    expect(demo.stderr).not.toContain('unexpected error');
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/^search\s+10\s/m);
    const lines = (await readFile(join(out, '1.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { score: number; case: string; output: string; data_source: string },
      );
    expect(lines).toHaveLength(10);
    for (const line of lines) {
      expect(line.data_source).toBe('fusebox-demo/search');
      // Every case but `wrong` ends with the right answer, found through the searches.
      expect([line.case, line.score]).toEqual([line.case, line.case === 'wrong' ? 0 : 1]);
      expect(line.output).toContain('Doc 1 (Title: ');
    }
    const malformed = lines.find((line) => line.case === 'timeout');
    expect(malformed?.output).toContain(
      "Error: 'query_list' is missing, empty, or not a list in parameters.",
    );
  });

  it('ships questions whose golden answer is in the passages their queries find', async () => {
    for (const question of await loadSearchQuestions()) {
      const response = await fetch(`${server.url}/retrieve/${SEARCH_CORPUS_NAME}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ queries: question.queries, topk: 3, return_scores: true }),
      });
      const { result } = (await response.json()) as { result: { document: { contents: string } }[][] };
      const found = result.flat().map(({ document }) => document.contents);
      expect([question.id, found.some((text) => text.includes(question.golden_answers[0]!))]).toEqual([
        question.id,
        true,
      ]);
    }
  });
});
