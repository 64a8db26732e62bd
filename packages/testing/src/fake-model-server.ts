import { once } from 'node:events';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: an HTTP status, a JSON body, optional headers, or a dropped connection. */
export type FakeAnswer =
  { status?: number; body?: unknown; headers?: Record<string, string>; delayMs?: number } | 'drop';

/**
 * A small OpenAI-compatible chat-completions server on loopback: the model server is the true external boundary
 * of a rollout, so tests stand one up rather than mocking the HTTP client. It answers from a script and records
 * every request body.
 */
export async function startFakeModelServer(
  answer: (body: Record<string, unknown>, index: number) => FakeAnswer,
) {
  const requests: { url: string; headers: IncomingMessage['headers']; body: Record<string, unknown> }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      const index = requests.push({ url: req.url ?? '', headers: req.headers, body }) - 1;
      const reply = answer(body, index);
      if (reply === 'drop') {
        req.socket.destroy();
        return;
      }
      setTimeout(() => {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end(JSON.stringify(reply.body ?? {}));
      }, reply.delayMs ?? 0);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => server.close(() => resolve())).then(() => server.closeAllConnections()),
  };
}

/** A chat completion body as vLLM and SGLang answer it. */
export function chatCompletion(
  content: string | null,
  finishReason = 'stop',
  extra: { tool_calls?: { name: string; arguments: string }[]; completionTokens?: number } = {},
) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'fake',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          tool_calls: extra.tool_calls?.map((call, index) => ({
            id: `call_${index}`,
            type: 'function',
            function: call,
          })),
        },
        finish_reason: finishReason,
      },
    ],
    usage:
      extra.completionTokens === undefined
        ? undefined
        : {
            prompt_tokens: 10,
            completion_tokens: extra.completionTokens,
            total_tokens: 10 + extra.completionTokens,
          },
  };
}
