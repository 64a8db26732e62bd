// Client overhead per call: createSandboxClient().runCode against a bare undici request + JSON.parse of the same
// answer, on one keep-alive loopback server, at concurrency 1 and 64. Usage: node --conditions=@fusebox/source --import tsx bench/client/run.ts
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import { createSandboxClient } from '@fusebox/sandbox-client';
import { writeResults } from '../write-results';

const REQUEST = { code: 'print("Hello, world!")', language: 'python' } as const;
const CONCURRENCIES = [1, 64];
/** Calls per chunk; chunks alternate between the two sides so drift in a shared machine's load hits both alike. */
const CHUNK: Record<number, number> = { 1: 500, 64: 2_000 };
const ROUNDS = 20;
const WARMUP_ROUNDS = 2;
const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/client/run.ts';

type Call = () => Promise<unknown>;
interface Sample {
  wallMs: number;
  cpuUs: number;
}

async function main() {
  const loadBefore = loadavg()[0]!;
  const server = spawn(
    process.execPath,
    ['--conditions=@fusebox/source', '--import', 'tsx', fileURLToPath(new URL('server.ts', import.meta.url))],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [portLine] = (await once(server.stdout, 'data')) as [Buffer];
  const origin = `http://127.0.0.1:${portLine.toString().trim()}`;

  const rawAgent = new Agent();
  const raw: Call = async () => {
    const { body } = await rawAgent.request({
      origin,
      path: '/run_code',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(REQUEST),
    });
    return JSON.parse(await body.text()) as unknown;
  };
  const client = createSandboxClient({ endpoint: origin });
  const sdk: Call = () => client.runCode(REQUEST);

  const rows: string[] = [];
  for (const concurrency of CONCURRENCIES) {
    const chunk = CHUNK[concurrency]!;
    const totals = { raw: { wallMs: 0, cpuUs: 0 }, sdk: { wallMs: 0, cpuUs: 0 } };
    for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
      for (const [side, call] of [
        ['raw', raw],
        ['sdk', sdk],
      ] as const) {
        const sample = await measure(call, concurrency, chunk);
        if (round < WARMUP_ROUNDS) continue;
        totals[side].wallMs += sample.wallMs;
        totals[side].cpuUs += sample.cpuUs;
      }
    }
    const calls = chunk * ROUNDS;
    const wall = (side: Sample) => (side.wallMs * 1000) / calls;
    const cpu = (side: Sample) => side.cpuUs / calls;
    const cells = [
      concurrency,
      calls,
      wall(totals.raw).toFixed(1),
      wall(totals.sdk).toFixed(1),
      `${(wall(totals.sdk) / wall(totals.raw)).toFixed(3)}×`,
      cpu(totals.raw).toFixed(1),
      cpu(totals.sdk).toFixed(1),
      `${(cpu(totals.sdk) / cpu(totals.raw)).toFixed(3)}×`,
      Math.round(1e6 / wall(totals.raw)),
      Math.round(1e6 / wall(totals.sdk)),
    ];
    rows.push(`| ${cells.join(' | ')} |`);
  }

  await client.close();
  await rawAgent.close();
  server.kill();

  const table = [
    '| concurrency | calls per side | raw wall µs/call | client wall µs/call | wall ratio | raw CPU µs/call | client CPU µs/call | CPU ratio | raw calls/s | client calls/s |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  console.log(table);
  const cpuInfo = cpus();
  const machine =
    `${cpuInfo.length} × ${cpuInfo[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ` +
    `Node ${process.version}, ${process.platform}; 1-minute load average ${loadBefore.toFixed(1)} before, ` +
    `${loadavg()[0]!.toFixed(1)} after (other work shares the machine)`;
  await writeResults(
    new URL('RESULTS.md', import.meta.url),
    `# sandbox-client overhead per call\n\n` +
      `\`createSandboxClient().runCode()\` (zod validation of the answer, retry loop, deadline and abort wiring) ` +
      `against a bare undici \`request\` plus \`JSON.parse\` of the same answer, both over keep-alive to one ` +
      `loopback server in its own process that answers a recorded /run_code body at once. Wall µs/call is elapsed ` +
      `time over calls; CPU µs/call is this process's own CPU time (user + system) over calls, steadier than wall ` +
      `time on a shared machine. The two sides alternate in chunks (${ROUNDS} rounds after ${WARMUP_ROUNDS} of ` +
      `warm-up). Target: wall ratio ≤ 1.1× at concurrency 1 and 64.\n\n` +
      `- command: \`${COMMAND}\`\n- date: ${new Date().toISOString()}\n- machine: ${machine}\n\n${table}\n`,
  );
}

/** Runs `calls` calls with `concurrency` in flight; returns the elapsed time and this process's CPU time. */
async function measure(call: Call, concurrency: number, calls: number): Promise<Sample> {
  let started = 0;
  const worker = async () => {
    while (started < calls) {
      started++;
      await call();
    }
  };
  const cpu = process.cpuUsage();
  const begin = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const { user, system } = process.cpuUsage(cpu);
  return { wallMs: performance.now() - begin, cpuUs: user + system };
}

await main();
