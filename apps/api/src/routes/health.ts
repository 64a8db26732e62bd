import type { FastifyInstance } from 'fastify';
import { checkHealth } from '../health';
import type { Services } from '../services';

/** SandboxFusion's liveness probe, and Fusebox's own health report with the database's state. */
export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  app.get('/v1/ping', async (_request, reply) => reply.type('application/json').send('"pong"'));

  app.get('/health', async (_request, reply) => {
    const health = await checkHealth(services);
    return reply.code(health.status === 'ok' ? 200 : 503).send(health);
  });
}
