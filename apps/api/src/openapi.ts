import type { FastifyInstance } from 'fastify';
import {
  evalResultSchema,
  getMetricsFunctionRequestSchema,
  getMetricsFunctionResponseSchema,
  getMetricsRequestSchema,
  getMetricsResponseSchema,
  getPromptByIdRequestSchema,
  getPromptsRequestSchema,
  getPromptsResponseSchema,
  listDatasetsResponseSchema,
  listIdsResponseSchema,
  pingResponseSchema,
  promptSchema,
  MAX_ROLLOUT_ID_CHARS,
  REQUEST_ID_HEADER,
  TOOL_INSTANCE_HEADER,
  submitRequestSchema,
  runCodeRequestSchema,
  runCodeResponseSchema,
  runJupyterRequestSchema,
  runJupyterResponseSchema,
} from '@fusebox/sandbox-client/protocol';
import { z } from 'zod';
import {
  detailErrorSchema,
  healthResponseSchema,
  sandboxCellSchema,
  sandboxSessionClosedSchema,
  sandboxSessionSchema,
  validationErrorSchema,
} from './openapi-responses';
import { readEnv } from './env';
import { languagesResponseSchema } from './routes/languages';
import { retrieveErrorSchema, retrieveRequestSchema, retrieveResponseSchema } from './routes/retrieve';
import { createSessionSchema, runCellSchema } from './routes/sandbox-sessions';
import {
  computeRewardResponseSchema,
  postprocessResponseSchema,
  processActionRequestSchema,
  processActionResponseSchema,
  sessionErrorSchema,
  sidRequestSchema,
  startInstanceRequestSchema,
  startInstanceResponseSchema,
} from '@fusebox/agent-sessions';
import { VERSION } from './version';

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), for a request (`input`) or a response. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  // Transforms (sid and instance_hash canonicalisation) have no JSON Schema; their input side does.
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
}

function body(schema: z.ZodType) {
  return { required: true, content: { 'application/json': { schema: jsonSchema(schema, 'input') } } };
}

function json(description: string, schema: z.ZodType) {
  return { description, content: { 'application/json': { schema: jsonSchema(schema, 'output') } } };
}

const unauthorized = {
  401: json('FUSEBOX_API_TOKEN is set and the bearer token is missing or wrong', detailErrorSchema),
};

const runErrors = {
  422: json('An invalid body, in FastAPI/pydantic v2 shape, as SandboxFusion answers', validationErrorSchema),
  429: json(
    'The executor queue is full, or no global permit came in time; see Retry-After',
    detailErrorSchema,
  ),
  502: json(
    'SANDBOX_FUSION_URL is set and that upstream SandboxFusion did not answer usably (down, or a bad answer)',
    detailErrorSchema,
  ),
  503: json('The server is shutting down, or the limiter database is unreachable', detailErrorSchema),
  ...unauthorized,
};

const sessionErrors = (...statuses: (400 | 404 | 409 | 429 | 503)[]) => ({
  ...Object.fromEntries(
    statuses.map((status) => [
      status,
      json(
        {
          400: 'The body is not JSON, or a field is missing or of the wrong type (`field` names it)',
          404: 'No such session (or, for /start_instance, no such task)',
          409: 'The session was postprocessed or expired: no more actions',
          429: 'Saturated: no global permit within FUSEBOX_LIMITER_TIMEOUT_S, or a full executor queue; see Retry-After',
          503: 'Too many active sessions (FUSEBOX_AGENT_SESSION_MAX; see Retry-After), shutting down, or no limiter database',
        }[status],
        sessionErrorSchema,
      ),
    ]),
  ),
  500: json('Anything else; logged and recorded against the session', sessionErrorSchema),
  ...unauthorized,
});

const idParameter = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];

const idHeader = (name: string, description: string) => ({
  name,
  in: 'header',
  required: false,
  description: `${description}, recorded with it. Sent once; any other value is answered 422.`,
  schema: { type: 'string', pattern: `^[\\x21-\\x7e]{1,${MAX_ROLLOUT_ID_CHARS}}$` },
});
/** The headers a rollout client sends so that its executions join to its dumped samples (`rolloutOrigin`). */
const rolloutHeaders = [
  idHeader(REQUEST_ID_HEADER, "The rollout request that sent this run: the dumped sample's `request_id`"),
  idHeader(TOOL_INSTANCE_HEADER, 'The tool instance (one per tool per rollout) that sent this run'),
];

const TAGS = {
  sandbox: 'SandboxFusion-compatible execution',
  sandboxSessions: 'Stateful sandbox sessions',
  agent: "verl's swedev agent sessions",
  datasets: "SandboxFusion's dataset API, over Fusebox's tasks",
  service: 'Service',
};

