// A user's plain Node ESM program, run from a project outside the repository against the installed tarballs
// (no TypeScript, no loader, no custom condition). It prints one JSON line that the test checks.
import {
  SandboxHttpError,
  createSandboxClient,
  isSandboxClientError,
  summarize,
} from '@fusebox/sandbox-client';
import { runCodeRequestSchema } from '@fusebox/sandbox-client/protocol';
import { LimiterError, LimiterUnavailableError, createLocalLimiter } from '@fusebox/rate-limiter';
import { createPgLimiter, listLimiters } from '@fusebox/rate-limiter/pg';
import { CodeInterpreterTool, runEpisode, scriptedGenerate } from '@fusebox/tools';

const { FUSEBOX_URL, DATABASE_URL } = process.env;
const out = {};

const client = createSandboxClient({ endpoint: FUSEBOX_URL, timeoutMs: 120_000 });
const ran = await client.runCode(runCodeRequestSchema.parse({ code: 'print(6 * 7)', language: 'python' }));
out.runCode = { status: ran.status, stdout: ran.run_result?.stdout, category: summarize(ran).category };
const refused = await client.runCode({ code: 'print(1)', language: 'cobol' }).catch((error) => error);
out.refused = {
  isClientError: isSandboxClientError(refused),
  isHttpError: refused instanceof SandboxHttpError,
  status: refused.status,
};
await client.close();

const local = createLocalLimiter({ key: 'outside-local', limit: 2 });
let running = 0;
let most = 0;
const squares = await Promise.all(
  [1, 2, 3, 4, 5].map((n) =>
    local.withPermit(async () => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      return n * n;
    }),
  ),
);
out.local = { squares, most };
await local.close();

const cluster = await createPgLimiter({ connectionString: DATABASE_URL, key: 'outside-pg', limit: 2 });
const held = await cluster.withPermit(async (_signal, permit) => `slot ${permit.slot}`);
const keys = (await listLimiters({ connectionString: DATABASE_URL })).map(
  ({ key, limit }) => `${key}/${limit}`,
);
out.pg = { held, keys };
await cluster.close();
// An error from the ./pg entry is an instance of the root entry's classes: one class across entries.
const down = await createPgLimiter({
  connectionString: 'postgresql://nobody@127.0.0.1:1/none',
  key: 'outside-down',
  limit: 1,
}).catch((error) => error);
out.down = {
  code: down.code,
  rootClasses: down instanceof LimiterError && down instanceof LimiterUnavailableError,
};

const tool = new CodeInterpreterTool({ sandbox_fusion_url: `${FUSEBOX_URL}/run_code` });
const trajectory = await runEpisode(
  { messages: [{ role: 'user', content: 'What is 2**10? Use the code tool.' }], groundTruth: '1024' },
  {
    generate: scriptedGenerate([
      '<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(2 ** 10)"}}\n</tool_call>',
      'It printed 1024.\n#### 1024',
    ]),
    tools: [tool],
    limits: { maxAssistantTurns: 4 },
  },
);
await tool.close();
out.episode = {
  state: trajectory.state,
  tool: trajectory.messages.filter((message) => message.role === 'tool').map((message) => message.content),
  score: trajectory.score,
};

console.log(JSON.stringify(out));
