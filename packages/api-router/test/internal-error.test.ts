import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { describe, expect, it } from 'vitest';
import { INTERNAL_ERROR_MESSAGE, createTRPCRouter, publicProcedure } from '../src/init';
import type { RouterContext } from '../src/router-context';

// The routers' procedures rarely fail unforeseen, so this one is made to: a database error's message, with its
// SQL and values, is what a client must never see.
const LEAKY = 'select * from "execution" where "created_at" > $1 - invalid input syntax for type timestamp';

const router = createTRPCRouter({
  fails: publicProcedure.query(() => {
    throw new Error(LEAKY);
  }),
  works: publicProcedure.query(() => 'fine'),
});

async function call(path: string): Promise<{ status: number; text: string }> {
  const response = await fetchRequestHandler({
    endpoint: '/trpc',
    req: new Request(`http://127.0.0.1/trpc/${path}`),
    router,
    createContext: () => ({}) as RouterContext,
  });
  return { status: response.status, text: await response.text() };
}

describe("the tRPC error formatter, on a procedure's unforeseen failure", () => {
  it('answers 500 with a fixed message: no database text and no stack', async () => {
    const failed = await call('fails');
    expect(failed.status).toBe(500);
    const body = JSON.parse(failed.text) as { error: { message: string; data: Record<string, unknown> } };
    expect(body.error.message).toBe(INTERNAL_ERROR_MESSAGE);
    expect(body.error.data.stack).toBeUndefined();
    expect(failed.text).not.toContain('select');
    expect(failed.text).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it('leaves a successful answer alone', async () => {
    const worked = await call('works');
    expect(worked.status).toBe(200);
    expect(JSON.parse(worked.text)).toEqual({ result: { data: 'fine' } });
  });
});
