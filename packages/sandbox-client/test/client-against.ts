import { onTestFinished } from 'vitest';
import { createSandboxClient, type SandboxClientOptions } from '@fusebox/sandbox-client';
import { startTestServer, type Handler } from './test-server';

/** A client wired to a fresh loopback server that plays `handler`; both are closed when the test ends. */
export async function clientAgainst(handler: Handler, options: SandboxClientOptions = {}) {
  const server = await startTestServer(handler);
  const client = createSandboxClient({ endpoint: server.url, ...options });
  onTestFinished(async () => {
    await client.close();
    await server.close();
  });
  return { server, client };
}
