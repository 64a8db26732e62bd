import { env } from '~/env';

/**
 * Forwards the browser's tRPC calls to the API, adding the API token on the server side so it never reaches the
 * browser. Bodies are streamed both ways, so batched streams and SSE subscriptions pass through unbuffered.
 */
async function forward(request: Request): Promise<Response> {
  const incoming = new URL(request.url);
  const target = new URL(`${incoming.pathname}${incoming.search}`, env.FUSEBOX_API_URL);
  const headers = new Headers();
  for (const name of ['content-type', 'accept', 'last-event-id', 'trpc-accept']) {
    const value = request.headers.get(name);
    if (value) headers.set(name, value);
  }
  if (env.FUSEBOX_API_TOKEN) headers.set('authorization', `Bearer ${env.FUSEBOX_API_TOKEN}`);
  try {
    const upstream = await fetch(target, {
      method: request.method,
      headers,
      body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
      signal: request.signal,
      // Required by Node's fetch to stream a request body.
      ...(request.body ? { duplex: 'half' } : {}),
    });
    const responseHeaders = new Headers(upstream.headers);
    responseHeaders.delete('content-encoding');
    responseHeaders.delete('content-length');
    return new Response(upstream.body, { status: upstream.status, headers: responseHeaders });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return Response.json(
      {
        error: {
          message: `cannot reach the Fusebox API at ${env.FUSEBOX_API_URL} (${reason})`,
          code: -32603,
        },
      },
      { status: 502 },
    );
  }
}

export const dynamic = 'force-dynamic';
export const GET = forward;
export const POST = forward;
