// A user's TypeScript file, compiled in a project outside the repository with `module`/`moduleResolution:
// NodeNext` and `strict` against the installed tarballs: it must compile with zero errors.
import {
  type RunCodeResponse,
  type SandboxClient,
  createSandboxClient,
  isSandboxClientError,
  summarize,
} from '@fusebox/sandbox-client';
import { type Language, LANGUAGES, runCodeRequestSchema } from '@fusebox/sandbox-client/protocol';
import { type Limiter, type LimiterStats, createLocalLimiter, isLimiterError } from '@fusebox/rate-limiter';
import { type PgLimiterOptions, createPgLimiter } from '@fusebox/rate-limiter/pg';
import {
  BaseTool,
  CODE_INTERPRETER_SCHEMA,
  CodeInterpreterTool,
  type ToolExecution,
  type Trajectory,
  runBatch,
  scriptedGenerate,
} from '@fusebox/tools';

export async function squareIn(client: SandboxClient, language: Language, n: number): Promise<string> {
  const request = runCodeRequestSchema.parse({ code: `print(${n} * ${n})`, language });
  const result: RunCodeResponse = await client.runCode(request);
  const { category, stdout } = summarize(result);
  return category === 'success' ? stdout : `failed: ${category}`;
}

export function limiterFor(connectionString: string | undefined): Promise<Limiter> | Limiter {
  const options: PgLimiterOptions | undefined = connectionString
    ? { connectionString, key: 'run_code', limit: 4 }
    : undefined;
  return options ? createPgLimiter(options) : createLocalLimiter({ limit: 4 });
}

class UpperTool extends BaseTool<{ calls: number }> {
  protected initialState(): { calls: number } {
    return { calls: 0 };
  }
  execute(instanceId: string, parameters: Record<string, unknown>): Promise<ToolExecution> {
    this.state(instanceId).calls += 1;
    const text = typeof parameters.text === 'string' ? parameters.text.toUpperCase() : '';
    return Promise.resolve({ response: { text }, reward: null, metrics: {} });
  }
}

export async function rollout(endpoint: string): Promise<Trajectory[]> {
  const client = createSandboxClient({ endpoint });
  const tools = [
    new CodeInterpreterTool({ sandbox_fusion_url: `${endpoint}/run_code` }, CODE_INTERPRETER_SCHEMA, {
      client,
    }),
    new UpperTool({}, { type: 'function', function: { name: 'upper', description: 'Upper-cases text.' } }),
  ];
  try {
    return await runBatch([{ messages: [{ role: 'user', content: 'hi' }] }], {
      generate: scriptedGenerate(['#### done']),
      tools,
      limits: { maxAssistantTurns: 4 },
    });
  } catch (error) {
    if (isSandboxClientError(error) || isLimiterError(error)) console.error(error.code);
    throw error;
  } finally {
    await Promise.all(tools.map((tool) => tool.close()));
    await client.close();
  }
}

export const stats = async (limiter: Limiter): Promise<LimiterStats> => limiter.stats();
export const languages: readonly Language[] = LANGUAGES;
