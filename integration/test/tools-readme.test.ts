import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer, type RunningServer } from '@fusebox/api/testing';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SANDBOX_FUSION_TOOL_CONFIG } from '@fusebox/testing/verl-yaml';
import { chatCompletion, startFakeModelServer } from '@fusebox/testing/fake-model-server';

let db: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  db = await createTestDatabase();
  server = await startServer(db.env, ['--no-dashboard'], 120_000);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await db?.drop();
});

it("runs the README's rollout loop as written, against a model server and Fusebox's sandbox", async () => {
  const readme = await readFile(new URL('../../packages/tools/README.md', import.meta.url), 'utf8');
  const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  expect(code.split('\n').length).toBeLessThan(30);

  const model = await startFakeModelServer((body) => {
    const messages = body.messages as { role: string; content: string }[];
    const lastTool = messages.findLast((message) => message.role === 'tool');
    return lastTool
      ? {
          body: chatCompletion(
            `The code printed ${lastTool.content.trim()}.\n#### ${lastTool.content.trim()}`,
          ),
        }
      : {
          body: chatCompletion(null, 'tool_calls', {
            tool_calls: [{ name: 'code_interpreter', arguments: '{"code": "print(2**20 - 1)"}' }],
          }),
        };
  });
  const work = await mkdtemp(join(tmpdir(), 'fusebox-readme-'));
  // The script must sit inside the workspace to resolve @fusebox/tools; it runs with the temp dir as cwd.
  const script = fileURLToPath(new URL(`./.readme-loop-${process.pid}.ts`, import.meta.url));
  try {
    await writeFile(
      join(work, 'sandbox_fusion_tool_config.yaml'),
      SANDBOX_FUSION_TOOL_CONFIG.replace(/https:\/\/\S+\/run_code/, `${server.url}/run_code`),
    );
    await writeFile(script, code.replace('http://127.0.0.1:8000/v1', model.baseUrl));
    // The child's cwd is the temp dir, so tsx is named by path rather than resolved from there.
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const child = spawn(process.execPath, ['--conditions=@fusebox/source', '--import', tsx, script], {
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [exitCode] = (await once(child, 'exit')) as [number | null];
    expect(output).toContain('1/1');
    expect(exitCode).toBe(0);
    const line = JSON.parse(await readFile(join(work, 'rollouts', '1.jsonl'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(line).toMatchObject({ gts: '1048575', score: 1, step: 1 });
    expect(line.output).toContain('tool\n1048575\n');
  } finally {
    await unlink(script).catch(() => undefined);
    await rm(work, { recursive: true, force: true });
    await model.close();
  }
}, 60_000);
