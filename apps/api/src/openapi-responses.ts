import { jupyterCellErrorSchema } from '@fusebox/sandbox-client/protocol';
import { z } from 'zod';

// Response shapes of routes that build their answers without a zod schema, for /openapi.json. A test checks
// real answers against them, so they cannot drift from what the routes send.

/** `GET /health` (routes/health.ts, health.ts). */
export const healthResponseSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  uptimeSeconds: z.number(),
  database: z.object({
    status: z.enum(['ok', 'error']),
    mode: z.enum(['embedded', 'postgres']),
    url: z.string(),
    latencyMs: z.number().nullable(),
    error: z.string().nullable(),
  }),
});

/** A sandbox session as the `/v1/sandbox/sessions` routes describe it; times in seconds. */
export const sandboxSessionSchema = z.object({
  session_id: z.string(),
  alive: z.boolean(),
  execution_count: z.int(),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime(),
  memory_limit_MB: z.int(),
  cell_timeout: z.number(),
  idle_timeout: z.number(),
});

/** `POST /v1/sandbox/sessions/{id}/run`: one cell's result. */
export const sandboxCellSchema = z.object({
  session_id: z.string(),
  execution_count: z.int(),
  status: z.enum(['ok', 'error', 'timeout', 'died']),
  stdout: z.string(),
  stderr: z.string(),
  display: z.array(z.record(z.string(), z.unknown())),
  error: z.array(jupyterCellErrorSchema),
  execution_time: z.number(),
  alive: z.boolean(),
  /** Set when the cell timed out or died because other runs held the budget all sandboxes share. */
  starved: z.string().optional(),
});

/** `DELETE /v1/sandbox/sessions/{id}`. */
export const sandboxSessionClosedSchema = z.object({ session_id: z.string(), closed: z.literal(true) });

/** FastAPI's 422 body, which /run_code and /run_jupyter answer for an invalid request, as SandboxFusion does. */
export const validationErrorSchema = z.object({
  detail: z.array(
    z.object({
      type: z.string(),
      loc: z.array(z.union([z.string(), z.int()])),
      msg: z.string(),
      input: z.unknown(),
      ctx: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});

/** Every other refusal of the sandbox routes and of the bearer-token check: 401, 404, 409, 413, 429, 502, 503. */
export const detailErrorSchema = z.object({ detail: z.string() });
