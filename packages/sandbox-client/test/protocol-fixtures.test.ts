import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  pingResponseSchema,
  runCodeRequestSchema,
  runCodeResponseSchema,
  runJupyterRequestSchema,
  runJupyterResponseSchema,
  validationDetail,
} from '@fusebox/sandbox-client/protocol';
import { readContractFixtures } from '@fusebox/testing/contract-fixtures';

const ROUTES: Record<string, { request?: z.ZodType; response: z.ZodType }> = {
  '/run_code': { request: runCodeRequestSchema, response: runCodeResponseSchema },
  '/run_jupyter': { request: runJupyterRequestSchema, response: runJupyterResponseSchema },
  '/v1/ping': { response: pingResponseSchema },
};

const fixtures = readContractFixtures();

describe('recorded SandboxFusion fixtures', () => {
  it('covers every recorded route', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(15);
    expect(
      fixtures.filter((fixture) => !ROUTES[fixture.path] || ![200, 422].includes(fixture.status)),
    ).toEqual([]);
  });

  const answered = fixtures.filter((fixture) => fixture.status === 200);
  it.each(answered.map((fixture) => [fixture.name, fixture] as const))(
    '%s: the request parses and the response round-trips with its key order',
    (_name, fixture) => {
      const route = ROUTES[fixture.path]!;
      if (route.request) expect(route.request.safeParse(fixture.body).success).toBe(true);
      const original: unknown = JSON.parse(fixture.responseText);
      const parsed: unknown = route.response.parse(original);
      // Compared after one JSON pass: Python prints 7.7e-05 where JavaScript prints 0.000077.
      expect(JSON.stringify(parsed)).toBe(JSON.stringify(original));
    },
  );

  const rejected = fixtures.filter((fixture) => fixture.status === 422);
  it.each(rejected.map((fixture) => [fixture.name, fixture] as const))(
    '%s: validationDetail reproduces the 422 body byte for byte',
    (_name, fixture) => {
      const parsed = ROUTES[fixture.path]!.request!.safeParse(fixture.body);
      expect(parsed.success).toBe(false);
      expect(JSON.stringify(validationDetail(parsed.error!, fixture.body))).toBe(fixture.responseText.trim());
    },
  );

  it('fills in SandboxFusion defaults and drops unknown fields', () => {
    const hello = fixtures.find((fixture) => fixture.name === 'python_hello')!;
    expect(runCodeRequestSchema.parse({ ...(hello.body as object), priority: 'high' })).toEqual({
      compile_timeout: 10,
      run_timeout: 10,
      memory_limit_MB: -1,
      code: 'print("Hello, world!")',
      stdin: null,
      language: 'python',
      files: {},
      fetch_files: [],
    });
    const jupyter = fixtures.find((fixture) => fixture.name === 'jupyter_cells')!;
    expect(runJupyterRequestSchema.parse(jupyter.body)).toMatchObject({
      cell_timeout: 0,
      total_timeout: 45,
      memory_limit_MB: -1,
      kernel: 'python3',
      files: {},
      fetch_files: [],
    });
  });
});
