import { z } from 'zod';
import { evalResultSchema } from './eval-result';
import { integer } from './integer';
import { promptSchema } from './prompt';
import { problemIdSchema, testConfigSchema } from './test-config';

/**
 * `GET /list_datasets` answers with the ids of the registered datasets.
 *
 * @example
 * const datasets = listDatasetsResponseSchema.parse(['humaneval_python']);
 */
export const listDatasetsResponseSchema = z.array(z.string());

/**
 * The body of `POST /get_prompts` and `POST /list_ids`: a page of a dataset.
 *
 * @example
 * getPromptsRequestSchema.parse({ dataset: 'humaneval_python', config: {}, limit: 10 });
 */
export const getPromptsRequestSchema = z.object({
  dataset: z.string(),
  config: testConfigSchema,
  offset: integer().default(0),
  limit: integer().default(1_000_000),
});

/** @example const page: GetPromptsRequestInput = { dataset: 'mbpp', config: {}, offset: 100, limit: 100 }; */
export type GetPromptsRequestInput = z.input<typeof getPromptsRequestSchema>;
/** @example const limit = (request satisfies GetPromptsRequest).limit; */
export type GetPromptsRequest = z.output<typeof getPromptsRequestSchema>;

/** `POST /get_prompts` answers with the page's prompts. @example getPromptsResponseSchema.parse([]); */
export const getPromptsResponseSchema = z.array(promptSchema);

/** `POST /list_ids` answers with the page's problem ids. @example listIdsResponseSchema.parse([0, 1, 2]); */
export const listIdsResponseSchema = z.array(problemIdSchema);

/**
 * The body of `POST /get_prompt_by_id`, which answers with one {@link promptSchema | Prompt}.
 *
 * @example
 * getPromptByIdRequestSchema.parse({ dataset: 'mbpp', config: {}, id: 11 });
 */
export const getPromptByIdRequestSchema = z.object({
  dataset: z.string(),
  config: testConfigSchema,
  id: problemIdSchema,
});

/** @example const request: GetPromptByIdRequestInput = { dataset: 'mbpp', config: {}, id: 11 }; */
export type GetPromptByIdRequestInput = z.input<typeof getPromptByIdRequestSchema>;
/** @example const id = (request satisfies GetPromptByIdRequest).id; */
export type GetPromptByIdRequest = z.output<typeof getPromptByIdRequestSchema>;

/**
 * The body of `POST /submit`: a model's completion for one problem, judged by running the dataset's tests.
 * It answers with an {@link evalResultSchema | EvalResult}.
 *
 * @example
 * submitRequestSchema.parse({ dataset: 'mbpp', id: 11, completion: '```python\n...\n```', config: {} });
 */
export const submitRequestSchema = z.object({
  dataset: z.string(),
  id: problemIdSchema,
  completion: z.string(),
  config: testConfigSchema,
});

/** @example const request: SubmitRequestInput = { dataset: 'mbpp', id: 11, completion, config: {} }; */
export type SubmitRequestInput = z.input<typeof submitRequestSchema>;
/** @example const completion = (request satisfies SubmitRequest).completion; */
export type SubmitRequest = z.output<typeof submitRequestSchema>;

/**
 * The body of `POST /get_metrics`: all results of a dataset, aggregated by the dataset's own metric code.
 *
 * @example
 * getMetricsRequestSchema.parse({ dataset: 'mbpp', config: {}, results: [] });
 */
export const getMetricsRequestSchema = z.object({
  dataset: z.string(),
  config: testConfigSchema,
  results: z.array(evalResultSchema),
});

/** @example const request: GetMetricsRequestInput = { dataset: 'mbpp', config: {}, results }; */
export type GetMetricsRequestInput = z.input<typeof getMetricsRequestSchema>;
/** @example const results = (request satisfies GetMetricsRequest).results; */
export type GetMetricsRequest = z.output<typeof getMetricsRequestSchema>;

/**
 * `POST /get_metrics` answers with whatever metrics the dataset computes (`{}` when it has none).
 *
 * @example
 * const metrics = getMetricsResponseSchema.parse({ pass_at_1: 0.5 });
 */
export const getMetricsResponseSchema = z.record(z.string(), z.unknown());

/**
 * The body of `POST /get_metrics_function`.
 *
 * @example
 * getMetricsFunctionRequestSchema.parse({ dataset: 'mbpp', config: {} });
 */
export const getMetricsFunctionRequestSchema = z.object({ dataset: z.string(), config: testConfigSchema });

/** @example const request: GetMetricsFunctionRequestInput = { dataset: 'mbpp', config: {} }; */
export type GetMetricsFunctionRequestInput = z.input<typeof getMetricsFunctionRequestSchema>;
/** @example const dataset = (request satisfies GetMetricsFunctionRequest).dataset; */
export type GetMetricsFunctionRequest = z.output<typeof getMetricsFunctionRequestSchema>;

/**
 * `POST /get_metrics_function` answers with the Python source of the dataset's metric function, or null.
 *
 * @example
 * const { function: source } = getMetricsFunctionResponseSchema.parse({ function: null });
 */
export const getMetricsFunctionResponseSchema = z.object({ function: z.string().nullable() });

/** @example const source = (result satisfies GetMetricsFunctionResponse).function; */
export type GetMetricsFunctionResponse = z.output<typeof getMetricsFunctionResponseSchema>;