const datasetErrors = {
  400: json('No tasks of that dataset (source); `detail` names the known ones', detailErrorSchema),
  422: json('An invalid body, in FastAPI/pydantic v2 shape', validationErrorSchema),
  ...unauthorized,
};

/** A dataset route: SandboxFusion's request and response, and the refusals. */
function datasetRoute(summary: string, request: z.ZodType, response: z.ZodType, notFound = false) {
  return {
    post: {
      tags: [TAGS.datasets],
      summary,
      requestBody: body(request),
      responses: {
        200: json('As SandboxFusion answers', response),
        ...datasetErrors,
        ...(notFound ? { 404: json('No problem of that id in the dataset', detailErrorSchema) } : {}),
      },
    },
  };
}

function buildDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Fusebox API',
      version: VERSION,
      description:
        'Plain JSON routes for Python clients (SandboxFusion and verl, unchanged). The dashboard API is tRPC at ' +
        '/trpc and is not described here. With FUSEBOX_API_TOKEN set, every route but /v1/ping needs ' +
        '`Authorization: Bearer <token>`.',
    },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    tags: Object.values(TAGS).map((name) => ({ name })),
    paths: {
      '/v1/ping': {
        get: {
          tags: [TAGS.service],
          summary: "SandboxFusion's liveness probe; never needs the token",
          security: [],
          responses: { 200: json('Always "pong"', pingResponseSchema) },
        },
      },
      '/health': {
        get: {
          tags: [TAGS.service],
          summary: 'Version, uptime and a live database round trip',
          responses: {
            200: json('Healthy', healthResponseSchema),
            503: json('The database does not answer', healthResponseSchema),
            ...unauthorized,
          },
        },
      },
      '/openapi.json': {
        get: {
          tags: [TAGS.service],
          summary: 'This document',
          responses: { 200: { description: 'OpenAPI 3.1' }, ...unauthorized },
        },
      },
      '/v1/languages': {
        get: {
          tags: [TAGS.sandbox],
          summary:
            "Every SandboxFusion language: the local executor's toolchain version, or why it cannot run here " +
            '(a run of it answers SandboxError with that reason)',
          responses: { 200: json('One entry per language', languagesResponseSchema), ...unauthorized },
        },
      },
      '/list_datasets': {
        get: {
          tags: [TAGS.datasets],
          summary: 'The datasets: the sources of the imported tasks (builtin, fusebox, autoeval)',
          responses: { 200: json('Dataset ids', listDatasetsResponseSchema), ...unauthorized },
        },
      },
      '/list_ids': datasetRoute(
        "A page of a dataset's problem ids",
        getPromptsRequestSchema,
        listIdsResponseSchema,
      ),
      '/get_prompts': datasetRoute(
        "A page of a dataset's prompts",
        getPromptsRequestSchema,
        getPromptsResponseSchema,
      ),
      '/get_prompt_by_id': datasetRoute('One prompt', getPromptByIdRequestSchema, promptSchema, true),
      '/submit': datasetRoute(
        "Judges a completion: its code (the fenced block in the task's language) runs against the task's tests in the sandbox, each under a global permit, recorded as executions",
        submitRequestSchema,
        evalResultSchema,
        true,
      ),
      '/get_metrics': datasetRoute(
        'Aggregate metrics: `{}`, as SandboxFusion answers for a dataset without them',
        getMetricsRequestSchema,
        getMetricsResponseSchema,
      ),
      '/get_metrics_function': datasetRoute(
        'The metric function: `{"function": null}`, as SandboxFusion answers for a dataset without one',
        getMetricsFunctionRequestSchema,
        getMetricsFunctionResponseSchema,
      ),
      '/run_code': {
        post: {
          tags: [TAGS.sandbox],
          summary: "Runs one program, in SandboxFusion's exact format (200 even for SandboxError)",
          parameters: rolloutHeaders,
          requestBody: body(runCodeRequestSchema),
          responses: { 200: json('The run', runCodeResponseSchema), ...runErrors },
        },
      },
      '/run_jupyter': {
        post: {
          tags: [TAGS.sandbox],
          summary: 'Runs cells in order in one Python kernel',
          parameters: rolloutHeaders,
          requestBody: body(runJupyterRequestSchema),
          responses: { 200: json('The cells', runJupyterResponseSchema), ...runErrors },
        },
      },
      '/v1/sandbox/sessions': {
        post: {
          tags: [TAGS.sandboxSessions],
          summary: 'Opens a sandboxed Python interpreter that keeps state between cells',
          requestBody: body(createSessionSchema),
          responses: { 201: json('The new session', sandboxSessionSchema), ...runErrors },
        },
      },
      '/v1/sandbox/sessions/{id}': {
        get: {
          tags: [TAGS.sandboxSessions],
          summary: 'A session',
          parameters: idParameter,
          responses: {
            200: json('The session', sandboxSessionSchema),
            404: json('No such session', detailErrorSchema),
            ...unauthorized,
          },
        },
        delete: {
          tags: [TAGS.sandboxSessions],
          summary: 'Closes a session and stops its interpreter',
          parameters: idParameter,
          responses: {
            200: json('Closed', sandboxSessionClosedSchema),
            404: json('No such session', detailErrorSchema),
            ...unauthorized,
          },
        },
      },
      '/v1/sandbox/sessions/{id}/run': {
        post: {
          tags: [TAGS.sandboxSessions],
          summary: "Runs a cell in the session's interpreter",
          parameters: idParameter,
          requestBody: body(runCellSchema),
          responses: {
            200: json('The cell', sandboxCellSchema),
            404: json('No such session', detailErrorSchema),
            409: json('A cell is running, or the interpreter died (restart it)', detailErrorSchema),
            ...runErrors,
          },
        },
      },
      '/v1/sandbox/sessions/{id}/restart': {
        post: {
          tags: [TAGS.sandboxSessions],
          summary: 'Replaces the interpreter with a fresh one (state cleared, files written again)',
          parameters: idParameter,
          responses: {
            200: json('The session', sandboxSessionSchema),
            404: json('No such session', detailErrorSchema),
            ...unauthorized,
          },
        },
      },
      '/start_instance': {
        post: {
          tags: [TAGS.agent],
          summary: 'Opens an agent session on the task an instance_hash names',
          requestBody: body(startInstanceRequestSchema),
          responses: {
            200: json('The session', startInstanceResponseSchema),
            ...sessionErrors(400, 404, 503),
          },
        },
      },
      '/process_action': {
        post: {
          tags: [TAGS.agent],
          summary:
            "Runs the code of the model's action and answers what it printed; stored before the answer",
          requestBody: body(processActionRequestSchema),
          responses: {
            200: json('The observation', processActionResponseSchema),
            ...sessionErrors(400, 404, 409, 429, 503),
          },
        },
      },
      '/postprocess': {
        post: {
          tags: [TAGS.agent],
          summary: 'Ends a session and frees its interpreter; idempotent',
          requestBody: body(sidRequestSchema),
          responses: {
            200: json('A summary of the session', postprocessResponseSchema),
            ...sessionErrors(400, 404),
          },
        },
      },
      '/retrieve': retrieveRoute('the only corpus imported, or FUSEBOX_RETRIEVE_CORPUS'),
      '/retrieve/{corpus}': retrieveRoute('the corpus the path names'),
      '/compute_reward': {
        post: {
          tags: [TAGS.agent],
          summary: "Runs the task's tests against the session's solution; idempotent and stored",
          requestBody: body(sidRequestSchema),
          responses: {
            200: json('The reward and test counts', computeRewardResponseSchema),
            ...sessionErrors(400, 404, 429, 503),
          },
        },
      },
    },
  };
}

