import type { FastifyInstance, FastifyReply } from 'fastify';
import { extractCode, runTests, type SessionSandbox } from '@fusebox/agent-sessions';
import type { PrismaClient } from '@fusebox/db/client';
import {
  type EvalResult,
  type ProblemId,
  type GetPromptsRequest,
  type Prompt,
  type SubmitRequest,
  getMetricsFunctionRequestSchema,
  getMetricsRequestSchema,
  getPromptByIdRequestSchema,
  getPromptsRequestSchema,
  submitRequestSchema,
} from '@fusebox/sandbox-client/protocol';
import {
  type StoredTask,
  TASK_FORMATS,
  type TaskFormat,
  parseTaskLine,
  storedTask,
  storedTaskSelect,
} from '@fusebox/tasks';
import { z } from 'zod';
import { humanEvalFreeformPrompt, humanEvalProgram } from './humaneval-program';
import { parseBody, sendJson } from './sandbox-http';
import { DATASET_TYPES, submitJudging } from './submit-config';

/**
 * SandboxFusion's dataset API over Fusebox's tasks, in its request and response shapes: a dataset is the tasks
 * of one `source` (`fusebox tasks import` sets it: autoeval, fusebox, builtin), a problem's id is the task's
 * name (a number when it is one, as SandboxFusion's ids are). `/submit` extracts the completion's code, runs the
 * task's tests in the sandbox, each under a global permit, records those executions and answers an EvalResult.
 * `/get_metrics` and `/get_metrics_function` answer what SandboxFusion answers for a dataset without metrics.
 */
export function registerDatasetRoutes(
  scope: FastifyInstance,
  options: { prisma: PrismaClient; sandbox: SessionSandbox; maxTimeoutS: number },
): void {
  const { prisma, sandbox, maxTimeoutS } = options;
  const tasks = new DatasetTasks(prisma);

  scope.get('/list_datasets', async (_request, reply) => sendJson(reply, 200, await tasks.datasets()));

  /** A page of a dataset's problems, or the rows `config.provided_data` brings instead (SandboxFusion's rule). */
  const problems = async (
    reply: FastifyReply,
    body: GetPromptsRequest,
    route: '/list_ids' | '/get_prompts',
  ): Promise<ProblemRow[] | undefined> => {
    if (body.config.provided_data !== null) return providedProblems(reply, body.dataset, body.config, route);
    if (!(await tasks.known(reply, body.dataset))) return undefined;
    return tasks.page(body.dataset, body.offset, body.limit);
  };

  scope.post('/list_ids', async (request, reply) => {
    const body = parseBody(reply, getPromptsRequestSchema, request.body, []);
    const page = body && (await problems(reply, body, '/list_ids'));
    if (page === undefined) return reply;
    return sendJson(
      reply,
      200,
      page.map((task) => problemId(task.name)),
    );
  });

  scope.post('/get_prompts', async (request, reply) => {
    const body = parseBody(reply, getPromptsRequestSchema, request.body, []);
    const page = body && (await problems(reply, body, '/get_prompts'));
    if (body === undefined || page === undefined) return reply;
    return sendJson(
      reply,
      200,
      page.map((task) => prompt(task, body.config)),
    );
  });

  scope.post('/get_prompt_by_id', async (request, reply) => {
    const body = parseBody(reply, getPromptByIdRequestSchema, request.body, []);
    if (body === undefined) return reply;
    const task =
      body.config.provided_data === null
        ? await tasks.problem(reply, body.dataset, body.id)
        : providedProblems(reply, body.dataset, body.config, '/get_prompt_by_id')?.[0];
    return task === undefined ? reply : sendJson(reply, 200, prompt(task, body.config));
  });

  scope.post('/submit', async (request, reply) => {
    const body = parseBody(reply, submitRequestSchema, request.body, []);
    if (body === undefined) return reply;
    const problem =
      body.config.provided_data === null
        ? await tasks.problem(reply, body.dataset, body.id)
        : (await tasks.unstored(reply, body.dataset, body.id))
          ? providedProblems(reply, body.dataset, body.config, '/submit')?.[0]
          : undefined;
    if (problem === undefined) return reply;
    const task = storedTask(problem);
    const judging = submitJudging(body.config, task, maxTimeoutS);
    if ('field' in judging)
      return sendJson(reply, 400, { detail: `config.${judging.field}: ${judging.message}` });
    const extracted = judging.freeform || problem.source !== 'humaneval';
    const code = extracted ? extractCode(body.completion, judging.language) : undefined;
    const joined =
      problem.source === 'humaneval' ? humanEvalProgram(problem.prompt, body.completion, code) : undefined;
    // Judged as one program, whatever the task's session mode: a completion is a whole solution.
    const judged: StoredTask = {
      ...task,
      language: judging.language,
      sessionMode: 'fresh',
      settings: { ...task.settings, runTimeoutS: judging.runTimeoutS },
    };
    const run = await runTests(withCompileTimeout(sandbox, judging.compileTimeoutS), judged, [
      { code: joined?.program ?? code ?? '', status: 'ok' },
    ]);
    await prisma.execution.createMany({
      data: run.rows.map((execution) => ({ ...execution, source: 'dataset_submit' })),
    });
    const result: EvalResult = {
      id: body.id,
      accepted: run.outcomes.length > 0 && run.outcomes.every((outcome) => outcome.passed),
      extracted_code: joined?.completion ?? code ?? '',
      full_code: joined?.program ?? null,
      test_code: null,
      tests: run.outcomes.map((outcome, index) => ({
        passed: outcome.passed,
        exec_info: run.responses[index] as EvalResult['tests'][number]['exec_info'],
        // The run that judged it (for a Python assert test, Fusebox's trusted runner, whose signed verdict line
        // is on its stdout) and the verdict: passed, its category and why.
        test_info: { name: outcome.name, status: outcome.status, detail: outcome.detail },
      })),
      extracted_type: null,
      extra: null,
    };
    return sendJson(reply, 200, result);
  });

  scope.post('/get_metrics', async (request, reply) => {
    const body = parseBody(reply, getMetricsRequestSchema, request.body, []);
    if (body === undefined || !(await tasks.known(reply, body.dataset))) return reply;
    return sendJson(reply, 200, {});
  });

  scope.post('/get_metrics_function', async (request, reply) => {
    const body = parseBody(reply, getMetricsFunctionRequestSchema, request.body, []);
    if (body === undefined || !(await tasks.known(reply, body.dataset))) return reply;
    return sendJson(reply, 200, { function: null });
  });
}

