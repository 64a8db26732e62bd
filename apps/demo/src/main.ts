#!/usr/bin/env -S node --conditions=@fusebox/source --import tsx
// `npm run demo`: rolls out multi-turn episodes with real tools against a running Fusebox, as a client would.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { InvalidEnvironmentError, inputIssues } from '@fusebox/input';
import { readDemoEnv } from './demo-env';
import { demoFlagsSchema, resolveDemoSettings } from './demo-options';
import { progressDisplay } from './demo-progress';
import { demoReport } from './demo-report';
import { DemoSetupError } from './demo-setup-error';
import { demoSummary } from './demo-summary';
import { runDemo } from './run-demo';

const STRING = { type: 'string' } as const;

const USAGE = [
  'usage: fusebox-demo [options]   (npm run demo -- [options])',
  '',
  'Roll out multi-turn episodes with real tools against a running server.',
  '',
  ...[
    'Runs GSM8K word problems (code_interpreter + calc_gsm8k_reward) and coding tasks (the session API) through',
    "the server's limiter and sandbox, writes verl dumps ({step}.jsonl) and imports them for the rollout browser.",
    "Search questions (verl's search tool on a small shipped corpus, through /retrieve) run with --tasks search.",
    '--api-url URL        the Fusebox API (default http://127.0.0.1:$PORT, i.e. :8080, as `npm start` runs it)',
    '--dashboard-url URL  the dashboard, for the links at the end (default http://127.0.0.1:$DASHBOARD_PORT)',
    '--token TOKEN        the bearer token, when the server sets FUSEBOX_API_TOKEN (default: $FUSEBOX_API_TOKEN)',
    '--episodes N         episodes per step, split between the task families (default 64)',
    '--steps N            training steps, one dump file each (default 3)',
    "--concurrency N      episodes in flight (default 4 × the server's global limit, so executions queue)",
    '--tasks LIST         any of gsm8k, coding, search, comma-separated (default gsm8k,coding)',
    '--out DIR            where the dumps go; must hold no dump yet (default $TMPDIR/fusebox-demo/NAME)',
    '--name NAME          the run in the rollout browser (default demo-<date>-<time>, or the --out directory name)',
    "--sandbox-url URL    the code interpreter's /run_code (default the API's; any SandboxFusion works)",
    '--model-url URL      an OpenAI-compatible server (vLLM, SGLang, llama.cpp), e.g. http://127.0.0.1:8000/v1,',
    '                     instead of the offline scripted policy; needs --model',
    '--model NAME         the model to ask the server for',
    '--max-turns N        assistant turns per episode (default 3 scripted, 5 with a model)',
    '--max-tokens N       tokens per model turn (default 1024)',
    '--tools-in MODE      request (default: the tools field) or system-prompt (servers without tool support)',
    '--report FILE        also write the results as JSON',
    "Uses DATABASE_URL (or FUSEBOX_DATA_DIR), which must be the server's: the tasks and rollouts go there.",
  ].map((line) => `  ${line}`),
].join('\n');

const OPTIONS = {
  'api-url': STRING,
  'dashboard-url': STRING,
  token: STRING,
  episodes: STRING,
  steps: STRING,
  concurrency: STRING,
  tasks: STRING,
  out: STRING,
  name: STRING,
  'sandbox-url': STRING,
  'model-url': STRING,
  model: STRING,
  'max-turns': STRING,
  'max-tokens': STRING,
  'tools-in': STRING,
  report: STRING,
  help: { type: 'boolean', short: 'h' },
} as const;

function usageError(message: string): number {
  console.error(`fusebox-demo: ${message}\n\n${USAGE}`);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    return usageError((error as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const { help: _, ...flagValues } = values;
  const flags = demoFlagsSchema.safeParse(flagValues);
  if (!flags.success) {
    // Issues name the flag, not the path inside it (`--tasks`, not `--tasks.0`).
    const issues = inputIssues(flags.error).map(
      ({ field, message }) => `--${field.split('.')[0]}: ${message}`,
    );
    return usageError(issues.join('; '));
  }
  const settings = resolveDemoSettings(flags.data, readDemoEnv());
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error('stopped'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const display = progressDisplay();
  try {
    const result = await runDemo(
      settings,
      {
        onProgress: (progress) => display.update(progress),
        log: (line) => {
          display.clear();
          console.log(line);
        },
      },
      stop.signal,
    );
    display.clear();
    console.log(`\n${demoSummary(result)}`);
    if (settings.reportPath)
      await writeFile(settings.reportPath, `${JSON.stringify(demoReport(result), null, 2)}\n`);
    return 0;
  } catch (error) {
    display.clear();
    if (stop.signal.aborted) {
      console.error('fusebox-demo: stopped; the steps finished so far are dumped and imported');
      return 130;
    }
    if (error instanceof DemoSetupError) {
      console.error(`fusebox-demo: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof InvalidEnvironmentError) {
      console.error(`fusebox-demo: ${error.message}`);
      process.exit(2);
    }
    console.error('fusebox-demo: unexpected error:', error);
    process.exit(1);
  },
);
