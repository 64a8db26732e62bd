// The executor's cost over its floor: /run_code through a real `fusebox serve` against a bare bubblewrap spawn of
// the same code and an unsandboxed spawn, at concurrency 1, 4 and 16; a session cell round trip; the idle RSS;
// what recording executions costs. Usage: node --conditions=@fusebox/source --import tsx bench/executor/run.ts [--passes N]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import { startServer } from '@fusebox/api/testing';
import { createPrismaClient } from '@fusebox/db/client';
import { createPostgresTestDatabase } from '@fusebox/db/testing';
import { writeResults } from '../write-results';
import { BWRAP_FLOOR, spawnCall } from './floor';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/executor/run.ts';
const CODE = 'print(1)';
const CONCURRENCIES = [1, 4, 16];
/** Calls per measurement at each concurrency; the first tenth of each is warm-up, not counted. */
const CALLS: Record<number, number> = { 1: 100, 4: 200, 16: 400 };
const CELL_CALLS = 2_000;

type Call = () => Promise<void>;
interface Measure {
  p50: number;
  p99: number;
  perSecond: number;
}

async function measure(call: Call, concurrency: number, calls: number): Promise<Measure> {
  const warmup = Math.floor(calls / 10);
  const latencies: number[] = [];
  let next = 0;
  let countedFrom = 0;
  const worker = async () => {
    while (next < calls) {
      const index = next++;
      if (index === warmup) countedFrom = performance.now();
      const started = performance.now();
      await call();
      if (index >= warmup) latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wall = performance.now() - countedFrom;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { p50: at(0.5), p99: at(0.99), perSecond: (latencies.length * 1000) / wall };
}

/** Runs in-process.ts in a process of its own and returns what it measured. */
async function inProcess(): Promise<{
  idleRssMB: number;
  cell: { p50: number; p99: number };
  runCode: { p50: number; p99: number };
}> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@fusebox/source',
      '--import',
      'tsx',
      fileURLToPath(new URL('in-process.ts', import.meta.url)),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`in-process.ts exited with ${code}`);
  return JSON.parse(out) as Awaited<ReturnType<typeof inProcess>>;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function rssMB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** The RSS of every process in the server's sandbox cgroups (warm sandboxes, interpreters). */
function sandboxesRssMB(serverPid: number): { processes: number; mb: number } {
  const root = `/sys/fs/cgroup/pids/fusebox/${serverPid}`;
  const pids = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) =>
      readFileSync(`${root}/${entry.name}/cgroup.procs`, 'utf8').split('\n').filter(Boolean),
    );
  return { processes: pids.length, mb: pids.reduce((sum, pid) => sum + rssMB(Number(pid)), 0) };
}

