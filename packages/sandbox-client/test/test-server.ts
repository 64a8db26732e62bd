import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers the n-th request (0-based); it may also never answer, or break the connection. */
export type Handler = (
  request: ReceivedRequest,
  response: ServerResponse,
  index: number,
) => void | Promise<void>;

export interface TestServer {
  url: string;
  /** Every request received so far, in arrival order. */
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** A real HTTP server on loopback, playing whatever peer a test needs: a SandboxFusion, or a faulty one. */
export async function startTestServer(handler: Handler): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = {
        method: incoming.method ?? '',
        path: incoming.url ?? '',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString(),
      };
      const index = requests.push(request) - 1;
      void Promise.resolve(handler(request, response, index)).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  sendText(response, status, JSON.stringify(body), headers);
}

export function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(text);
}

/** A `/run_code` answer in SandboxFusion's shape. */
export function runCodeAnswer(
  status: 'Success' | 'Failed' | 'SandboxError',
  stdout = '',
  returnCode: number | null = status === 'Success' ? 0 : 1,
) {
  return {
    status,
    message: status === 'SandboxError' ? 'sandbox broke' : '',
    compile_result: null,
    run_result: { status: 'Finished', execution_time: 0.01, return_code: returnCode, stdout, stderr: '' },
    executor_pod_name: null,
    files: {},
  };
}
