import type { FastifyInstance, FastifyReply } from 'fastify';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { describeUnsupportedMediaType, isJsonContentType } from './input/json-content-type';
import { type JsonLimits, jsonLimitProblem } from './input/json-scan';

/** Answers a refusal in tRPC's error shape, so the tRPC client reports it as it reports its own. */
function refuse(reply: FastifyReply, httpStatus: number, code: TRPC_ERROR_CODE_KEY, message: string) {
  return reply
    .code(httpStatus)
    .type('application/json')
    .send(
      JSON.stringify({ error: { message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { code, httpStatus } } }),
    );
}

/**
 * Checks what reaches tRPC before tRPC reads it: a POST must be `application/json` (tRPC itself would take
 * `multipart/form-data`, which a web page can send cross-site), else 415; a body or an `input` query parameter
 * nested too deep or holding too many values is refused with 400 before it is parsed.
 */
export function guardTrpcRequests(scope: FastifyInstance, limits: JsonLimits): void {
  scope.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'POST' || isJsonContentType(request.headers['content-type'])) return;
    return refuse(
      reply,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      describeUnsupportedMediaType(request.headers['content-type']),
    );
  });
  scope.addHook('preValidation', async (request, reply) => {
    const { input } = request.query as { input?: unknown };
    for (const text of [request.body, input]) {
      const problem = typeof text === 'string' ? jsonLimitProblem(text, limits) : undefined;
      if (problem) return refuse(reply, 400, 'BAD_REQUEST', problem);
    }
  });
}