function table(header: string[], rows: (string | number)[][]): string {
  const widths = header.map((cell, i) =>
    Math.max(3, cell.length, ...rows.map((row) => String(row[i]).length)),
  );
  const line = (cells: (string | number)[]) =>
    `| ${cells.map((cell, i) => String(cell).padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

async function main() {
  const { values } = parseArgs({ options: { passes: { type: 'string', default: '3' } } });
  const passes = Number(values.passes);
  const loadBefore = loadavg();
  const database = await createPostgresTestDatabase();
  // The global limit is set above the load so this measures the executor, not the cluster-wide limiter.
  // The executor runs 16 at once (its default is the number of cores) so c=16 compares like with like, and the
  // global limit is set above the load so this measures the executor, not the cluster-wide limiter.
  const server = await startServer({
    DATABASE_URL: database.url,
    FUSEBOX_EXECUTOR_CONCURRENCY: '16',
    FUSEBOX_MAX_CONCURRENCY: '64',
  });
  const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000 });
  const post = async (path: string, body: unknown) => {
    const response = await agent.request({
      origin: server.url,
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${path}: ${response.statusCode} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  let runCodeCalls = 0;
  const modes: [string, Call][] = [
    [
      'fusebox /run_code (HTTP, bwrap)',
      async () => {
        runCodeCalls += 1;
        const answer = await post('/run_code', { code: CODE, language: 'python' });
        if ((answer.run_result as { stdout: string }).stdout !== '1\n')
          throw new Error(JSON.stringify(answer));
      },
    ],
    ['bare bwrap spawn (floor)', spawnCall(['bwrap', ...BWRAP_FLOOR, '/usr/bin/python3', '-c', CODE], '1\n')],
    ['bare python3 -c (no sandbox)', spawnCall(['/usr/bin/python3', '-c', CODE], '1\n')],
  ];

  const results = new Map<string, Measure[]>();
  for (let pass = 0; pass < passes; pass += 1) {
    for (const concurrency of CONCURRENCIES) {
      for (const [name, call] of modes) {
        const key = `${name}@${concurrency}`;
        results.set(key, [
          ...(results.get(key) ?? []),
          await measure(call, concurrency, CALLS[concurrency]!),
        ]);
        process.stderr.write('.');
      }
    }
  }
  process.stderr.write('\n');
  const summary = (name: string, concurrency: number) => {
    const samples = results.get(`${name}@${concurrency}`)!;
    return {
      p50: median(samples.map((s) => s.p50)),
      p99: median(samples.map((s) => s.p99)),
      perSecond: median(samples.map((s) => s.perSecond)),
    };
  };

  const session = await post('/v1/sandbox/sessions', {});
  const cellPath = `/v1/sandbox/sessions/${session.session_id as string}/run`;
  const cells: Measure[] = [];
  for (let pass = 0; pass < passes; pass += 1) {
    cells.push(await measure(async () => void (await post(cellPath, { code: '1 + 1' })), 1, CELL_CALLS));
  }
  const cell = {
    p50: median(cells.map((c) => c.p50)),
    p99: median(cells.map((c) => c.p99)),
    perSecond: median(cells.map((c) => c.perSecond)),
  };

  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const serverPid = server.process.pid!;
  const idleServerMB = rssMB(serverPid);
  const idleSandboxes = sandboxesRssMB(serverPid);

  const prisma = createPrismaClient(database.url);
  const recorded = await prisma.execution.count({ where: { source: 'run_code' } });
  const row = { source: 'bench', language: 'python', code: CODE, status: 'Success', stdout: '1\n' };
  const insertOne: number[] = [];
  const insertHundred: number[] = [];
  for (let i = 0; i < 20; i += 1) {
    let started = performance.now();
    await prisma.execution.createMany({ data: [row] });
    insertOne.push(performance.now() - started);
    started = performance.now();
    await prisma.execution.createMany({ data: Array.from({ length: 100 }, () => row) });
    insertHundred.push(performance.now() - started);
  }
  await prisma.$disconnect();
  await server.stop();
  await agent.close();
  await database.drop();
  const alone = await inProcess();

  const [fusebox, bwrap, bare] = modes.map(([name]) => name) as [string, string, string];
  const rows = CONCURRENCIES.flatMap((concurrency) =>
    modes.map(([name]) => {
      const s = summary(name, concurrency);
      return [concurrency, name, s.p50.toFixed(1), s.p99.toFixed(1), Math.round(s.perSecond)];
    }),
  );
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const targets = [
    ['/run_code p50 ÷ bare bwrap p50, c=1', ratio(summary(fusebox, 1).p50, summary(bwrap, 1).p50), '≤ 1.3×'],
    [
      '/run_code exec/s ÷ bare bwrap exec/s, c=16',
      ratio(summary(fusebox, 16).perSecond, summary(bwrap, 16).perSecond),
      '≥ 0.8×',
    ],
    ['session cell round trip p50 (HTTP)', `${cell.p50.toFixed(2)} ms`, '≤ 2 ms'],
    ['session cell p50 (executor API, no HTTP)', `${alone.cell.p50.toFixed(2)} ms`, '≤ 2 ms'],
    [
      'idle executor RSS (a process running only the executor)',
      `${alone.idleRssMB.toFixed(0)} MB`,
      '< 150 MB',
    ],
  ];
  const report = [
    '### /run_code python `print(1)` against its floor (medians of passes; ms)',
    '',
    table(['c', 'what', 'p50 ms', 'p99 ms', 'exec/s'], rows),
    '',
    `### Session cell round trip (\`1 + 1\`, HTTP, sequential, ${CELL_CALLS} calls a pass)`,
    '',
    table(
      ['path', 'p50 ms', 'p99 ms'],
      [
        ['HTTP (fusebox serve: Fastify, global permit, recording)', cell.p50.toFixed(2), cell.p99.toFixed(2)],
        [
          'executor API in-process (no HTTP, no limiter)',
          alone.cell.p50.toFixed(2),
          alone.cell.p99.toFixed(2),
        ],
      ],
    ),
    '',
    `In-process \`executor.runCode\` (default concurrency, c=1): p50 ${alone.runCode.p50.toFixed(1)} ms, p99 ${alone.runCode.p99.toFixed(1)} ms.`,
    '',
    '### Targets',
    '',
    table(['measure', 'measured', 'target'], targets),
    '',
    '### Memory and recording',
    '',
    table(
      ['measure', 'value'],
      [
        ['idle executor process RSS (executor only, default settings)', `${alone.idleRssMB.toFixed(0)} MB`],
        ['idle API process RSS (whole `fusebox serve`)', `${idleServerMB.toFixed(0)} MB`],
        [
          `idle warm sandboxes (${idleSandboxes.processes} processes)`,
          `${idleSandboxes.mb.toFixed(0)} MB RSS in all`,
        ],
        ['/run_code calls made / execution rows written', `${runCodeCalls} / ${recorded}`],
        [
          'one-row INSERT (what the response would wait for if it were on the path), p50',
          `${median(insertOne).toFixed(2)} ms`,
        ],
        [
          '100-row INSERT (how the recorder writes, after the response), p50 per row',
          `${(median(insertHundred) / 100).toFixed(3)} ms`,
        ],
      ],
    ),
    '',
    `Bare python3 for reference: p50 ${summary(bare, 1).p50.toFixed(1)} ms at c=1.`,
  ].join('\n');
  console.log(report);

  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  await writeResults(
    new URL('RESULTS.md', import.meta.url),
    [
      '# Executor benchmark',
      '',
      `Command: \`${COMMAND}${passes === 3 ? '' : ` --passes ${passes}`}\``,
      `Date: ${new Date().toISOString()}`,
      `Machine: ${machine}; load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} after`,
      '',
      `${passes} passes; each measurement drops its first tenth as warm-up. The server is a real \`fusebox serve\` ` +
        '(FUSEBOX_EXECUTOR_CONCURRENCY=16, FUSEBOX_MAX_CONCURRENCY=64 so the global limiter never queues), called over ' +
        "keep-alive HTTP with undici; the floor spawns bubblewrap with the isolation of ARCHITECTURE.md's baseline and " +
        'nothing else. The in-process rows run the executor alone in a process of its own, with default settings.',
      '',
      report,
      '',
    ].join('\n'),
  );
}

await main();
