import type { z } from 'zod';
import { FuseboxApiError } from './fusebox-api-error';

/** A few characters of an answer are enough to say what went wrong without flooding the terminal. */
const SHOWN_CHARS = 300;

/**
 * The demo's view of a running Fusebox API: JSON GETs and POSTs with the bearer token, every answer validated
 * by the zod schema of its contract. Node's fetch keeps connections alive, so thousands of calls reuse a few.
 */
export interface FuseboxApi {
  readonly url: string;
  get<S extends z.ZodType>(path: string, schema: S, options?: { signal?: AbortSignal }): Promise<z.output<S>>;
  post<S extends z.ZodType>(
    path: string,
    body: unknown,
    schema: S,
    options?: { signal?: AbortSignal },
  ): Promise<z.output<S>>;
}

/**
 * A client of the Fusebox API at `url` (no trailing slash needed). A refused request, an unreachable server and
 * an answer of the wrong shape all reject with FuseboxApiError; an abort rejects with the signal's reason.
 */
export function fuseboxApi(url: string, token?: string): FuseboxApi {
  const base = url.replace(/\/+$/, '');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;

  async function call<S extends z.ZodType>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    schema: S,
    signal: AbortSignal | undefined,
  ): Promise<z.output<S>> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      signal?.throwIfAborted();
      const reason = (error as { cause?: Error }).cause?.message ?? (error as Error).message;
      throw new FuseboxApiError(`cannot reach ${base}${path}: ${reason}`, null, { cause: error });
    }
    const text = await response.text();
    if (!response.ok) {
      throw new FuseboxApiError(
        `${method} ${path} answered HTTP ${response.status}: ${detailOf(text)}`,
        response.status,
      );
    }
    let parsed;
    try {
      parsed = schema.safeParse(JSON.parse(text));
    } catch (error) {
      throw new FuseboxApiError(`${method} ${path} answered something that is not JSON: ${clip(text)}`, 200, {
        cause: error,
      });
    }
    if (!parsed.success) {
      throw new FuseboxApiError(`${method} ${path} answered an unexpected shape: ${clip(text)}`, 200, {
        cause: parsed.error,
      });
    }
    return parsed.data;
  }

  return {
    url: base,
    get: (path, schema, options = {}) => call('GET', path, undefined, schema, options.signal),
    post: (path, body, schema, options = {}) => call('POST', path, body, schema, options.signal),
  };
}

/** Fusebox's error bodies carry `detail`; anything else is shown as it came. */
function detailOf(text: string): string {
  try {
    const { detail } = JSON.parse(text) as { detail?: unknown };
    if (typeof detail === 'string') return detail;
  } catch {
    // Not JSON: a proxy's HTML page, say. Shown as it is.
  }
  return clip(text);
}

function clip(text: string): string {
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}
