/**
 * Every code block of the root README.md is exercised here against a real `fusebox serve` (API and dashboard),
 * so that the README cannot rot. How a block is matched, for whoever edits the README:
 *
 * - The fence's info string names the language. A block with none (a bare ```) is a picture (a diagram, sample
 *   output) and is not run; but one whose lines look like commands fails, so commands cannot hide there.
 * - `sh`/`bash`/`shell`: each command (backslash continuations joined, `# comments` dropped) is matched by the
 *   first entry of COMMANDS whose pattern fits; one that matches none fails the test, naming its line, so a new
 *   kind of command needs an entry here. Leading `VAR=value` words must be variables of the server's environment
 *   schema (apps/api/src/env.ts) with valid values. curl, `export` and assignments run through bash, the whole
 *   block as one script, with curl failing on HTTP errors.
 * - `yaml`: a verl tool config (`tools:`) is loaded with `loadToolsFromYaml`, and each code tool runs code on the
 *   server. A verl trainer config may only set the keys in VERL_KEYS; its `tool_config_path` must name a tool
 *   config shown earlier (by the `# file.yaml` comment that opens it), and its `rollout_data_dir` gets a dump for
 *   the `fusebox rollouts import` command that follows.
 * - `python`: run by Debian's /usr/bin/python3; it must exit 0.
 * - `json`: must parse.
 * - Addresses: http://127.0.0.1:8080 and localhost:8080 become the test server's API, :3000 its dashboard.
 * - To leave a block out, put `<!-- readme-test: skip: <why> -->` on the line before its fence.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '@fusebox/db/testing';
import { CodeInterpreterTool, loadToolsFromYaml } from '@fusebox/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { envSchema, readEnv } from '../src/env';
import { FUSEBOX_BIN, type RunningServer, runCli, runNode, startServer } from './serve-process';

const ROOT = new URL('../../../', import.meta.url);
const DEMO_ENTRY = new URL('apps/demo/src/main.ts', ROOT);
const README = new URL('README.md', ROOT);

interface Block {
  line: number;
  language: string;
  text: string;
  skip: string | null;
}

/** Fenced blocks (``` or longer, ~~~), with the line of their opening fence and any skip marker above it. */
function readmeBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[index] ?? '');
    if (!open) continue;
    const fence = open[1] ?? '```';
    const close = new RegExp(`^${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    const end = lines.findIndex((line, at) => at > index && close.test(line));
    if (end === -1) throw new Error(`README.md:${index + 1}: a code block is never closed`);
    const above = lines.slice(0, index).findLast((line) => line.trim() !== '') ?? '';
    blocks.push({
      line: index + 1,
      language: open[2] ?? '',
      text: lines.slice(index + 1, end).join('\n'),
      skip: /<!--\s*readme-test:\s*skip:\s*(.+?)\s*-->/.exec(above)?.[1] ?? null,
    });
    index = end;
  }
  return blocks;
}

/** What the blocks share as the test walks down the README. */
interface Context {
  server: RunningServer;
  dashboardUrl: string;
  /** Points a `fusebox` process at the test database. */
  databaseEnv: Record<string, string>;
  dir: string;
  /** Tool config files the README has shown, by the name in their first comment. */
  toolConfigs: Set<string>;
  /** README paths of rollout dumps, and the directories standing in for them. */
  dumps: Map<string, string>;
}

function localise(text: string, context: Context): string {
  return text
    .replace(/(https?:\/\/)?(127\.0\.0\.1|localhost):8080/g, context.server.url)
    .replace(/(https?:\/\/)?(127\.0\.0\.1|localhost):3000/g, context.dashboardUrl);
}

/** A shell block's commands: continuations joined, comments and blank lines dropped. */
function shellCommands(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => stripComment(line).trim())
    .filter((line) => line !== '');
}

function stripComment(line: string): string {
  let quote: string | null = null;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '#' && (index === 0 || /\s/.test(line[index - 1] ?? ''))) {
      return line.slice(0, index);
    }
  }
  return line;
}

async function packageScript(name: string): Promise<string | undefined> {
  const manifest = JSON.parse(await readFile(new URL('package.json', ROOT), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return manifest.scripts[name];
}

async function expectPage(url: string, text: RegExp): Promise<void> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  expect(await response.text()).toMatch(text);
}

/** `fusebox rollouts import DIR --watch` until it reports the step file, then Ctrl-C, as a user would. */
async function watchImport(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child: ChildProcess = spawn(process.execPath, [FUSEBOX_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const imported = new Promise<void>((resolve) => {
    const check = (chunk: Buffer) => {
      output += chunk.toString();
      if (/1\.jsonl: 1 samples/.test(output)) resolve();
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
  });
  const exited = once(child, 'exit');
  await Promise.race([imported, exited]);
  child.kill('SIGINT');
  const [code] = (await exited) as [number | null];
  return { code, output };
}

/** A command of a shell block, and what the test does to prove it works. */
interface CommandCheck {
  pattern: RegExp;
  run(context: Context, match: RegExpExecArray, script: string[]): Promise<void>;
}

const COMMANDS: CommandCheck[] = [
  {
    // `npm start` runs setup (apt, npm ci, builds) then `fusebox serve`; the suite already runs that server,
    // on ports of its own, so the check is that the script is wired so and that the server and dashboard answer.
    pattern: /^(npm start|(npx )?fusebox serve)$/,
    async run(context) {
      expect(await packageScript('start')).toBe('node scripts/run.mjs start');
      await expectPage(`${context.server.url}/v1/ping`, /^"pong"$/);
      await expectPage(`${context.dashboardUrl}/`, /Fusebox/);
    },
  },
  {
    // The suite this test belongs to.
    pattern: /^npm test$/,
    async run() {
      expect(await packageScript('test')).toBe('node scripts/run.mjs test');
    },
  },
  {
    // `npm run demo` runs apps/demo's entry (after making sure the npm packages are installed), run here small.
    // It is spawned by path: the demo's own tests depend on this app, so this app's tests cannot depend on it.
    pattern: /^npm run demo(?: -- (.*))?$/,
    async run(context, match) {
      expect(await packageScript('demo')).toBe('node scripts/run.mjs demo');
      const args = match[1]?.split(/\s+/) ?? [];
      const out = join(context.dir, `demo-${Date.now()}`);
      const demo = await runNode(
        [
          ...['--conditions=@fusebox/source', '--import', 'tsx', fileURLToPath(DEMO_ENTRY)],
          ...args,
          ...['--api-url', context.server.url, '--dashboard-url', context.dashboardUrl],
          ...['--episodes', '4', '--steps', '1', '--out', out],
        ],
        context.databaseEnv,
      );
      expect(demo.stderr).not.toContain('unexpected error');
      expect(demo.code).toBe(0);
      expect(demo.stdout).toContain(`overview    ${context.dashboardUrl}/`);
    },
  },
  {
    pattern: /^(?:npx )?fusebox rollouts import (\S+)( --watch)?$/,
    async run(context, match) {
      const dir = context.dumps.get(match[1] ?? '');
      expect(dir, `no README block sets trainer.rollout_data_dir to ${match[1]}`).toBeDefined();
      const args = ['rollouts', 'import', dir as string, '--name', `readme-${Date.now()}`];
      const result = match[2]
        ? await watchImport([...args, '--watch'], context.databaseEnv)
        : await runCli(args, context.databaseEnv).then(({ code, stdout, stderr }) => ({
            code,
            output: stdout + stderr,
          }));
      expect(result.output).toMatch(/1\.jsonl: 1 samples|imported 1 samples/);
      expect(result.code).toBe(0);
    },
  },
  {
    pattern: /^(?:npx )?fusebox( .*)?$/,
    async run(_context, match) {
      const result = await runCli(match[1]?.trim().split(/\s+/) ?? []);
      expect(result.code, result.stderr).toBe(0);
    },
  },
  {
    // Collected and run as one bash script at the end of the block, so variables carry from line to line.
    pattern: /^(curl\s|export\s|[A-Za-z_][A-Za-z0-9_]*=|echo\s)/,
    run(_context, match, script) {
      script.push(match.input);
      return Promise.resolve();
    },
  },
];

/** verl configuration keys the README may set: a typo in one would do nothing in verl, silently. */
const VERL_KEYS = new Set([
  'actor_rollout_ref.rollout.multi_turn.enable',
  'actor_rollout_ref.rollout.multi_turn.tool_config_path',
  'actor_rollout_ref.rollout.multi_turn.format',
  'actor_rollout_ref.rollout.multi_turn.max_assistant_turns',
  'actor_rollout_ref.rollout.multi_turn.max_user_turns',
  'trainer.rollout_data_dir',
]);

function flatten(value: unknown, prefix = ''): [string, unknown][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [[prefix, value]];
  return Object.entries(value).flatMap(([key, inner]) => flatten(inner, prefix ? `${prefix}.${key}` : key));
}

async function checkShell(block: Block, context: Context): Promise<void> {
  const script: string[] = [];
  for (const command of shellCommands(block.text)) {
    const words = command.split(/\s+/);
    const assignments = words.filter((word, index) =>
      words.slice(0, index + 1).every((earlier) => /^[A-Z_][A-Z0-9_]*=[^\s$'"`(]*$/.test(earlier)),
    );
    const rest = words.slice(assignments.length).join(' ');
    if (assignments.length > 0 && rest !== '') {
      const env: Record<string, string> = Object.fromEntries(
        assignments.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
      );
      for (const key of Object.keys(env))
        expect(Object.keys(envSchema.shape), `README: ${command}`).toContain(key);
      expect(() => readEnv(env)).not.toThrow();
    }
    const line = rest === '' ? command : localise(rest, context);
    const check = COMMANDS.find(({ pattern }) => pattern.test(line));
    if (!check) {
      throw new Error(
        `README.md:${block.line}: no check for the command \`${command}\`; add one to COMMANDS in apps/api/test/readme.test.ts`,
      );
    }
    await check.run(context, check.pattern.exec(line) as RegExpExecArray, script);
  }
  if (script.length === 0) return;
  const bash = spawnSync(
    'bash',
    ['-euo', 'pipefail', '-c', `curl() { command curl -sS --fail-with-body "$@"; }\n${script.join('\n')}`],
    {
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  expect(bash.status, `README.md:${block.line}:\n${bash.stdout}\n${bash.stderr}`).toBe(0);
}

async function checkYaml(block: Block, context: Context): Promise<void> {
  const text = localise(block.text, context);
  const document = parseYaml(text) as Record<string, unknown>;
  if ('tools' in document) {
    const name = /^#\s*(\S+\.ya?ml)\s*$/m.exec(text)?.[1];
    if (name) context.toolConfigs.add(name);
    const tools = await loadToolsFromYaml(text);
    try {
      const code = tools.filter((tool) => tool instanceof CodeInterpreterTool);
      expect(code.length, 'a tool config in the README has no code tool to run').toBeGreaterThan(0);
      for (const tool of code) {
        const { instanceId } = await tool.create();
        const { response } = await tool.execute(instanceId, { code: 'print(6 * 7)' });
        expect(response.text).toBe('42\n');
        await tool.release(instanceId);
      }
    } finally {
      await Promise.all(tools.map((tool) => tool.close()));
    }
    return;
  }
  const settings = flatten(document);
  for (const [key] of settings)
    expect(VERL_KEYS, `README.md:${block.line}: verl has no key ${key}`).toContain(key);
  const values = new Map(settings);
  const toolConfig = values.get('actor_rollout_ref.rollout.multi_turn.tool_config_path');
  if (toolConfig !== undefined) expect(context.toolConfigs).toContain(toolConfig);
  const dumpDir = values.get('trainer.rollout_data_dir');
  if (typeof dumpDir === 'string') {
    const dir = join(context.dir, `dump-${context.dumps.size}`);
    await mkdir(dir, { recursive: true });
    const sample = {
      input: 'user\nWhat is 6 * 7?\nassistant\n',
      output: '#### 42',
      gts: '42',
      score: 1.0,
      step: 1,
    };
    await writeFile(join(dir, '1.jsonl'), `${JSON.stringify(sample)}\n`);
    context.dumps.set(dumpDir, dir);
  }
}

const COMMAND_LIKE = /^\s*(\$ |npm |npx |fusebox |curl |python3? )/m;

async function checkBlock(block: Block, context: Context): Promise<void> {
  switch (block.language) {
    case '':
    case 'text':
      expect(
        block.text,
        `README.md:${block.line}: commands in an untagged block are never run; tag it sh`,
      ).not.toMatch(COMMAND_LIKE);
      return;
    case 'sh':
    case 'bash':
    case 'shell':
      return checkShell(block, context);
    case 'yaml':
    case 'yml':
      return checkYaml(block, context);
    case 'python': {
      const run = spawnSync('/usr/bin/python3', ['-'], {
        input: localise(block.text, context),
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(run.status, `README.md:${block.line}:\n${run.stdout}\n${run.stderr}`).toBe(0);
      return;
    }
    case 'json':
      expect(() => JSON.parse(block.text) as unknown).not.toThrow();
      return;
    default:
      throw new Error(
        `README.md:${block.line}: no check for \`\`\`${block.language} blocks; add one to checkBlock in apps/api/test/readme.test.ts`,
      );
  }
}

/** A port nobody listens on right now, for the dashboard. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

const blocks = readmeBlocks(await readFile(README, 'utf8'));

describe('README.md', () => {
  let database: PostgresTestDatabase;
  let context: Context;

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    const dashboardPort = await freePort();
    const server = await startServer({ ...database.env, DASHBOARD_PORT: String(dashboardPort) }, [], 120_000);
    context = {
      server,
      dashboardUrl: `http://127.0.0.1:${dashboardPort}`,
      databaseEnv: database.env,
      dir: await mkdtemp(join(tmpdir(), 'fusebox-readme-')),
      toolConfigs: new Set(),
      dumps: new Map(),
    };
    // The dashboard starts after the API; the first block that opens it must find it up.
    const deadline = Date.now() + 120_000;
    while (
      (await fetch(`${context.dashboardUrl}/`).then(
        (response) => response.status,
        () => 0,
      )) !== 200
    ) {
      if (Date.now() > deadline) throw new Error(`the dashboard at ${context.dashboardUrl} never answered`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }, 240_000);

  afterAll(async () => {
    await context?.server.stop();
    await database?.drop();
    if (context) await rm(context.dir, { recursive: true, force: true });
  });

  it('has code blocks to check', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  for (const block of blocks) {
    const name = `README.md:${block.line}: \`\`\`${block.language || '(untagged)'}${block.skip ? ` (skipped: ${block.skip})` : ''}`;
    it.skipIf(block.skip !== null)(name, { timeout: 300_000 }, () => checkBlock(block, context));
  }
});
