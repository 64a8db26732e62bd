import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, runCli, startServer } from '@fusebox/api/testing';
import type { PrismaClient } from '@fusebox/db/client';
import { type PostgresTestDatabase, createPostgresTestDatabase } from '@fusebox/db/testing';
import {
  type BaseTool,
  SearchTool,
  computeQaScore,
  loadToolsFromYaml,
  runEpisode,
  scriptedGenerate,
} from '@fusebox/tools';
import { toolCall } from '@fusebox/testing/tool-call';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const passage = (id: string, title: string, text: string) =>
  JSON.stringify({ id, contents: `"${title}"\n${text}` });

const CORPUS = [
  passage('p1', 'Paris', 'Paris is the capital and largest city of France, on the river Seine.'),
  passage('p2', 'Lyon', 'Lyon is the third-largest city of France, where the Rhône meets the Saône.'),
  passage('p3', 'Hamlet', 'Hamlet is a tragedy written by William Shakespeare around 1600.'),
];

let db: PostgresTestDatabase;
let server: RunningServer;
let reader: PrismaClient;
const opened: BaseTool[] = [];

beforeAll(async () => {
  db = await createPostgresTestDatabase();
  const file = join(await mkdtemp(join(tmpdir(), 'fusebox-search-tool-')), 'wiki.jsonl');
  await writeFile(file, CORPUS.map((line) => `${line}\n`).join(''));
  const imported = await runCli(['corpus', 'import', file], db.env);
  expect(imported.stdout).toContain('corpus "wiki": imported 3 passages');
  server = await startServer(db.env, ['--no-dashboard'], 120_000);
  reader = db.reader();
}, 180_000);

afterAll(async () => {
  await Promise.all(opened.map((tool) => tool.close()));
  await reader?.$disconnect();
  await server?.stop();
  await db?.drop();
});

async function verlSearchTool(url: string): Promise<BaseTool> {
  const [tool] = await loadToolsFromYaml(
    `tools:\n  - class_name: verl.tools.search_tool.SearchTool\n    config:\n      retrieval_service_url: "${url}"\n      topk: 2\n      max_retries: 0\n`,
  );
  opened.push(tool!);
  return tool!;
}

describe('SearchTool against Fusebox’s /retrieve', () => {
  it("verl's config, pointed at Fusebox, searches the imported corpus in a scored episode", async () => {
    const tool = await verlSearchTool(`${server.url}/retrieve`);
    expect(tool).toBeInstanceOf(SearchTool);
    const trajectory = await runEpisode(
      {
        messages: [{ role: 'user', content: 'What is the capital of France?' }],
        groundTruth: ['Paris'],
      },
      {
        generate: scriptedGenerate([
          `Let me look it up.\n${toolCall('search', { query_list: ['capital of France', 'Shakespeare tragedy'] })}`,
          'The first passage says so. <answer>Paris</answer>',
        ]),
        tools: [tool],
        limits: { maxAssistantTurns: 3, maxToolResponseLength: 10_000 },
        score: (t) =>
          computeQaScore(t.messages.at(-1)?.content ?? '', t.groundTruth as string[], { match: 'em' }),
      },
    );
    expect(trajectory.state).toBe('COMPLETED');
    expect(trajectory.score).toBe(1);
    const [call] = trajectory.toolCalls;
    expect(call?.metrics).toMatchObject({ status: 'success', query_count: 2, total_results: 3 });
    const message = trajectory.messages.find((m) => m.role === 'tool')?.content ?? '';
    const result = (JSON.parse(message) as { result: string }).result;
    expect(result.split('\n---\n')).toHaveLength(2);
    expect(result).toMatch(/^Doc 1 \(Title: "Paris"\)\nParis is the capital and largest city of France/);
    expect(result.split('\n---\n')[1]).toMatch(/^Doc 1 \(Title: "Hamlet"\)\nHamlet is a tragedy/);

    // The server recorded the call, as it does every /retrieve call, for the dashboard.
    const recorded = await reader.retrievalCall.findFirst({
      where: { corpusName: 'wiki', status: 200 },
      orderBy: { createdAt: 'desc' },
    });
    expect(recorded?.queries).toEqual(['capital of France', 'Shakespeare tragedy']);
    expect(recorded?.topk).toBe(2);
  });

  it("tells the model Fusebox's reason for a refusal: an unknown corpus, a topk over the limit", async () => {
    const unknown = await verlSearchTool(`${server.url}/retrieve/hotpot`);
    const { instanceId } = await unknown.create();
    const refused = await unknown.execute(instanceId, { query_list: ['paris'] });
    expect(JSON.parse(refused.response.text!)).toEqual({
      result: expect.stringMatching(
        new RegExp(`^Search error: HTTP 404 from ${server.url}/retrieve/hotpot: .*hotpot.*wiki`),
      ) as unknown,
    });
    expect(refused.metrics.status).toBe('api_error');

    const greedy = new SearchTool({ retrieval_service_url: `${server.url}/retrieve`, topk: 10_000 });
    opened.push(greedy);
    const created = await greedy.create();
    const tooMany = await greedy.execute(created.instanceId, { query_list: ['paris'] });
    expect((JSON.parse(tooMany.response.text!) as { result: string }).result).toMatch(
      /HTTP 422 .*topk may be at most 100/,
    );
  });
});
