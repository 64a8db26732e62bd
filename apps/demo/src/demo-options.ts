import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { DatabaseTarget } from '@fusebox/db/database';
import { z } from 'zod';
import { demoDatabaseTarget } from './demo-env';
import { DEFAULT_TASK_FAMILIES, TASK_FAMILIES, type TaskFamily } from './demo-tally';

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });
const positiveInt = (max: number) =>
  z.coerce
    .number({ error: 'expected a positive integer' })
    .int('expected a positive integer')
    .positive('expected a positive integer')
    .max(max, `expected at most ${max}`);

/** The flags of `fusebox demo`, as parseArgs hands them over: strings, checked and converted here. */
export const demoFlagsSchema = z
  .object({
    'api-url': httpUrl.optional(),
    'dashboard-url': httpUrl.optional(),
    token: z.string().min(1, 'must not be empty').optional(),
    episodes: positiveInt(100_000).default(64),
    steps: positiveInt(1_000).default(3),
    concurrency: positiveInt(4_096).optional(),
    tasks: z
      .string()
      .transform((value) => [...new Set(value.split(',').map((part) => part.trim()))])
      .pipe(
        z.array(z.enum(TASK_FAMILIES, { error: `expected a list of ${TASK_FAMILIES.join(', ')}` })).min(1),
      )
      .default([...DEFAULT_TASK_FAMILIES]),
    out: z.string().min(1, 'must not be empty').optional(),
    name: z.string().min(1, 'must not be empty').optional(),
    'sandbox-url': httpUrl.optional(),
    'model-url': httpUrl.optional(),
    model: z.string().min(1, 'must not be empty').optional(),
    'max-turns': positiveInt(100).optional(),
    'max-tokens': positiveInt(1_000_000).default(1024),
    'tools-in': z
      .enum(['request', 'system-prompt'], { error: 'expected request or system-prompt' })
      .default('request'),
    report: z.string().min(1, 'must not be empty').optional(),
  })
  .refine((flags) => (flags['model-url'] === undefined) === (flags.model === undefined), {
    message: '--model-url and --model go together: the server to ask, and the model to ask it for',
    path: ['model'],
  });

export type DemoFlags = z.output<typeof demoFlagsSchema>;

/** How to reach an OpenAI-compatible server, when the demo asks a model instead of playing its script. */
export interface ModelPolicy {
  url: string;
  name: string;
  maxTokens: number;
  toolsIn: 'request' | 'system-prompt';
}

/** Everything a demo run needs, defaults resolved. */
export interface DemoSettings {
  apiUrl: string;
  dashboardUrl: string;
  token: string | undefined;
  /** The server's database, where the tasks and rollouts are imported (through the server, when it holds it). */
  database: DatabaseTarget;
  /** The limiter key the server's executions run under, to find the server's limit in its overview. */
  limiterKey: string;
  /** Episodes per step, shared between the task families. */
  episodes: number;
  steps: number;
  /** Episodes in flight; null means four times the server's limit, so executions queue for permits. */
  concurrency: number | null;
  families: TaskFamily[];
  /** Where the `{step}.jsonl` dumps go, and the run's name in the rollout browser. */
  outDir: string;
  runName: string;
  /** The code interpreter's `sandbox_fusion_url`. */
  sandboxUrl: string;
  model: ModelPolicy | null;
  maxTurns: number;
  reportPath: string | undefined;
}

/** Assistant turns per episode: the script has three; a real model gets room to retry. */
const SCRIPTED_TURNS = 3;
const MODEL_TURNS = 5;

/**
 * Settles every default: the API and dashboard on this machine's ports (as `npm start` runs them), dumps in a
 * fresh directory under the system's temporary directory, named by the time, so reruns never mix.
 */
export function resolveDemoSettings(
  flags: DemoFlags,
  env: {
    PORT: number;
    DASHBOARD_PORT: number;
    DATABASE_URL?: string | undefined;
    FUSEBOX_DATA_DIR: string;
    FUSEBOX_API_TOKEN?: string | undefined;
    FUSEBOX_LIMITER_KEY: string;
  },
  now = new Date(),
): DemoSettings {
  const apiUrl = (flags['api-url'] ?? `http://127.0.0.1:${env.PORT}`).replace(/\/+$/, '');
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const runName = flags.name ?? (flags.out ? basename(resolve(flags.out)) : `demo-${stamp}`);
  const model = flags['model-url'];
  return {
    apiUrl,
    dashboardUrl: (flags['dashboard-url'] ?? `http://127.0.0.1:${env.DASHBOARD_PORT}`).replace(/\/+$/, ''),
    token: flags.token ?? env.FUSEBOX_API_TOKEN,
    database: demoDatabaseTarget(env),
    limiterKey: env.FUSEBOX_LIMITER_KEY,
    episodes: flags.episodes,
    steps: flags.steps,
    concurrency: flags.concurrency ?? null,
    families: flags.tasks,
    outDir: resolve(flags.out ?? join(tmpdir(), 'fusebox-demo', runName)),
    runName,
    sandboxUrl: flags['sandbox-url'] ?? `${apiUrl}/run_code`,
    model:
      model && flags.model
        ? { url: model, name: flags.model, maxTokens: flags['max-tokens'], toolsIn: flags['tools-in'] }
        : null,
    maxTurns: flags['max-turns'] ?? (model ? MODEL_TURNS : SCRIPTED_TURNS),
    reportPath: flags.report,
  };
}