const problemSelect = { ...storedTaskSelect, prompt: true, source: true } as const;
type ProblemRow = Awaited<ReturnType<DatasetTasks['page']>>[number];

/** The tasks table read as SandboxFusion's datasets. */
class DatasetTasks {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  async datasets(): Promise<string[]> {
    const sources = await this.#prisma.task.findMany({
      distinct: ['source'],
      select: { source: true },
      orderBy: { source: 'asc' },
    });
    return sources.map(({ source }) => source);
  }

  /** Whether `dataset` has tasks; if not, answers 400 naming the known ones, as SandboxFusion answers 400. */
  async known(reply: FastifyReply, dataset: string): Promise<boolean> {
    if ((await this.#prisma.task.count({ where: { source: dataset }, take: 1 })) > 0) return true;
    const known = await this.datasets();
    sendJson(reply, 400, {
      detail: `no dataset ${JSON.stringify(dataset)}: the datasets are the sources of the imported tasks (${known.join(', ') || 'none yet: import some with `fusebox tasks import FILE`'})`,
    });
    return false;
  }

  page(dataset: string, offset: number, limit: number) {
    return this.#prisma.task.findMany({
      where: { source: dataset },
      select: problemSelect,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: Math.max(offset, 0),
      take: Math.max(limit, 0),
    });
  }

  /**
   * Whether a problem is not stored, as a submission that brings its own row must be: a stored problem is
   * judged by its own tests, never by tests the request carries. Answers 400 when it is stored.
   */
  async unstored(reply: FastifyReply, dataset: string, id: ProblemId): Promise<boolean> {
    const stored = await this.#prisma.task.count({ where: { source: dataset, name: String(id) }, take: 1 });
    if (stored === 0) return true;
    sendJson(reply, 400, {
      detail: `config.provided_data: problem ${JSON.stringify(id)} of dataset ${JSON.stringify(dataset)} is stored, and its own tests judge it; send provided_data only for a problem that is not`,
    });
    return false;
  }

  /** The task of one problem; answers 400 for an unknown dataset and 404 for an unknown id. */
  async problem(reply: FastifyReply, dataset: string, id: ProblemId): Promise<ProblemRow | undefined> {
    if (!(await this.known(reply, dataset))) return undefined;
    const task = await this.#prisma.task.findFirst({
      where: { source: dataset, name: String(id) },
      select: problemSelect,
    });
    if (task === null) {
      sendJson(reply, 404, {
        detail: `no problem ${JSON.stringify(id)} in dataset ${JSON.stringify(dataset)}`,
      });
      return undefined;
    }
    return task;
  }
}