/** Search-R1's retrieval server (verl's SearchTool), on `corpus`; the bounds shown are the defaults. */
function retrieveRoute(corpus: string) {
  const refusal = (description: string) => json(description, retrieveErrorSchema);
  return {
    post: {
      tags: [TAGS.agent],
      summary: `BM25 passages for each query from ${corpus}; every call is recorded`,
      requestBody: body(retrieveRequestSchema(readEnv({}))),
      responses: {
        200: json('Per query, its passages best first', retrieveResponseSchema),
        400: refusal('Several corpora and none named, or a body that is not JSON'),
        404: refusal('No corpus of that name is imported'),
        422: refusal('A field out of bounds (queries, topk, return_scores), named in `field`'),
        429: refusal('No search permit within FUSEBOX_LIMITER_TIMEOUT_S (Retry-After)'),
        503: refusal('The database does not answer (Retry-After)'),
        ...unauthorized,
      },
    },
  };
}

/** The OpenAPI document, built once from the routes' zod schemas. */
export type OpenApiDocument = ReturnType<typeof buildDocument>;
let document: OpenApiDocument | undefined;

export function openApiDocument(): OpenApiDocument {
  document ??= buildDocument();
  return document;
}

/** `GET /openapi.json`: every plain HTTP route, described from the same zod schemas that validate them. */
export function registerOpenApiRoute(app: FastifyInstance): void {
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(openApiDocument()));
}
