import type { RunningServer } from './serve-process';

/** One answer of the session API: status, headers and the JSON body. */
export interface SessionAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/**
 * POSTs to a session route the way verl's aiohttp client does (`json=payload`). A string body is sent as is,
 * so a test can send int64 sids as bare JSON numbers, as Python does.
 */
export async function post(
  server: RunningServer,
  path: string,
  body: string | object,
  headers: Record<string, string> = {},
): Promise<SessionAnswer> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** Opens a session on a task and returns its sid; fails the test on anything but 200. */
export async function startSession(server: RunningServer, instanceHash: string): Promise<string> {
  const answer = await post(server, '/start_instance', { instance_hash: instanceHash });
  if (answer.status !== 200)
    throw new Error(`/start_instance answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.sid as string;
}

/** Sends an action and returns the observation; fails the test on anything but 200. */
export async function act(server: RunningServer, sid: string, content: string): Promise<string> {
  const answer = await post(server, '/process_action', { sid, content });
  if (answer.status !== 200)
    throw new Error(`/process_action answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.content as string;
}

/** A Markdown fenced block, as a model writes one. */
export function fenced(language: string, code: string): string {
  return `Here is my code:\n\`\`\`${language}\n${code}\n\`\`\`\n`;
}

/** The builtin tasks' instance hashes (packages/tasks/builtin.jsonl). */
export const BUILTIN = {
  add: '9000000000000000001',
  inventory: '9000000000000000004',
  wordCount: '9000000000000000005',
  bashSum: '9000000000000000006',
} as const;