/**
 * The problems a request carries in `config.provided_data`, as SandboxFusion reads them there instead of its
 * database: one row (an object) for `/get_prompt_by_id` and `/submit`, a list of rows for `/list_ids` and
 * `/get_prompts` (not paged, as there). Each is parsed in the dataset's format (or `config.dataset_type`'s, else
 * recognised by its shape) as `fusebox tasks import` would store it. Answers 400 naming what is wrong.
 */
function providedProblems(
  reply: FastifyReply,
  dataset: string,
  config: SubmitRequest['config'],
  route: '/list_ids' | '/get_prompts' | '/get_prompt_by_id' | '/submit',
): ProblemRow[] | undefined {
  const provided = config.provided_data;
  const many = route === '/list_ids' || route === '/get_prompts';
  if (provided === null || Array.isArray(provided) !== many) {
    // SandboxFusion refuses the other shape with a 400 too.
    const expected = many ? 'a list of rows' : 'one row (an object)';
    sendJson(reply, 400, { detail: `config.provided_data: expected ${expected} for ${route}` });
    return undefined;
  }
  const format: TaskFormat = TASK_FORMATS.includes(dataset as TaskFormat)
    ? (dataset as TaskFormat)
    : (DATASET_TYPES[config.dataset_type ?? ''] ?? 'auto');
  const rows = Array.isArray(provided) ? provided : [provided];
  const problems: ProblemRow[] = [];
  for (const [index, row] of rows.entries()) {
    const parsed = parseTaskLine(JSON.stringify(row), { format, source: 'fusebox' });
    if (!parsed.ok) {
      const field = many ? `config.provided_data[${index}]` : 'config.provided_data';
      sendJson(reply, 400, { detail: `${field}: ${parsed.problem}` });
      return undefined;
    }
    problems.push(parsed.task);
  }
  return problems;
}

/** The sandbox a submission's runs go through, with its compile timeout (the task has only a run timeout). */
function withCompileTimeout(sandbox: SessionSandbox, seconds: number): SessionSandbox {
  return {
    ...sandbox,
    runProgram: (request) => sandbox.runProgram({ ...request, compile_timeout: seconds }),
  };
}

/** SandboxFusion's ids are numbers where the dataset's are (MBPP's 11), else strings (HumanEval/0). */
function problemId(name: string): ProblemId {
  return /^(0|[1-9]\d{0,14})$/.test(name) ? Number(name) : name;
}

const extraSchema = z.object({ extra: z.record(z.string(), z.unknown()).default({}) }).loose();

/** A problem's prompt; HumanEval's in chat form when `config.extra.is_freeform` asks for it, as /submit reads it. */
function prompt(task: ProblemRow, config: SubmitRequest['config']): Prompt {
  const { extra } = extraSchema.parse(task.metadata ?? {});
  const labels = z.record(z.string(), z.unknown()).safeParse(extra.labels);
  const freeform = task.source === 'humaneval' && config.extra.is_freeform === true;
  return {
    id: problemId(task.name),
    prompt: freeform ? humanEvalFreeformPrompt(task.prompt, config.locale) : task.prompt,
    labels: labels.success ? labels.data : { language: task.language },
  };
}
