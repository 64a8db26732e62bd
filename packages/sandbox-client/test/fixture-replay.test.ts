import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSandboxClient,
  isSandboxClientError,
  type SandboxClient,
  SandboxHttpError,
} from '@fusebox/sandbox-client';
import type { RunCodeRequestInput, RunJupyterRequestInput } from '@fusebox/sandbox-client/protocol';
import { readContractFixtures, type ContractFixture } from '@fusebox/testing/contract-fixtures';
import { sendText, startTestServer, type TestServer } from './test-server';

const fixtures = readContractFixtures();
let server: TestServer;
let client: SandboxClient;

beforeAll(async () => {
  // Plays the recorded SandboxFusion: each request is answered with the recording whose body it matches.
  server = await startTestServer((request, response) => {
    const match = fixtures.find(
      (fixture) =>
        fixture.path === request.path && JSON.stringify(fixture.body ?? null) === (request.body || 'null'),
    );
    if (!match) return sendText(response, 404, '{"detail":"Not Found"}');
    sendText(response, match.status, match.responseText);
  });
  client = createSandboxClient({ endpoint: `${server.url}/` });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

function callFor(fixture: ContractFixture): Promise<unknown> {
  if (fixture.path === '/run_code') return client.runCode(fixture.body as RunCodeRequestInput);
  if (fixture.path === '/run_jupyter') return client.runJupyter(fixture.body as RunJupyterRequestInput);
  return client.ping();
}

describe('the client against recorded SandboxFusion answers', () => {
  it.each(fixtures.filter((f) => f.status === 200).map((f) => [f.name, f] as const))(
    '%s resolves to the recorded answer',
    async (_name, fixture) => {
      const result = await callFor(fixture);
      const expected: unknown = fixture.path === '/v1/ping' ? undefined : JSON.parse(fixture.responseText);
      expect(result).toEqual(expected);
    },
  );

  it.each(fixtures.filter((f) => f.status === 422).map((f) => [f.name, f] as const))(
    '%s rejects with the 422 and its detail, without retrying',
    async (_name, fixture) => {
      const before = server.requests.length;
      const error: unknown = await callFor(fixture).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SandboxHttpError);
      expect(isSandboxClientError(error) && error.code).toBe('FUSEBOX_SANDBOX_HTTP');
      expect(error).toMatchObject({ status: 422, body: fixture.responseText });
      expect(server.requests.length - before).toBe(1);
    },
  );
});
