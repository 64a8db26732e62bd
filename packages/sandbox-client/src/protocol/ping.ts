import { z } from 'zod';

/**
 * The body of `GET /v1/ping`: the JSON string `"pong"`.
 *
 * @example
 * pingResponseSchema.parse(JSON.parse('"pong"'));
 */
export const pingResponseSchema = z.literal('pong');
