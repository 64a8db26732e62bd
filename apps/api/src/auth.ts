import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** Routes that answer without a token: SandboxFusion's liveness probe, which load balancers call bare. */
const PUBLIC_ROUTES = new Set(['/v1/ping']);

/**
 * With a token configured, every route but the liveness probe requires `Authorization: Bearer <token>`;
 * anything else is answered 401 before its handler runs.
 */
export function requireBearerToken(app: FastifyInstance, token: string): void {
  const matches = secretMatcher(token);
  app.addHook('onRequest', async (request, reply) => {
    if (PUBLIC_ROUTES.has(request.url.split('?')[0] ?? '')) return;
    const header = request.headers.authorization ?? '';
    const presented = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
    if (matches(presented)) return;
    return reply
      .code(401)
      .header('www-authenticate', 'Bearer')
      .send({ detail: presented === undefined ? 'missing bearer token' : 'invalid bearer token' });
  });
}

/** Compares presented secrets with `secret` in constant time. */
export function secretMatcher(secret: string): (presented: string | undefined) => boolean {
  const expected = digest(secret);
  // Comparing fixed-length digests keeps the check constant-time whatever the presented length.
  return (presented) => presented !== undefined && timingSafeEqual(digest(presented), expected);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
