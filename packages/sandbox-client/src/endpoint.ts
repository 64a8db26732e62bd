/** Where one kind of route lives: undici wants the origin and the path apart. */
export interface Endpoint {
  origin: string;
  /** The endpoint's own path without a trailing slash ('' at the root), prefixed to every route. */
  basePath: string;
}

/** Parses an http(s) base URL, tolerating a trailing slash; `option` names the option in the TypeError. */
export function parseEndpoint(option: string, value: unknown): Endpoint {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new TypeError(
      `${option} must be an http(s) URL such as "http://localhost:8080", got ${JSON.stringify(value)}`,
    );
  }
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}
