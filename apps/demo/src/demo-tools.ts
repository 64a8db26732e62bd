import { createSandboxClient } from '@fusebox/sandbox-client';
import { type BaseTool, CodeInterpreterTool, Gsm8kTool, SearchTool } from '@fusebox/tools';
import { AgentSessionTool } from './agent-session-tool';
import { SEARCH_CORPUS_NAME } from './demo-data';
import type { FuseboxApi } from './fusebox-api';
import type { TaskFamily } from './demo-tally';

/**
 * Seconds a code run may take: ample for every shipped solution, and short enough that the scripted endless
 * loops end quickly (the coding tasks set the same `run_timeout_s`).
 */
export const CODE_TIMEOUT_S = 3;

/** The tools of each task family, and how to close them all. */
export interface DemoTools {
  byFamily: Record<TaskFamily, BaseTool[]>;
  close(): Promise<void>;
}

/**
 * verl's code interpreter and gsm8k tools for the word problems, the session tool for the coding tasks, and
 * verl's search tool on the demo's corpus for the search questions. The code interpreter and the search tool
 * send every call straight on, with no limiter of their own: the server's limiters are the ones that decide,
 * which is what the dashboard shows. The token goes only to the Fusebox API, never to another `--sandbox-url`.
 */
export function createDemoTools(
  api: FuseboxApi,
  { sandboxUrl, token, concurrency }: { sandboxUrl: string; token: string | undefined; concurrency: number },
): DemoTools {
  const endpoint = sandboxUrl.replace(/\/run_code\/?$/, '');
  const ours = endpoint === api.url;
  const client = createSandboxClient({
    endpoint,
    ...(ours && token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  });
  const code = new CodeInterpreterTool(
    {
      sandbox_fusion_url: sandboxUrl,
      num_workers: concurrency,
      enable_global_rate_limit: false,
      default_timeout: CODE_TIMEOUT_S,
    },
    undefined,
    { client },
  );
  const search = new SearchTool(
    {
      retrieval_service_url: `${api.url}/retrieve/${SEARCH_CORPUS_NAME}`,
      num_workers: concurrency,
      enable_global_rate_limit: false,
    },
    undefined,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );
  const tools = { gsm8k: [code, new Gsm8kTool()], coding: [new AgentSessionTool(api)], search: [search] };
  return {
    byFamily: tools,
    async close() {
      await Promise.allSettled(Object.values(tools).flatMap((family) => family.map((tool) => tool.close())));
      await client.close();
    },
  };
}
