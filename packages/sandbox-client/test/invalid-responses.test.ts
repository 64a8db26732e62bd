import { describe, expect, it } from 'vitest';
import { SandboxInvalidResponseError } from '@fusebox/sandbox-client';
import { clientAgainst } from './client-against';
import { runCodeAnswer, sendText } from './test-server';

describe('invalid responses', () => {
  it('rejects a body that is not JSON, carrying the body, without retrying', async () => {
    const html = '<html><body>502 Bad Gateway (nginx)</body></html>';
    const { server, client } = await clientAgainst((_request, response) => sendText(response, 200, html));
    const error: unknown = await client.runCode({ code: '', language: 'bash' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxInvalidResponseError);
    expect(error).toMatchObject({ code: 'FUSEBOX_SANDBOX_INVALID_RESPONSE', status: 200, body: html });
    expect((error as Error).message).toContain('not JSON');
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects a response missing fields, naming them', async () => {
    const { run_result: _dropped, ...partial } = runCodeAnswer('Success');
    const body = JSON.stringify(partial);
    const { server, client } = await clientAgainst((_request, response) => sendText(response, 200, body));
    const error: unknown = await client.runCode({ code: '', language: 'bash' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FUSEBOX_SANDBOX_INVALID_RESPONSE', body });
    expect((error as Error).message).toContain('run_result');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects a ping answered with anything but "pong"', async () => {
    const { client } = await clientAgainst((_request, response) => sendText(response, 200, '"ok"'));
    await expect(client.ping()).rejects.toMatchObject({
      code: 'FUSEBOX_SANDBOX_INVALID_RESPONSE',
      body: '"ok"',
    });
  });
});
